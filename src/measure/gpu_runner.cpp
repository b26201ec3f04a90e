#include "measure/gpu_runner.hpp"

#include "core/driver_api.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/measure/compile.hpp"
#include "ktune/measure/sample_stats.hpp"
#include "ktune/measure/stopping.hpp"
#include "ktune/ops/op.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace ktune::measure::detail {
namespace {

using load_data_t = CUresult (*)(CUmodule*, const void*);
using unload_t = CUresult (*)(CUmodule);
using get_function_t = CUresult (*)(CUfunction*, CUmodule, const char*);
using launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);
using func_attr_t = CUresult (*)(int*, CUfunction_attribute, CUfunction);

struct driver {
    load_data_t load = ktune::detail::driver_fn<load_data_t>("cuModuleLoadData");
    unload_t unload = ktune::detail::driver_fn<unload_t>("cuModuleUnload");
    get_function_t function = ktune::detail::driver_fn<get_function_t>("cuModuleGetFunction");
    launch_t launch = ktune::detail::driver_fn<launch_t>("cuLaunchKernel");
    func_attr_t attr = ktune::detail::driver_fn<func_attr_t>("cuFuncGetAttribute");
};

const driver& drv() {
    static const driver d;
    if (!d.load || !d.unload || !d.function || !d.launch || !d.attr)
        throw error(error_kind::no_device, "CUDA driver entry points not found");
    return d;
}

struct module {
    CUmodule m = nullptr;
    CUfunction f = nullptr;
    module() = default;
    module(const module&) = delete;
    module& operator=(const module&) = delete;
    ~module() {
        if (m) drv().unload(m);
    }
};

std::string read_file(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

/// A failed launch or kernel: the candidate's status and whether the context survived.
struct fault {
    run_status status;
    std::string message;
    bool fatal;
};

double ms_between(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0;
    KTUNE_CUDA_CALL(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

} // namespace

struct problem_state {
    const ops::op* op = nullptr;
    ops::problem prob;
    std::vector<ops::buffer_spec> specs;
    std::vector<device_buffer> bufs; ///< candidate buffers, op order
    std::vector<device_buffer> refs; ///< fp32 reference outputs, one per output buffer
    /// Per buffer: the inputs an in-place buffer had before the candidate ran (else empty).
    std::vector<device_buffer> pristine;
    std::unique_ptr<module> reference;
};

struct gpu_runner::impl {
    device_info dev;
    std::optional<cubin_cache> cache;
    std::unique_ptr<module> utility;
    CUfunction fill[2]{}, compare[2]{};
    cuda_stream stream;
    device_buffer flush;
    device_buffer counters{16};
    cuda_event check_begin, check_end;
    std::vector<cuda_event> timing_events = std::vector<cuda_event>(18);
    std::optional<gpu_clocks> clocks;
    std::chrono::steady_clock::time_point clocks_at{};
    std::map<std::string, problem_state> problems;

    std::unique_ptr<module> load(const std::string& cubin, const std::string& name) {
        auto m = std::make_unique<module>();
        if (const CUresult rc = drv().load(&m->m, cubin.data()); rc != CUDA_SUCCESS)
            throw error(error_kind::cuda,
                        "cuModuleLoadData: " + ktune::detail::driver_error_name(rc));
        if (!name.empty()) KTUNE_CU_CALL(drv().function(&m->f, m->m, name.c_str()));
        return m;
    }

    std::unique_ptr<module> compile_load(const std::string& source, const char* name) {
        compile_request rq{source, name, dev.arch(), {}};
        auto c = compile_cached(rq, cache ? &*cache : nullptr);
        if (!c.ok) throw error(error_kind::nvrtc, "internal kernel failed to compile: " + c.log);
        return load(c.cubin, name);
    }

    void launch(CUfunction f, const ops::launch_geometry& g, void** args) {
        KTUNE_CU_CALL(drv().launch(f, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1],
                                   g.block[2], g.shared_bytes,
                                   reinterpret_cast<CUstream>(stream.get()), args, nullptr));
    }

    problem_state& state_for(const candidate_request& r) {
        const std::string key = fmt::format("{}:{}x{}:{}", r.op, r.rows, r.cols, r.dtype);
        if (auto it = problems.find(key); it != problems.end()) return it->second;
        // One problem at a time keeps device memory bounded.
        problems.clear();
        problem_state s;
        s.op = &ops::find_op(r.op);
        s.prob = {{r.rows, r.cols}, ops::parse_dtype(r.dtype)};
        s.specs = s.op->buffers(s.prob);
        for (const auto& b : s.specs) {
            s.bufs.emplace_back(b.elements * ops::size_of(s.prob.type));
            if (b.output) s.refs.emplace_back(b.elements * sizeof(float));
            s.pristine.emplace_back(b.in_place ? s.bufs.back().size() : 0);
        }
        s.reference = compile_load(s.op->reference_source(s.prob), "ktune_op_kernel");
        return problems.emplace(key, std::move(s)).first->second;
    }

    void launch_op(const problem_state& s, CUfunction f, const ops::launch_geometry& g,
                   bool reference) {
        std::vector<void*> ptrs;
        std::size_t out_i = 0;
        for (std::size_t i = 0; i < s.specs.size(); ++i) {
            if (!reference || !s.specs[i].output) {
                ptrs.push_back(s.bufs[i].data());
                continue;
            }
            // The reference of an in-place buffer reads the pristine input, writes fp32 apart.
            if (s.specs[i].in_place) ptrs.push_back(s.pristine[i].data());
            ptrs.push_back(s.refs[out_i++].data());
        }
        int rows = static_cast<int>(s.prob.shape.rows), cols = static_cast<int>(s.prob.shape.cols);
        std::vector<void*> args;
        for (auto& p : ptrs)
            args.push_back(&p);
        args.push_back(&rows);
        args.push_back(&cols);
        launch(f, g, args.data());
    }

    /// Puts every in-place buffer back to its pristine inputs (stream-ordered, before a launch).
    void restore(const problem_state& s) {
        for (std::size_t i = 0; i < s.specs.size(); ++i)
            if (s.specs[i].in_place)
                KTUNE_CUDA_CALL(cudaMemcpyAsync(s.bufs[i].data(), s.pristine[i].data(),
                                                s.bufs[i].size(), cudaMemcpyDeviceToDevice,
                                                stream.get()));
    }

    /// Fresh inputs, poisoned outputs, reference, candidate, compare.
    std::optional<fault> check(problem_state& s, const module& cand, const candidate_request& r,
                               candidate_result& out) {
        const int t = s.prob.type == ops::dtype::f32 ? 0 : 1;
        const ops::launch_geometry g1{{1024, 1, 1}, {256, 1, 1}, 0};
        KTUNE_CUDA_CALL(cudaEventRecord(check_begin.get(), stream.get()));
        for (std::size_t i = 0; i < s.specs.size(); ++i) {
            if (s.specs[i].output && !s.specs[i].in_place) {
                KTUNE_CUDA_CALL(
                    cudaMemsetAsync(s.bufs[i].data(), 0xff, s.bufs[i].size(), stream.get()));
                continue;
            }
            void* p = s.bufs[i].data();
            long long n = static_cast<long long>(s.specs[i].elements);
            unsigned long long seed = r.seed * 1315423911ULL + i;
            float lo = -2.f, hi = 2.f;
            void* args[] = {&p, &n, &seed, &lo, &hi};
            launch(fill[t], g1, args);
            if (s.specs[i].in_place)
                KTUNE_CUDA_CALL(cudaMemcpyAsync(s.pristine[i].data(), p, s.bufs[i].size(),
                                                cudaMemcpyDeviceToDevice, stream.get()));
        }
        launch_op(s, s.reference->f, s.op->reference_geometry(s.prob), true);
        if (auto f = guarded_launch(s, cand, r)) return f;
        return compare_outputs(s, out, true, "");
    }

    /// Every output against the reference; wrong_result naming `what` when any is off.
    std::optional<fault> compare_outputs(const problem_state& s, candidate_result& out,
                                         bool count_busy, const char* what) {
        const int t = s.prob.type == ops::dtype::f32 ? 0 : 1;
        const ops::launch_geometry g1{{1024, 1, 1}, {256, 1, 1}, 0};
        const ops::tolerance tol = s.op->tolerance_for(s.prob);
        std::size_t out_i = 0;
        std::int64_t bad_total = 0;
        float max_err = 0;
        for (std::size_t i = 0; i < s.specs.size(); ++i) {
            if (!s.specs[i].output) continue;
            KTUNE_CUDA_CALL(cudaMemsetAsync(counters.data(), 0, 16, stream.get()));
            const void* o = s.bufs[i].data();
            const void* ref = s.refs[out_i++].data();
            long long n = static_cast<long long>(s.specs[i].elements);
            double rtol = tol.rtol, atol = tol.atol;
            void* bad = counters.data();
            void* me = static_cast<char*>(counters.data()) + 8;
            void* args[] = {&o, &ref, &n, &rtol, &atol, &bad, &me};
            launch(compare[t], g1, args);
            unsigned long long host[2] = {0, 0};
            KTUNE_CUDA_CALL(
                cudaMemcpyAsync(host, counters.data(), 16, cudaMemcpyDeviceToHost, stream.get()));
            if (const cudaError_t e = cudaStreamSynchronize(stream.get()); e != cudaSuccess)
                return fault{run_status::launch_error, cudaGetErrorString(e), true};
            KTUNE_CUDA_CALL(cudaEventRecord(check_end.get(), stream.get()));
            KTUNE_CUDA_CALL(cudaEventSynchronize(check_end.get()));
            // The check is GPU work too: fill, reference, candidate, compare back to back.
            if (count_busy && out_i == 1)
                out.gpu_busy_ms += ms_between(check_begin.get(), check_end.get());
            bad_total += static_cast<std::int64_t>(host[0]);
            float m;
            const unsigned bits = static_cast<unsigned>(host[1]);
            std::memcpy(&m, &bits, 4);
            max_err = std::max(max_err, m);
        }
        out.bad_elements = bad_total;
        out.max_error = max_err;
        if (bad_total > 0)
            return fault{run_status::wrong_result,
                         fmt::format("{}{} elements outside |out-ref| <= {:g} + {:g}|ref| (or "
                                     "unwritten/NaN); largest finite error {:g}",
                                     what, bad_total, tol.atol, tol.rtol, max_err),
                         false};
        return std::nullopt;
    }

    /// Launch the candidate once and wait; classify a failure.
    std::optional<fault> guarded_launch(const problem_state& s, const module& cand,
                                        const candidate_request& r) {
        const auto g = s.op->geometry(r.cfg, s.prob);
        try {
            launch_op(s, cand.f, g, false);
        } catch (const error& e) {
            // A launch the driver refuses (too many registers/threads) leaves the context intact.
            return fault{run_status::resource_limit, e.what(), false};
        }
        if (const cudaError_t e = cudaStreamSynchronize(stream.get()); e != cudaSuccess)
            return fault{run_status::launch_error,
                         fmt::format("{}: {}", cudaGetErrorName(e), cudaGetErrorString(e)), true};
        return std::nullopt;
    }

    std::optional<fault> time(const problem_state& s, const module& cand,
                              const candidate_request& r, candidate_result& out) {
        const auto g = s.op->geometry(r.cfg, s.prob);
        // In-place kernels start every launch from the checked inputs, restored outside the
        // timed window (before the L2 flush, so the copy leaves nothing useful in L2).
        const bool restore_each = r.policy.restore_in_place;
        for (int i = 0; i < r.policy.warmup; ++i) {
            if (restore_each) restore(s);
            launch_op(s, cand.f, g, false);
        }
        if (const cudaError_t e = cudaStreamSynchronize(stream.get()); e != cudaSuccess)
            return fault{run_status::launch_error, cudaGetErrorString(e), true};
        constexpr int batch = 8;
        std::vector<cuda_event>& ev = timing_events; // 2 * batch + 2
        const auto t0 = std::chrono::steady_clock::now();
        for (;;) {
            KTUNE_CUDA_CALL(cudaEventRecord(ev[2 * batch].get(), stream.get()));
            for (int i = 0; i < batch; ++i) {
                if (restore_each) restore(s);
                // Flush L2 outside the timed window so every launch reads from DRAM.
                if (r.policy.flush_l2)
                    KTUNE_CUDA_CALL(
                        cudaMemsetAsync(flush.data(), i & 1, flush.size(), stream.get()));
                KTUNE_CUDA_CALL(cudaEventRecord(ev[2 * i].get(), stream.get()));
                launch_op(s, cand.f, g, false);
                KTUNE_CUDA_CALL(cudaEventRecord(ev[2 * i + 1].get(), stream.get()));
            }
            KTUNE_CUDA_CALL(cudaEventRecord(ev[2 * batch + 1].get(), stream.get()));
            if (const cudaError_t e = cudaEventSynchronize(ev[2 * batch + 1].get());
                e != cudaSuccess)
                return fault{run_status::launch_error, cudaGetErrorString(e), true};
            for (int i = 0; i < batch; ++i)
                out.samples_ms.push_back(ms_between(ev[2 * i].get(), ev[2 * i + 1].get()));
            out.gpu_busy_ms += ms_between(ev[2 * batch].get(), ev[2 * batch + 1].get());
            const double el =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            if (should_stop(out.samples_ms, r.policy, el).stop) break;
        }
        const auto sum = summarize(out.samples_ms);
        out.median_ms = sum.median;
        out.ci_lo_ms = sum.median_ci.lo;
        out.ci_hi_ms = sum.median_ci.hi;
        // NVML queries cost milliseconds: refreshed at most every 250 ms, which still catches
        // a clock step or throttling within a few candidates.
        const auto now = std::chrono::steady_clock::now();
        if (now - clocks_at > std::chrono::milliseconds(250)) {
            clocks = read_clocks(dev);
            clocks_at = now;
        }
        if (clocks) {
            out.clocks = *clocks;
            out.clocks_known = true;
        }
        return std::nullopt;
    }
};

gpu_runner::gpu_runner() : impl_(nullptr) {
    auto q = query_devices();
    if (q.devices.empty()) throw error(error_kind::no_device, q.no_device_reason);
    KTUNE_CUDA_CALL(cudaSetDevice(0));
    KTUNE_CUDA_CALL(cudaFree(nullptr)); // make the primary context current for the driver API
    impl_ = std::make_unique<impl>();
    impl_->dev = q.devices.front();
    try {
        impl_->cache.emplace(cubin_cache::default_dir());
    } catch (const error&) {
        // No writable cache directory: compile every time, still correct.
    }
    impl_->flush = device_buffer(
        static_cast<std::size_t>(std::max<std::int64_t>(2 * impl_->dev.l2_bytes, 8 << 20)));
    impl_->utility = impl_->compile_load(utility_source, "ktune_fill_fp32");
    const char* names[] = {"ktune_fill_fp32", "ktune_fill_bf16", "ktune_compare_fp32",
                           "ktune_compare_bf16"};
    CUfunction* slots[] = {&impl_->fill[0], &impl_->fill[1], &impl_->compare[0],
                           &impl_->compare[1]};
    for (int i = 0; i < 4; ++i)
        KTUNE_CU_CALL(drv().function(slots[i], impl_->utility->m, names[i]));
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
        cand = impl_->load(read_file(r.cubin_path), r.kernel);
    } catch (const error& e) {
        return finish(fault{run_status::load_error, e.what(), false});
    }
    const auto since = [](std::chrono::steady_clock::time_point a) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a)
            .count();
    };
    out.load_ms = since(t0);
    problem_state& s = impl_->state_for(r);
    const auto g = s.op->geometry(r.cfg, s.prob);
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
    // Over 48 KiB of dynamic shared memory a kernel must opt in (ops' smem_tma stage).
    if (g.shared_bytes > 48 * 1024) {
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
        if (auto f = impl_->check(s, *cand, r, out)) return finish(f);
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
        if (auto f = impl_->compare_outputs(s, out, false, "after timing: ")) return finish(f);
    out.timing_ms = since(t2);
    return finish(std::nullopt);
}

} // namespace ktune::measure::detail
