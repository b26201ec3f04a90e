// The correctness gate of one candidate: fresh random inputs, poisoned outputs, the op's
// reference, the candidate, and a device-side compare with the op's tolerances.
#include "ktune/core/check.hpp"
#include "ktune/core/error.hpp"
#include "measure/gpu_runner_impl.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace ktune::measure {

std::optional<fault> gpu_runner::impl::check(problem_state& s, const module& cand,
                                             const candidate_request& r, candidate_result& out) {
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
    launch_op(s, *s.reference, s.op->reference_geometry(s.prob), true);
    if (auto f = guarded_launch(s, cand, r)) return f;
    return compare_outputs(s, out, true, "");
}

std::optional<fault> gpu_runner::impl::compare_outputs(const problem_state& s,
                                                       candidate_result& out, bool count_busy,
                                                       const char* what) {
    const int t = s.prob.type == ops::dtype::f32 ? 0 : 1;
    const ops::tolerance tol = s.op->tolerance_for(s.prob);
    std::size_t out_i = 0;
    std::int64_t bad_total = 0;
    float max_err = 0;
    for (std::size_t i = 0; i < s.specs.size(); ++i) {
        if (!s.specs[i].output) continue;
        const auto c = compare_on_device(s.bufs[i].data(), s.refs[out_i++].data(),
                                         s.specs[i].elements, t == 1, tol.rtol, tol.atol);
        if (!c)
            return fault{run_status::launch_error, cudaGetErrorString(cudaGetLastError()), true};
        KTUNE_CUDA_CALL(cudaEventRecord(check_end.get(), stream.get()));
        KTUNE_CUDA_CALL(cudaEventSynchronize(check_end.get()));
        // The check is GPU work too: fill, reference, candidate, compare back to back.
        if (count_busy && out_i == 1)
            out.gpu_busy_ms += ms_between(check_begin.get(), check_end.get());
        bad_total += c->bad;
        max_err = std::max(max_err, static_cast<float>(c->max_error));
    }
    out.bad_elements = bad_total;
    out.max_error = max_err;
    if (bad_total > 0)
        return detail::wrong_result(what, bad_total, tol.atol, tol.rtol,
                                    fmt::format("; largest finite error {:g}", max_err));
    return std::nullopt;
}

std::optional<fault> gpu_runner::impl::guarded_launch(const problem_state& s, const module& cand,
                                                      const candidate_request& r) {
    const auto g = geometry_of(s, r);
    try {
        launch_op(s, cand, g, false);
    } catch (const error& e) {
        // A launch the driver refuses (too many registers/threads) leaves the context intact.
        return fault{run_status::resource_limit, e.what(), false};
    }
    if (const cudaError_t e = cudaStreamSynchronize(stream.get()); e != cudaSuccess)
        return fault{run_status::launch_error,
                     fmt::format("{}: {}", cudaGetErrorName(e), cudaGetErrorString(e)), true};
    return std::nullopt;
}

} // namespace ktune::measure

namespace ktune::measure {

fault detail::wrong_result(const char* what, std::int64_t bad, double atol, double rtol,
                           const std::string& detail) {
    return fault{run_status::wrong_result,
                 fmt::format("{}{} elements outside |out-ref| <= {:g} + {:g}|ref| (or "
                             "unwritten/NaN){}",
                             what, bad, atol, rtol, detail),
                 false};
}

std::optional<gpu_runner::impl::device_verdict>
gpu_runner::impl::compare_on_device(const void* out, const void* ref, std::size_t n, bool bf16,
                                    double rtol, double atol) {
    const ops::launch_geometry g1{{1024, 1, 1}, {256, 1, 1}, 0};
    KTUNE_CUDA_CALL(cudaMemsetAsync(counters.data(), 0, 16, stream.get()));
    auto count = static_cast<long long>(n);
    void* bad = counters.data();
    void* me = static_cast<char*>(counters.data()) + 8;
    void* args[] = {&out, &ref, &count, &rtol, &atol, &bad, &me};
    launch(compare[bf16 ? 1 : 0], g1, args);
    unsigned long long host[2] = {0, 0};
    KTUNE_CUDA_CALL(
        cudaMemcpyAsync(host, counters.data(), 16, cudaMemcpyDeviceToHost, stream.get()));
    if (cudaStreamSynchronize(stream.get()) != cudaSuccess) return std::nullopt;
    float m = 0;
    const auto bits = static_cast<unsigned>(host[1]);
    std::memcpy(&m, &bits, 4);
    return device_verdict{static_cast<std::int64_t>(host[0]), m};
}

} // namespace ktune::measure
