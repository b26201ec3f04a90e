// guard_workload: a small GPU program for the regression gate's end-to-end check on the GPU.
// Three kernels of different character, each launched `launches` times:
//   guard_fma    compute-bound FMA chains (~60-80 us on an H100/H200)
//   guard_copy   memory-bound copy of 64 MiB
//   guard_rowsum a row reduction over 4096 x 4096 floats
// GUARD_SLOW_KERNEL=<fma|copy|rowsum> with GUARD_SLOW_PCT=<p> makes that one kernel do p % more
// work with the same launch shape (more loop iterations over the same grid and block), so
// `ktune diff` must call it slower for `kernel time` and leave the other two `same`.
//
//   guard_workload [launches=40]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

__global__ void guard_fma(float* out, int iters) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Four independent chains keep the FMA pipes busy; the result is stored so nothing is
    // optimised away.
    float a = i * 1e-7f, b = a + 1, c = a + 2, d = a + 3;
    for (int k = 0; k < iters; ++k) {
        a = a * 0.9999f + 1e-4f;
        b = b * 0.9999f + 1e-4f;
        c = c * 0.9999f + 1e-4f;
        d = d * 0.9999f + 1e-4f;
    }
    out[i] = a + b + c + d;
}

// `passes` sweeps over the same 64 MiB: p % more work is p % more sweeps of a fraction.
__global__ void guard_copy(const float4* __restrict__ in, float4* __restrict__ out, long n,
                           long extra) {
    const long stride = static_cast<long>(gridDim.x) * blockDim.x;
    for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n + extra;
         i += stride) {
        const long j = i < n ? i : i - n;
        out[j] = in[j];
    }
}

__global__ void guard_rowsum(const float* __restrict__ in, float* out, int cols, int extra) {
    const int row = blockIdx.x;
    float s = 0;
    for (int c = threadIdx.x; c < cols + extra; c += blockDim.x)
        s += in[static_cast<long>(row) * cols + (c < cols ? c : c - cols)];
    __shared__ float part[256];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = part[0];
}

bool ok(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return true;
    std::fprintf(stderr, "guard_workload: %s: %s\n", what, cudaGetErrorString(e));
    return false;
}

} // namespace

int main(int argc, char** argv) {
    const int launches = argc > 1 ? std::atoi(argv[1]) : 40;
    const char* slow = std::getenv("GUARD_SLOW_KERNEL");
    const char* pct_text = std::getenv("GUARD_SLOW_PCT");
    const double pct = pct_text ? std::atof(pct_text) : 0;
    const auto more = [&](const char* name) {
        return slow && !std::strcmp(slow, name) ? pct : 0.0;
    };

    constexpr int fma_iters = 20000, threads = 256, fma_blocks = 132 * 8;
    constexpr long copy_n = (64L << 20) / sizeof(float4);
    constexpr int rows = 4096, cols = 4096;
    float *fma_out = nullptr, *rs_in = nullptr, *rs_out = nullptr;
    float4 *cp_in = nullptr, *cp_out = nullptr;
    if (!ok(cudaMalloc(&fma_out, sizeof(float) * fma_blocks * threads), "malloc") ||
        !ok(cudaMalloc(&cp_in, sizeof(float4) * copy_n), "malloc") ||
        !ok(cudaMalloc(&cp_out, sizeof(float4) * copy_n), "malloc") ||
        !ok(cudaMalloc(&rs_in, sizeof(float) * rows * cols), "malloc") ||
        !ok(cudaMalloc(&rs_out, sizeof(float) * rows), "malloc"))
        return 1;
    cudaMemset(cp_in, 0, sizeof(float4) * copy_n);
    cudaMemset(rs_in, 0, sizeof(float) * rows * cols);

    const int iters = static_cast<int>(fma_iters * (1 + more("fma") / 100));
    const long copy_extra = static_cast<long>(copy_n * more("copy") / 100);
    const int rs_extra = static_cast<int>(cols * more("rowsum") / 100);
    for (int l = 0; l < launches; ++l) {
        guard_fma<<<fma_blocks, threads>>>(fma_out, iters);
        guard_copy<<<132 * 16, threads>>>(cp_in, cp_out, copy_n, copy_extra);
        guard_rowsum<<<rows, threads>>>(rs_in, rs_out, cols, rs_extra);
    }
    if (!ok(cudaDeviceSynchronize(), "kernels")) return 1;
    float check = 0;
    cudaMemcpy(&check, fma_out, sizeof check, cudaMemcpyDeviceToHost);
    std::printf("guard_workload: %d launches x 3 kernels, slow=%s +%.1f %%, fma[0]=%g\n", launches,
                slow ? slow : "none", pct, check);
    cudaFree(fma_out);
    cudaFree(cp_in);
    cudaFree(cp_out);
    cudaFree(rs_in);
    cudaFree(rs_out);
    return 0;
}
