// A known launch sequence for the trace GPU test: kernels in a fixed order on one stream, a
// copy, a memset and a CUDA graph replayed several times. Compiled by nvcc; no ktune headers.
#include "known_launches.hpp"

#include <cuda_runtime.h>

namespace {

__global__ void ktune_test_alpha(float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

template <int Scale>
__global__ void ktune_test_beta(float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= static_cast<float>(Scale);
}

__global__ void ktune_test_graph_node(float* x, int n, int node) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += static_cast<float>(node);
}

bool ok(cudaError_t e) {
    return e == cudaSuccess;
}

} // namespace

known_sequence run_known_sequence() {
    known_sequence s;
    const int n = 1 << 16;
    float* d = nullptr;
    cudaStream_t stream = nullptr;
    if (!ok(cudaMalloc(&d, n * sizeof(float))) || !ok(cudaStreamCreate(&stream))) return s;
    static float host[1 << 16];
    s.copy_bytes = n * sizeof(float);
    s.memset_bytes = n * sizeof(float);
    bool good = ok(cudaMemcpyAsync(d, host, s.copy_bytes, cudaMemcpyHostToDevice, stream));
    good = good && ok(cudaMemsetAsync(d, 0, s.memset_bytes, stream));
    for (int i = 0; i < s.alpha; ++i)
        ktune_test_alpha<<<n / 256, 256, 0, stream>>>(d, n);
    for (int i = 0; i < s.beta; ++i)
        ktune_test_beta<3><<<n / 128, 128, 512, stream>>>(d, n);
    good = good && ok(cudaGetLastError()) && ok(cudaStreamSynchronize(stream));

    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    good = good && ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int node = 0; node < s.graph_nodes; ++node)
        ktune_test_graph_node<<<n / 256, 256, 0, stream>>>(d, n, node);
    good = good && ok(cudaStreamEndCapture(stream, &graph));
    good = good && ok(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < s.replays && good; ++r)
        good = ok(cudaGraphLaunch(exec, stream));
    good = good && ok(cudaStreamSynchronize(stream));
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    cudaFree(d);
    s.ok = good;
    return s;
}
