// A user kernel's side of the worker (candidate_request::job): its buffers in any element
// type, inputs generated on the host once per problem, the reference run once on them, every
// candidate's outputs compared on the host (docs/perf/kernel.md#tuning-a-user-kernel).
#include "ktune/core/check.hpp"
#include "ktune/core/error.hpp"
#include "measure/element_codec.hpp"
#include "measure/gpu_runner_impl.hpp"

#include "core/cache_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

namespace ktune::measure {
namespace detail {
ops::launch_geometry to_geometry(const launch_dims& d) noexcept {
    ops::launch_geometry g;
    for (int i = 0; i < 3; ++i) {
        g.grid[i] = d.grid[static_cast<std::size_t>(i)];
        g.block[i] = d.block[static_cast<std::size_t>(i)];
    }
    g.shared_bytes = d.shared_bytes;
    return g;
}
} // namespace detail

namespace {
kernel::element_type type_of(const kernel_arg_job& a) {
    const auto t = kernel::parse_element_type(a.type);
    if (!t) throw error(error_kind::input, fmt::format("unknown element type '{}'", a.type));
    return *t;
}

/// A scalar's bytes as the kernel receives them (cuLaunchKernel copies size_of(type) bytes).
std::int64_t scalar_bits(kernel::element_type t, std::int64_t v) {
    std::int64_t bits = 0;
    detail::encode(t, static_cast<double>(v), &bits, 0);
    if (t == kernel::element_type::int64) bits = v; // exact beyond 2^53
    return bits;
}

void poison_outputs(const problem_state& s, cudaStream_t stream) {
    for (std::size_t i = 0; i < s.specs.size(); ++i)
        if (s.specs[i].output && !s.specs[i].in_place)
            KTUNE_CUDA_CALL(cudaMemsetAsync(s.bufs[i].data(), 0xff, s.bufs[i].size(), stream));
}
} // namespace

problem_state& gpu_runner::impl::kernel_state_for(const candidate_request& r, bool compile) {
    const kernel_job& job = r.job;
    const std::string key = "kernel:" + job.problem;
    auto it = problems.find(key);
    if (it == problems.end()) {
        problems.clear(); // one problem at a time keeps device memory bounded
        problem_state s;
        s.user_kernel = true;
        s.rtol = job.rtol;
        s.atol = job.atol;
        std::size_t n_arg = 0;
        for (const kernel_arg_job& a : job.args) {
            const kernel::element_type t = type_of(a);
            s.types.push_back(t);
            ops::buffer_spec b;
            b.name = fmt::format("arg{}", n_arg++);
            if (!a.buffer) {
                s.specs.push_back(b);
                s.bufs.emplace_back();
                s.pristine.emplace_back();
                s.scalar_slots.push_back(scalar_bits(t, a.value));
                s.host_refs.emplace_back();
                continue;
            }
            if (a.elements < 0) throw error(error_kind::input, "negative buffer size");
            b.elements = static_cast<std::size_t>(a.elements);
            const auto gen = a.input == kernel::to_string(kernel::input_generator::none)
                                 ? std::optional(kernel::input_generator::none)
                                 : kernel::parse_input_generator(a.input);
            if (!gen)
                throw error(error_kind::input,
                            fmt::format("unknown input generator '{}'", a.input));
            b.output = a.output;
            b.in_place =
                a.output && (*gen != kernel::input_generator::none || !a.input_file.empty());
            const std::size_t bytes = b.elements * kernel::size_of(t);
            s.bufs.emplace_back(std::max<std::size_t>(bytes, 1));
            s.pristine.emplace_back(b.in_place ? bytes : 0);
            s.scalar_slots.push_back(0);
            s.host_refs.emplace_back();
            // Host bytes into the buffer (and its pristine copy when it is also an output).
            const auto upload = [&](const std::string& host) {
                KTUNE_CUDA_CALL(
                    cudaMemcpy(s.bufs.back().data(), host.data(), bytes, cudaMemcpyHostToDevice));
                if (b.in_place)
                    KTUNE_CUDA_CALL(cudaMemcpy(s.pristine.back().data(), host.data(), bytes,
                                               cudaMemcpyHostToDevice));
            };
            if (!a.input_file.empty()) {
                // A captured input: the application's own bytes.
                const std::string host = ktune::detail::read_file(a.input_file);
                if (host.size() != bytes)
                    throw error(error_kind::input, fmt::format("{}: {} bytes, the buffer holds {}",
                                                               a.input_file, host.size(), bytes));
                upload(host);
                s.specs.push_back(b);
                continue;
            }
            const bool device_fill =
                *gen == kernel::input_generator::uniform &&
                (t == kernel::element_type::fp32 || t == kernel::element_type::bf16);
            if (device_fill && bytes > 0) {
                // At memory speed on the device (the utility kernels' counter-based generator),
                // not element by element on the host.
                const ops::launch_geometry g1{{1024, 1, 1}, {256, 1, 1}, 0};
                void* p = s.bufs.back().data();
                long long n = a.elements;
                unsigned long long seed = job.input_seed * 1315423911ULL + n_arg;
                float lo = -1.f, hi = 1.f;
                void* args[] = {&p, &n, &seed, &lo, &hi};
                launch(fill[t == kernel::element_type::fp32 ? 0 : 1], g1, args);
                if (b.in_place)
                    KTUNE_CUDA_CALL(cudaMemcpyAsync(s.pristine.back().data(), p, bytes,
                                                    cudaMemcpyDeviceToDevice, stream.get()));
            } else if (*gen != kernel::input_generator::none && bytes > 0) {
                std::string host(bytes, '\0');
                detail::generate(t, *gen, job.input_seed * 1315423911ULL + n_arg, b.elements,
                                 host.data());
                upload(host);
            }
            s.specs.push_back(b);
        }
        // Pageable uploads may return before their DMA lands: the stream below must see them.
        KTUNE_CUDA_CALL(cudaDeviceSynchronize());
        it = problems.emplace(key, std::move(s)).first;
    }
    problem_state& s = it->second;
    if (!s.reference_ran &&
        std::any_of(job.args.begin(), job.args.end(),
                    [](const kernel_arg_job& a) { return !a.reference_file.empty(); })) {
        // A capture: the application's outputs are the reference; no reference kernel runs.
        for (std::size_t i = 0; i < s.specs.size(); ++i) {
            if (!s.specs[i].output) continue;
            const std::string& file = job.args[i].reference_file;
            if (file.empty())
                throw error(error_kind::input,
                            fmt::format("output argument {} has no captured bytes", i));
            s.host_refs[i] = ktune::detail::read_file(file);
            const std::size_t want = s.specs[i].elements * kernel::size_of(s.types[i]);
            if (s.host_refs[i].size() != want)
                throw error(error_kind::input, fmt::format("{}: {} bytes, the buffer holds {}",
                                                           file, s.host_refs[i].size(), want));
        }
        keep_reference_outputs(s);
        s.reference_ran = true;
        return s;
    }
    if (!s.reference && !job.reference_cubin.empty()) {
        // The tuner compiled it before the first candidate; a prepare request comes earlier and
        // must not wait for it.
        if (!compile && !std::filesystem::exists(job.reference_cubin)) return s;
        s.reference = load(ktune::detail::read_file(job.reference_cubin), job.reference_kernel);
    }
    if (s.reference && !s.reference_ran && compile) {
        restore(s);
        poison_outputs(s, stream.get());
        launch_kernel_job(s, s.reference->f, detail::to_geometry(job.reference_launch));
        if (const cudaError_t e = cudaStreamSynchronize(stream.get()); e != cudaSuccess)
            throw error(error_kind::cuda, fmt::format("the reference kernel failed: {}: {}",
                                                      cudaGetErrorName(e), cudaGetErrorString(e)));
        for (std::size_t i = 0; i < s.specs.size(); ++i) {
            if (!s.specs[i].output) continue;
            s.host_refs[i].resize(s.specs[i].elements * kernel::size_of(s.types[i]));
            KTUNE_CUDA_CALL(cudaMemcpy(s.host_refs[i].data(), s.bufs[i].data(),
                                       s.host_refs[i].size(), cudaMemcpyDeviceToHost));
        }
        keep_reference_outputs(s);
        s.reference_ran = true;
    }
    return s;
}

void gpu_runner::impl::keep_reference_outputs(problem_state& s) {
    s.device_refs.clear();
    s.device_refs.resize(s.specs.size());
    for (std::size_t i = 0; i < s.specs.size(); ++i) {
        if (!s.specs[i].output ||
            (s.types[i] != kernel::element_type::fp32 && s.types[i] != kernel::element_type::bf16))
            continue;
        const std::size_t n = s.specs[i].elements;
        std::vector<float> ref(n);
        for (std::size_t e = 0; e < n; ++e)
            ref[e] = static_cast<float>(detail::decode(s.types[i], s.host_refs[i].data(), e));
        s.device_refs[i] = device_buffer(std::max<std::size_t>(n * sizeof(float), 1));
        KTUNE_CUDA_CALL(cudaMemcpy(s.device_refs[i].data(), ref.data(), n * sizeof(float),
                                   cudaMemcpyHostToDevice));
        s.host_refs[i].clear(); // compared on the device from now on
        s.host_refs[i].shrink_to_fit();
    }
}

void gpu_runner::impl::launch_kernel_job(const problem_state& s, CUfunction f,
                                         const ops::launch_geometry& g) {
    std::vector<void*> ptrs(s.specs.size());
    std::vector<void*> args(s.specs.size());
    for (std::size_t i = 0; i < s.specs.size(); ++i) {
        if (s.bufs[i].size() == 0) {
            args[i] = const_cast<std::int64_t*>(&s.scalar_slots[i]);
            continue;
        }
        ptrs[i] = s.bufs[i].data();
        args[i] = &ptrs[i];
    }
    launch(f, g, args.data());
}

std::optional<fault> gpu_runner::impl::kernel_check(problem_state& s, const module& cand,
                                                    const candidate_request& r,
                                                    candidate_result& out) {
    if (!s.reference_ran)
        throw error(error_kind::input, "a user kernel's candidate came before its reference: "
                                       "the request names no reference cubin");
    KTUNE_CUDA_CALL(cudaEventRecord(check_begin.get(), stream.get()));
    restore(s);
    poison_outputs(s, stream.get());
    if (auto f = guarded_launch(s, cand, r)) return f;
    KTUNE_CUDA_CALL(cudaEventRecord(check_end.get(), stream.get()));
    KTUNE_CUDA_CALL(cudaEventSynchronize(check_end.get()));
    out.gpu_busy_ms += ms_between(check_begin.get(), check_end.get());
    return kernel_compare(s, out, "");
}

std::optional<fault> gpu_runner::impl::kernel_compare(const problem_state& s, candidate_result& out,
                                                      const char* what) {
    std::int64_t bad = 0;
    double max_err = 0;
    std::string first;
    for (std::size_t i = 0; i < s.specs.size(); ++i) {
        if (!s.specs[i].output) continue;
        if (s.device_refs[i].size() > 0) {
            const auto c =
                compare_on_device(s.bufs[i].data(), s.device_refs[i].data(), s.specs[i].elements,
                                  s.types[i] == kernel::element_type::bf16, s.rtol, s.atol);
            if (!c) return fault{run_status::launch_error, "the device compare failed", true};
            bad += c->bad;
            max_err = std::max(max_err, c->max_error);
            continue;
        }
        const std::string& ref = s.host_refs[i];
        std::string got(ref.size(), '\0');
        if (const cudaError_t e =
                cudaMemcpy(got.data(), s.bufs[i].data(), got.size(), cudaMemcpyDeviceToHost);
            e != cudaSuccess)
            return fault{run_status::launch_error, cudaGetErrorString(e), true};
        const auto c = detail::compare(s.types[i], got.data(), ref.data(), s.specs[i].elements,
                                       s.rtol, s.atol);
        if (c.bad > 0 && first.empty())
            first = fmt::format("; first at argument {} element {}: {:g}, reference {:g}", i,
                                c.first_bad, detail::decode(s.types[i], got.data(), c.first_bad),
                                detail::decode(s.types[i], ref.data(), c.first_bad));
        bad += c.bad;
        max_err = std::max(max_err, c.max_error);
    }
    out.bad_elements = bad;
    out.max_error = max_err;
    if (bad > 0)
        return detail::wrong_result(what, bad, s.atol, s.rtol,
                                    fmt::format("; largest finite error {:g}{}", max_err, first));
    return std::nullopt;
}

} // namespace ktune::measure
