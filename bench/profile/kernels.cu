// Workload kernels for the profiling-overhead benchmarks (nvcc; no ktune headers).
#include "kernels.hpp"

#include <cuda_runtime.h>

namespace {

__global__ void bench_tiny(float* x) {
    x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
}

// Compute-bound: a long dependent FMA chain per thread (stands in for a GEMM-bound loop).
__global__ void bench_heavy(float* x, int iters) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = x[i], b = 1.0001f, c = 0.9999f;
    for (int k = 0; k < iters; ++k) {
        a = fmaf(a, b, c);
        b = fmaf(b, c, a);
    }
    x[i] = a + b;
}

// ~10 us on a 1.98 GHz SM clock: long enough that the GPU, not the launching thread, paces a
// loop of them (what is left of the tracing overhead is then GPU-side).
__global__ void bench_spin(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

float* g_buf = nullptr;
cudaStream_t g_stream = nullptr;

} // namespace

bool bench_init() {
    return cudaMalloc(&g_buf, 1 << 24) == cudaSuccess &&
           cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking) == cudaSuccess;
}

void bench_tiny_launches(int n) {
    for (int i = 0; i < n; ++i)
        bench_tiny<<<4, 256, 0, g_stream>>>(g_buf);
}

void bench_heavy_launches(int n) {
    for (int i = 0; i < n; ++i)
        bench_heavy<<<132 * 8, 256, 0, g_stream>>>(g_buf, 20000);
}

void bench_long_launches(int n) {
    for (int i = 0; i < n; ++i)
        bench_spin<<<1, 32, 0, g_stream>>>(19800);
}

bool bench_sync() {
    return cudaStreamSynchronize(g_stream) == cudaSuccess;
}

void* bench_make_graph(int nodes) {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal);
    bench_tiny_launches(nodes);
    if (cudaStreamEndCapture(g_stream, &graph) != cudaSuccess) return nullptr;
    if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return nullptr;
    cudaGraphDestroy(graph);
    return exec;
}

void bench_replay(void* graph, int replays) {
    for (int r = 0; r < replays; ++r)
        cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph), g_stream);
}
