// tune(): the tuning loop (tune_loop.cpp) on the real cuBLASLt and the GPU runner.
#include "gemm/lt_backend.hpp"
#include "gemm/lt_runner.hpp"
#include "gemm/tune_loop.hpp"
#include "ktune/core/check.hpp"

#include <cuda_runtime.h>

#include <chrono>

namespace ktune::gemm {

tune_result tune(const problem& p, const tune_options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    auto lt = detail::make_real_backend();
    detail::lt_runner runner(p, o.max_workspace, o.policy, o.b_is);
    detail::tune_hooks hooks{[&](const algo_config& a) {
                                 const detail::sm90_fault f =
                                     a.provider == provider::ktune_sm90
                                         ? detail::sm90_fault_for(a.sm90, o.inject_faults, o.seed)
                                         : detail::sm90_fault::none;
                                 detail::timing t = runner.run(a, f);
                                 if (f != detail::sm90_fault::none)
                                     t.injected_fault = detail::to_string(f);
                                 return t;
                             },
                             [&] { return runner.run_default(); }};
    int dev = 0;
    cudaDeviceProp prop{};
    KTUNE_CUDA_CALL(cudaGetDevice(&dev));
    KTUNE_CUDA_CALL(cudaGetDeviceProperties(&prop, dev));
    // The mma.sync form where the template does not serve (GPUs without wgmma), or on request.
    const std::optional<detail::sm90_device> sm90 = detail::sm90_device_here();
    tune_result r = detail::tune_loop(
        *lt, p, o, hooks, sm90, !sm90 || o.mma_on_hopper ? detail::mma_device_here() : std::nullopt,
        detail::gemv_device_here());
    r.gpu = prop.name;
    r.rotation_sets = runner.rotation_sets();
    r.graph_fallbacks = runner.graph_fallbacks();
    // Tune time includes the inputs' set-up (generation, upload, reference), not only the loop.
    r.tune_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

} // namespace ktune::gemm
