#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/measure/sample_stats.hpp"
#include "ktune/tune/tuner.hpp"

#include <cuda_runtime_api.h>

#include <vector>

namespace ktune::tune {

double measure_copy_gbs() {
    // 512 MiB each way: far beyond any L2, long enough (~0.25 ms on Hopper) for event timing.
    constexpr std::size_t bytes = 512ULL << 20;
    device_buffer a(bytes), b(bytes);
    cuda_stream s;
    cuda_event e0, e1;
    KTUNE_CUDA_CALL(cudaMemsetAsync(a.data(), 1, bytes, s.get()));
    std::vector<double> gbs;
    for (int i = 0; i < 12; ++i) {
        KTUNE_CUDA_CALL(cudaEventRecord(e0.get(), s.get()));
        KTUNE_CUDA_CALL(
            cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, s.get()));
        KTUNE_CUDA_CALL(cudaEventRecord(e1.get(), s.get()));
        KTUNE_CUDA_CALL(cudaEventSynchronize(e1.get()));
        float ms = 0;
        KTUNE_CUDA_CALL(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
        if (i >= 2) gbs.push_back(2.0 * static_cast<double>(bytes) / (ms * 1e6)); // warm-up: 2
    }
    return measure::median(gbs);
}

} // namespace ktune::tune
