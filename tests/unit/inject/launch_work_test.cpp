// Work keys of synthetic launches: the parameter bytes tell two problems on one kernel and one
// grid apart (cuBLAS's persistent GEMMs), equal arguments give equal keys, and a launch whose
// parameters are not known keeps the plain shape key.
#include "catch.hpp"

#include "launch_params.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

using namespace ktune::inject::detail;

namespace {
constexpr auto drv = CUPTI_CB_DOMAIN_DRIVER_API;
constexpr auto rt = CUPTI_CB_DOMAIN_RUNTIME_API;

// A GEMM-like kernel: (const void* a, void* c, int m, int n, int k).
struct gemm_args {
    const void* a;
    void* c;
    int m, n, k;
    void* slots[5];
    gemm_args(const void* a_, void* c_, int m_, int n_, int k_)
        : a(a_), c(c_), m(m_), n(n_), k(k_) {
        slots[0] = &a;
        slots[1] = &c;
        slots[2] = &m;
        slots[3] = &n;
        slots[4] = &k;
    }
};

const param_sizes_fn gemm_sizes = [](const void*, bool) {
    return std::vector<std::size_t>{sizeof(void*), sizeof(void*), 4, 4, 4};
};

cuLaunchKernel_params driver_launch(gemm_args& g) {
    cuLaunchKernel_params p{};
    p.f = reinterpret_cast<CUfunction>(0x1000);
    p.gridDimX = 132;
    p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 384;
    p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = g.slots;
    return p;
}
} // namespace

TEST_CASE("the work key tells problems on one kernel and one grid apart") {
    int a = 0, c = 0;
    gemm_args qkv(&a, &c, 2048, 4096, 4096), up(&a, &c, 2048, 11008, 4096),
        down(&a, &c, 2048, 4096, 11008), qkv_again(&a, &c, 2048, 4096, 4096);
    auto p1 = driver_launch(qkv), p2 = driver_launch(up), p3 = driver_launch(down),
         p4 = driver_launch(qkv_again);
    const auto id = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
    const auto k1 = launch_key(drv, id, &p1, gemm_sizes);
    CHECK(k1.starts_with("132,1,1/384,1,1/0/w"));
    CHECK(k1.size() == std::string("132,1,1/384,1,1/0/w").size() + 16);
    CHECK(k1 != launch_key(drv, id, &p2, gemm_sizes));
    CHECK(k1 != launch_key(drv, id, &p3, gemm_sizes));
    CHECK(launch_key(drv, id, &p2, gemm_sizes) != launch_key(drv, id, &p3, gemm_sizes));
    CHECK(k1 == launch_key(drv, id, &p4, gemm_sizes)); // same problem, same buffers
    // Another output buffer: another key (pointers are hashed too).
    int c2 = 0;
    gemm_args other_out(&a, &c2, 2048, 4096, 4096);
    auto p5 = driver_launch(other_out);
    CHECK(k1 != launch_key(drv, id, &p5, gemm_sizes));
}

TEST_CASE("unknown parameters keep the shape key") {
    int a = 0, c = 0;
    gemm_args g(&a, &c, 1, 2, 3);
    auto p = driver_launch(g);
    const auto id = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
    const param_sizes_fn unknown = [](const void*, bool) { return std::vector<std::size_t>{}; };
    CHECK(launch_work(drv, id, &p, unknown) == 0);
    CHECK(launch_key(drv, id, &p, unknown) == "132,1,1/384,1,1/0");
    CHECK(launch_key(drv, id, &p, {}) == "132,1,1/384,1,1/0");
    CHECK(launch_work(drv, CUPTI_DRIVER_TRACE_CBID_cuMemcpy, &p, gemm_sizes) == 0);
}

TEST_CASE("the packed extra buffer is hashed when there are no kernelParams") {
    struct packed {
        std::uint64_t a;
        int m;
    } b1{16, 2048}, b2{16, 4096};
    std::size_t size = sizeof(packed);
    void* extra1[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &b1, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      CU_LAUNCH_PARAM_END};
    void* extra2[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &b2, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      CU_LAUNCH_PARAM_END};
    cuLaunchKernelEx_params p{};
    CUlaunchConfig config{};
    config.gridDimX = config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = config.blockDimY = config.blockDimZ = 32;
    p.config = &config;
    p.extra = extra1;
    const auto id = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx;
    const auto w1 = launch_work(drv, id, &p, {});
    p.extra = extra2;
    const auto w2 = launch_work(drv, id, &p, {});
    CHECK(w1 != 0);
    CHECK(w2 != 0);
    CHECK(w1 != w2);
}

TEST_CASE("runtime launches hash their args with the stub's parameter sizes") {
    int a = 0, c = 0;
    gemm_args g1(&a, &c, 1, 2, 3), g2(&a, &c, 1, 2, 4);
    const void* seen = nullptr;
    bool seen_runtime = false;
    const param_sizes_fn sizes = [&](const void* f, bool runtime) {
        seen = f;
        seen_runtime = runtime;
        return gemm_sizes(f, runtime);
    };
    cudaLaunchKernel_v7000_params p{};
    p.func = reinterpret_cast<const void*>(0x2000);
    p.gridDim = dim3(8);
    p.blockDim = dim3(256);
    p.args = g1.slots;
    const auto id = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    const auto w1 = launch_work(rt, id, &p, sizes);
    CHECK(seen == p.func);
    CHECK(seen_runtime);
    p.args = g2.slots;
    CHECK(launch_work(rt, id, &p, sizes) != w1);
    CHECK(w1 != 0);
}
