// A known NVTX + launch sequence for the trace GPU test (nvcc; no ktune headers):
//   outer { 3 × nvtx_a; inner { 2 × nvtx_b; 2 replays of a 2-node graph } }
//   domain "ktune_test" range "dom" { 1 × nvtx_b }
//   1 × nvtx_a outside any range
#include "nvtx_launches.hpp"

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

namespace {

__global__ void ktune_nvtx_a(float* x) {
    x[threadIdx.x] += 1.0f;
}
__global__ void ktune_nvtx_b(float* x) {
    x[threadIdx.x] *= 2.0f;
}

} // namespace

bool run_nvtx_sequence() {
    float* d = nullptr;
    cudaStream_t s = nullptr;
    if (cudaMalloc(&d, 256 * sizeof(float)) != cudaSuccess) return false;
    if (cudaStreamCreate(&s) != cudaSuccess) return false;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    bool ok = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess;
    ktune_nvtx_a<<<1, 256, 0, s>>>(d);
    ktune_nvtx_b<<<1, 256, 0, s>>>(d);
    ok = ok && cudaStreamEndCapture(s, &graph) == cudaSuccess;
    ok = ok && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;

    nvtxRangePushA("outer");
    for (int i = 0; i < 3; ++i)
        ktune_nvtx_a<<<1, 256, 0, s>>>(d);
    nvtxRangePushA("inner");
    for (int i = 0; i < 2; ++i)
        ktune_nvtx_b<<<1, 256, 0, s>>>(d);
    for (int r = 0; r < 2 && ok; ++r)
        ok = cudaGraphLaunch(exec, s) == cudaSuccess;
    nvtxRangePop();
    nvtxRangePop();

    nvtxDomainHandle_t domain = nvtxDomainCreateA("ktune_test");
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "dom";
    nvtxDomainRangePushEx(domain, &a);
    ktune_nvtx_b<<<1, 256, 0, s>>>(d);
    nvtxDomainRangePop(domain);

    ktune_nvtx_a<<<1, 256, 0, s>>>(d);
    ok = ok && cudaGetLastError() == cudaSuccess && cudaStreamSynchronize(s) == cudaSuccess;
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    cudaFree(d);
    return ok;
}
