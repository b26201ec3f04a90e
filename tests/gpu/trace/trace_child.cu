// A CUDA program for the child-process test (children.sh): N launches of one named kernel, then
// the given exit code. Each process under `ktune profile` must write its own trace.
//   trace_child N EXIT_CODE
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {
__global__ void child_kernel(int* x) {
    atomicAdd(x, 1);
}
} // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 10;
    const int rc = argc > 2 ? std::atoi(argv[2]) : 0;
    int* d = nullptr;
    int v = 0;
    if (cudaMalloc(&d, sizeof v) != cudaSuccess || cudaMemset(d, 0, sizeof v) != cudaSuccess)
        return 1;
    for (int i = 0; i < n; ++i)
        child_kernel<<<1, 1>>>(d);
    if (cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    std::printf("child ran %d kernels\n", v);
    cudaFree(d);
    return v == n ? rc : 1;
}
