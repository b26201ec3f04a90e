// Look a tuned config up at launch and launch with it: what an application linking ktune does.
//
//   example_cache_lookup [cache.json] [n]
//
// The key is built once (op, source version, dtype, shape bucket, this GPU's arch, toolkit and
// driver); the lookup then costs tens of nanoseconds and says which tier answered. Without a
// GPU the lookup still runs for an sm_90 / CUDA 13.0 / driver 580 machine and the launch is
// skipped. The kernel lives in examples/cache_saxpy.cu.
#include "ktune/cache/cache.hpp"
#include "ktune/core/error.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

cudaError_t launch_saxpy(unsigned grid, int block, int n, float a, const float* x, float* y,
                         int items); // examples/cache_saxpy.cu

namespace {

// Bump this whenever the kernel's source changes: old tunes then stop matching.
constexpr const char* saxpy_version = "v1";

int check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    namespace kc = ktune::cache;
    const std::string file = argc > 1 ? argv[1] : kc::default_cache_path().string();
    const std::int64_t n = argc > 2 ? std::atoll(argv[2]) : (1 << 24) + 12345;

    kc::environment env = kc::environment::current();
    const bool have_gpu = env.has_gpu();
    if (!have_gpu) {
        std::printf("no GPU: looking up for sm_90 / CUDA 13.0 / driver 580\n");
        env = {"sm_90", 13000, 580, kc::current_protocol};
    }

    // Once at start-up: load, and build the key with the op's bucket policy.
    const auto cache = kc::cache_index::load(file);
    const kc::prepared_key key(kc::cache_key{"saxpy", saxpy_version, "fp32",
                                             kc::bucket_policy::pow2().apply({n}), env.arch,
                                             env.toolkit, env.driver_major, env.protocol});
    const ktune::config fallback{{"block", std::int64_t{256}}, {"items", std::int64_t{1}}};

    // Per launch: a lookup, no search.
    const auto r = cache.lookup(key, fallback);
    const int block = r.cfg->get<int>("block");
    const int items = r.cfg->get<int>("items");
    std::printf("%s: tier %s -> block=%d items=%d", key.key.to_string().c_str(),
                std::string(kc::to_string(r.tier)).c_str(), block, items);
    if (r.hit)
        std::printf(" (tuned %.2f us on %s, %s)", r.hit->time.median_us,
                    r.hit->origin.gpu_name.c_str(), r.hit->origin.date.c_str());
    std::printf("\n");
    if (!have_gpu) return 0;

    const auto count = static_cast<std::size_t>(n);
    std::vector<float> hx(count, 1.0f), hy(count, 2.0f);
    float *x = nullptr, *y = nullptr;
    if (check(cudaMalloc(reinterpret_cast<void**>(&x), count * sizeof(float)), "cudaMalloc") ||
        check(cudaMalloc(reinterpret_cast<void**>(&y), count * sizeof(float)), "cudaMalloc"))
        return 1;
    cudaMemcpy(x, hx.data(), count * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(y, hy.data(), count * sizeof(float), cudaMemcpyHostToDevice);
    const auto per_block = static_cast<std::int64_t>(block) * items;
    const auto grid = static_cast<unsigned>((n + per_block - 1) / per_block);
    if (check(launch_saxpy(grid, block, static_cast<int>(n), 3.0f, x, y, items), "launch") ||
        check(cudaDeviceSynchronize(), "saxpy"))
        return 1;
    cudaMemcpy(hy.data(), y, count * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(x);
    cudaFree(y);
    for (std::size_t i = 0; i < count; ++i)
        if (hy[i] != 5.0f) {
            std::fprintf(stderr, "wrong result at %zu: %f\n", i, hy[i]);
            return 1;
        }
    std::printf("launched saxpy<<<%u, %d>>> with items=%d on %zu elements: result correct\n", grid,
                block, items, count);
    return 0;
}
