// The metrics hook's reading of launch callback parameters, fed the API's own parameter structs
// as CUPTI would hand them over: shape keys (launches mode merges passes only across equal
// shapes), cooperative launches (never replayed alone) and the legacy-stream test (launches
// elsewhere are waited for before their range closes).
#include "catch.hpp"

#include "launch_params.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

using namespace ktune::inject::detail;

namespace {
constexpr auto drv = CUPTI_CB_DOMAIN_DRIVER_API;
constexpr auto rt = CUPTI_CB_DOMAIN_RUNTIME_API;
} // namespace

TEST_CASE("driver launches: shape, cooperative attribute, legacy stream") {
    cuLaunchKernel_params p{};
    p.gridDimX = 4;
    p.gridDimY = 2;
    p.gridDimZ = 1;
    p.blockDimX = 128;
    p.blockDimY = 1;
    p.blockDimZ = 1;
    p.sharedMemBytes = 1024;
    CHECK(launch_shape(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p) == "4,2,1/128,1,1/1024");
    CHECK(launch_shape(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, &p) ==
          "4,2,1/128,1,1/1024");
    CHECK_FALSE(is_cooperative(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p));
    CHECK(is_cooperative(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, &p));
    CHECK(on_legacy_stream(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p)); // null stream
    p.hStream = reinterpret_cast<CUstream>(0x1);                              // CU_STREAM_LEGACY
    CHECK(on_legacy_stream(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p));
    p.hStream = reinterpret_cast<CUstream>(0x2); // CU_STREAM_PER_THREAD
    CHECK_FALSE(on_legacy_stream(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p));
    p.hStream = nullptr;
    CHECK_FALSE(on_legacy_stream(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, &p));

    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attr.value.cooperative = 0;
    CUlaunchConfig cfg{};
    cfg.gridDimX = 132;
    cfg.gridDimY = 1;
    cfg.gridDimZ = 1;
    cfg.blockDimX = 256;
    cfg.blockDimY = 1;
    cfg.blockDimZ = 1;
    cfg.sharedMemBytes = 0;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cuLaunchKernelEx_params ex{};
    ex.config = &cfg;
    CHECK(launch_shape(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex) == "132,1,1/256,1,1/0");
    CHECK_FALSE(is_cooperative(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex));
    attr.value.cooperative = 1;
    CHECK(is_cooperative(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex));
    CHECK(is_cooperative(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, &ex));
    CHECK(on_legacy_stream(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex));
    ex.config = nullptr;
    CHECK(launch_shape(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex).empty());
    CHECK_FALSE(is_cooperative(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex));
    CHECK_FALSE(on_legacy_stream(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex));
}

TEST_CASE("runtime launches: shape, cooperative attribute, legacy stream") {
    cudaLaunchKernel_v7000_params p{};
    p.gridDim = dim3(8, 1, 1);
    p.blockDim = dim3(32, 4, 1);
    p.sharedMem = 49152;
    CHECK(launch_shape(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &p) ==
          "8,1,1/32,4,1/49152");
    CHECK(on_legacy_stream(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &p));
    p.stream = reinterpret_cast<cudaStream_t>(0x1234);
    CHECK_FALSE(on_legacy_stream(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &p));
    CHECK(is_cooperative(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000, &p));
    CHECK_FALSE(is_cooperative(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &p));

    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(2, 3, 4);
    cfg.blockDim = dim3(64, 1, 1);
    cfg.dynamicSmemBytes = 96;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cudaLaunchKernelExC_v11060_params ex{};
    ex.config = &cfg;
    CHECK(launch_shape(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, &ex) ==
          "2,3,4/64,1,1/96");
    CHECK(is_cooperative(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, &ex));
    cfg.numAttrs = 0; // the attribute is not counted: not cooperative
    CHECK_FALSE(is_cooperative(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, &ex));
    CHECK(on_legacy_stream(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, &ex));
}

TEST_CASE("callbacks that are not known launches say nothing") {
    cuLaunchKernel_params p{};
    CHECK(launch_shape(drv, CUPTI_DRIVER_TRACE_CBID_cuMemcpy, &p).empty());
    CHECK_FALSE(is_cooperative(drv, CUPTI_DRIVER_TRACE_CBID_cuMemcpy, &p));
    CHECK_FALSE(on_legacy_stream(drv, CUPTI_DRIVER_TRACE_CBID_cuMemcpy, &p));
    CHECK(launch_shape(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, nullptr).empty());
    CHECK_FALSE(on_legacy_stream(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, nullptr));
}
