// The worker's GPU side: set-up, module loading, buffers per problem, one candidate's run
// (its check is gpu_check.cpp, its timed loop gpu_timing.cpp).
#include "measure/gpu_runner_impl.hpp"

#include "core/cache_files.hpp"
#include "measure/utility_kernels.hpp"

#include "ktune/core/check.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <future>
#include <sstream>

namespace ktune::measure::detail {
const driver& drv() {
    static const driver d;
    if (!d.load || !d.unload || !d.function || !d.launch || !d.attr)
        throw error(error_kind::no_device, "CUDA driver entry points not found");
    return d;
}

module::~module() {
    if (m) drv().unload(m);
}

double ms_between(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0;
    KTUNE_CUDA_CALL(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

} // namespace ktune::measure::detail

namespace ktune::measure {
using detail::drv;
using detail::utility_source;

namespace {
// Made once with the problem's buffers, which stay for its life: the slots point into `s`.
void bind_op_args(problem_state& s) {
    for (const bool reference : {false, true}) {
        auto& a = s.args[reference ? 1 : 0];
        std::size_t out_i = 0;
        for (std::size_t i = 0; i < s.specs.size(); ++i) {
            if (!reference || !s.specs[i].output) {
                a.buffers.push_back(s.bufs[i].data());
                continue;
            }
            // The reference of an in-place buffer reads the pristine input, writes fp32 apart.
            if (s.specs[i].in_place) a.buffers.push_back(s.pristine[i].data());
            a.buffers.push_back(s.refs[out_i++].data());
        }
        // The op's scalars (rows, cols) follow its buffers (ops::op::arguments).
        a.slots.reserve(a.buffers.size() + s.scalars.size());
        for (auto& p : a.buffers)
            a.slots.push_back(&p);
        for (auto& v : s.scalars)
            a.slots.push_back(&v);
        if (!reference && s.workspace.data()) a.trailing.push_back(s.workspace.data());
        for (auto& p : a.trailing) // in vectors: the slots survive the problem's move
            a.slots.push_back(&p);
    }
}
} // namespace

std::unique_ptr<module> gpu_runner::impl::load(const std::string& cubin, const std::string& name) {
    auto m = std::make_unique<module>();
    if (const CUresult rc = drv().load(&m->m, cubin.data()); rc != CUDA_SUCCESS)
        throw error(error_kind::cuda, "cuModuleLoadData: " + ktune::detail::driver_error_name(rc));
    if (!name.empty()) KTUNE_CU_CALL(drv().function(&m->f, m->m, name.c_str()));
    // Optional: CUDA_ERROR_NOT_FOUND leaves it null.
    if (drv().function(&m->prologue, m->m, "ktune_op_prologue") != CUDA_SUCCESS)
        m->prologue = nullptr;
    return m;
}

std::unique_ptr<module> gpu_runner::impl::compile_load(const std::string& source,
                                                       const char* name) {
    compile::compile_request rq{source, name, dev.arch(), {}};
    auto c = compile::compile_cached(rq, cache ? &*cache : nullptr);
    if (!c.ok) throw error(error_kind::nvrtc, "internal kernel failed to compile: " + c.log);
    return load(c.cubin, name);
}

void gpu_runner::impl::launch(CUfunction f, const ops::launch_geometry& g, void** args) {
    KTUNE_CU_CALL(drv().launch(f, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1],
                               g.block[2], g.shared_bytes, reinterpret_cast<CUstream>(stream.get()),
                               args, nullptr));
}

problem_state& gpu_runner::impl::state_for(const candidate_request& r, bool compile) {
    if (!r.job.empty()) return kernel_state_for(r, compile);
    const std::string key = fmt::format("{}:{}x{}:{}", r.op, r.rows, r.cols, r.dtype);
    auto it = problems.find(key);
    if (it == problems.end()) {
        // One problem at a time keeps device memory bounded.
        problems.clear();
        problem_state s;
        s.op = &ops::find_op(r.op);
        s.prob = {{r.rows, r.cols}, ops::parse_dtype(r.dtype)};
        s.specs = s.op->buffers(s.prob);
        s.scalars = s.op->scalars(s.prob);
        for (const auto& b : s.specs) {
            s.bufs.emplace_back(b.elements * ops::size_of(s.prob.type));
            if (b.output) s.refs.emplace_back(b.elements * sizeof(float));
            s.pristine.emplace_back(b.in_place ? s.bufs.back().size() : 0);
        }
        if (const std::size_t w = s.op->workspace_elements(s.prob); w > 0) {
            s.workspace = device_buffer(w * ops::size_of(s.prob.type));
        }
        bind_op_args(s); // a vector's move keeps its elements where they are
        it = problems.emplace(key, std::move(s)).first;
    }
    problem_state& s = it->second;
    if (!s.reference) {
        // The tuner compiles this ahead on its pool (tuner.cpp): usually a cubin cache hit here.
        const compile::compile_request rq{
            s.op->reference_source(s.prob), "ktune_op_kernel", dev.arch(), {}};
        if (compile)
            s.reference = compile_load(rq.source, "ktune_op_kernel");
        else if (cache)
            if (auto hit = cache->get(rq)) s.reference = load(hit->cubin, "ktune_op_kernel");
    }
    return s;
}

void gpu_runner::impl::launch_op(const problem_state& s, const module& m,
                                 const ops::launch_geometry& g, bool reference) {
    if (s.user_kernel) return launch_kernel_job(s, m.f, g);
    // cuLaunchKernel reads the arguments (copies them into the launch), never writes them.
    void** args = const_cast<void**>(s.args[reference ? 1 : 0].slots.data());
    if (!reference && m.prologue) {
        if (!s.workspace.data())
            throw error(error_kind::input, fmt::format("{}: the candidate has a prologue but the "
                                                       "op declares no workspace",
                                                       s.op->name()));
        ops::launch_geometry pg;
        const std::size_t n = s.workspace.size() / ops::size_of(s.prob.type);
        pg.grid[0] = static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 65535));
        pg.block[0] = 256;
        launch(m.prologue, pg, args);
    }
    launch(m.f, g, args);
}

ops::launch_geometry gpu_runner::impl::geometry_of(const problem_state& s,
                                                   const candidate_request& r) {
    return s.user_kernel ? detail::to_geometry(r.job.launch) : s.op->geometry(r.cfg, s.prob);
}

void gpu_runner::impl::restore(const problem_state& s) {
    for (std::size_t i = 0; i < s.specs.size(); ++i)
        if (s.specs[i].in_place)
            KTUNE_CUDA_CALL(cudaMemcpyAsync(s.bufs[i].data(), s.pristine[i].data(),
                                            s.bufs[i].size(), cudaMemcpyDeviceToDevice,
                                            stream.get()));
}

double monotonic_ms() noexcept {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

gpu_runner::gpu_runner(marks* m) : impl_(nullptr) {
    const auto mark = [m](const char* what) {
        if (m) m->emplace_back(what, monotonic_ms());
    };
    // The compute capability alone (cuInit, no NVML) is what the helper kernels' cache key
    // needs; the full device query (NVML's driver string and memory size, the properties)
    // then runs beside the context creation instead of in front of it.
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0) != cudaSuccess) {
        cudaGetLastError();
        const auto q = query_devices();
        throw error(error_kind::no_device,
                    q.devices.empty() ? q.no_device_reason : "device 0 cannot be queried");
    }
    mark("cuinit");
    const std::string arch = fmt::format("sm_{}{}", major, minor);
    std::optional<compile::cubin_cache> cache;
    try {
        cache.emplace(compile::cubin_cache::default_dir());
    } catch (const error&) {
        // No writable cache directory: compile every time, still correct.
    }
    // The helper kernels compile (or come from the cubin cache) while the context is created:
    // both are on the path to the first candidate.
    auto helpers = std::async(std::launch::async, [&] {
        return compile::compile_cached({utility_source, "ktune_fill_fp32", arch, {}},
                                       cache ? &*cache : nullptr);
    });
    auto query = std::async(std::launch::async, [] { return query_devices(); });
    KTUNE_CUDA_CALL(cudaSetDevice(0));
    KTUNE_CUDA_CALL(cudaFree(nullptr)); // make the primary context current for the driver API
    mark("context");
    impl_ = std::make_unique<impl>();
    const auto q = query.get();
    if (q.devices.empty()) throw error(error_kind::no_device, q.no_device_reason);
    impl_->dev = q.devices.front();
    mark("device_query");
    impl_->cache = cache;   // a copy: the helper thread still reads `cache`
    impl_->flush.emplace(); // on the primary context made current above
    mark("flush_buffer");
    const compile::compile_result h = helpers.get();
    if (!h.ok) throw error(error_kind::nvrtc, "internal kernel failed to compile: " + h.log);
    impl_->utility = impl_->load(h.cubin, "ktune_fill_fp32");
    const char* names[] = {"ktune_fill_fp32", "ktune_fill_bf16", "ktune_compare_fp32",
                           "ktune_compare_bf16"};
    CUfunction* slots[] = {&impl_->fill[0], &impl_->fill[1], &impl_->compare[0],
                           &impl_->compare[1]};
    for (int i = 0; i < 4; ++i)
        KTUNE_CU_CALL(drv().function(slots[i], impl_->utility->m, names[i]));
    mark("helpers");
}

void gpu_runner::prepare(const candidate_request& r) noexcept {
    try {
        (void)impl_->state_for(r, false);
    } catch (const std::exception&) {
        // The first real request of the problem sets it up again and reports what failed.
    }
}

const device_info& gpu_runner::device() const noexcept {
    return impl_->dev;
}

void gpu_runner::release() noexcept {
    impl_->problems.clear();
}

gpu_runner::~gpu_runner() = default;

candidate_result gpu_runner::run(const candidate_request& r) {
    const auto t0 = std::chrono::steady_clock::now();
    candidate_result out;
    const auto finish = [&](std::optional<fault> f) {
        if (f) {
            out.status = f->status;
            out.message = f->message;
            out.fatal = f->fatal;
        }
        out.worker_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        return out;
    };
    std::unique_ptr<module> cand;
    try {
        cand = impl_->load(ktune::detail::read_file(r.cubin_path), r.kernel);
    } catch (const error& e) {
        return finish(fault{run_status::load_error, e.what(), false});
    }
    const auto since = [](std::chrono::steady_clock::time_point a) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a)
            .count();
    };
    out.load_ms = since(t0);
    problem_state* state = nullptr;
    try {
        state = &impl_->state_for(r);
    } catch (const error& e) {
        // The problem could not be set up (memory, a malformed job, a failing reference): the
        // candidate is not at fault, but it cannot run; only a CUDA error may have cost the
        // context.
        return finish(fault{run_status::launch_error,
                            fmt::format("setting up the problem: {}", e.what()),
                            e.kind() == error_kind::cuda});
    }
    problem_state& s = *state;
    const auto g = impl::geometry_of(s, r);
    int max_threads = 0;
    KTUNE_CU_CALL(drv().attr(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, cand->f));
    KTUNE_CU_CALL(drv().attr(&out.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, cand->f));
    if (static_cast<long long>(g.block[0]) * g.block[1] * g.block[2] > max_threads)
        return finish(
            fault{run_status::resource_limit,
                  fmt::format("{} threads per block, the kernel allows {} ({} "
                              "registers per thread)",
                              g.block[0] * g.block[1] * g.block[2], max_threads, out.registers),
                  false});
    // Dynamic shared memory is opted in (ops' smem_tma stage): with the kernel's static shared
    // memory, even 48 KiB of it can pass the default limit (seen on the H200).
    if (g.shared_bytes > 0) {
        using set_attr_t = CUresult (*)(CUfunction, CUfunction_attribute, int);
        static const auto set_attr = ktune::detail::driver_fn<set_attr_t>("cuFuncSetAttribute");
        if (!set_attr || set_attr(cand->f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  static_cast<int>(g.shared_bytes)) != CUDA_SUCCESS)
            return finish(fault{run_status::resource_limit,
                                fmt::format("{} bytes of dynamic shared memory: over the "
                                            "device's opt-in limit",
                                            g.shared_bytes),
                                false});
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (r.check)
        if (auto f = s.user_kernel ? impl_->kernel_check(s, *cand, r, out)
                                   : impl_->check(s, *cand, r, out))
            return finish(f);
    out.check_ms = since(t1);
    const auto t2 = std::chrono::steady_clock::now();
    if (r.time)
        if (auto f = impl_->time(s, *cand, r, out)) return finish(f);
    // In-place ops: the last timed launch must have computed the checked result, i.e. its
    // inputs were restored. Only for them: the compare costs ~1.5 ms per candidate at 8192^2
    // (docs/perf/tune.md, runtime), a fifth of the candidate's time, for no gain elsewhere.
    const bool in_place = std::any_of(s.specs.begin(), s.specs.end(),
                                      [](const ops::buffer_spec& b) { return b.in_place; });
    if (r.check && r.time && in_place)
        if (auto f = s.user_kernel ? impl_->kernel_compare(s, out, "after timing: ")
                                   : impl_->compare_outputs(s, out, false, "after timing: "))
            return finish(f);
    out.timing_ms = since(t2);
    return finish(std::nullopt);
}

} // namespace ktune::measure
