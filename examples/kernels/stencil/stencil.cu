// 2-D five-point Jacobi step out = c * in + (1 - c) / 4 * (north + south + east + west) on an
// NY x NX fp32 grid (edges copied), the kernel of stencil.json. Each block covers BX columns
// and BY * WPT_Y rows; with USE_SHARED the tile and its one-cell halo are staged in shared
// memory first. stencil2d_naive is the reference: one thread per cell, straight from memory.
#ifndef CENTER_WEIGHT_X1000
#define CENTER_WEIGHT_X1000 500
#endif

__device__ __forceinline__ float jacobi(float c, float n, float s, float e, float w) {
    const float k = CENTER_WEIGHT_X1000 / 1000.0f;
    return k * c + (1.0f - k) * 0.25f * (n + s + e + w);
}

template <int BX, int BY, int WPT_Y, int USE_SHARED>
__global__ void stencil2d(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y0 = blockIdx.y * BY * WPT_Y + threadIdx.y;
    if constexpr (USE_SHARED) {
        constexpr int TW = BX + 2, TH = BY * WPT_Y + 2;
        __shared__ float tile[TH][TW];
        const int gx0 = blockIdx.x * BX - 1, gy0 = blockIdx.y * BY * WPT_Y - 1;
        for (int e = threadIdx.y * BX + threadIdx.x; e < TW * TH; e += BX * BY) {
            const int tyy = e / TW, txx = e % TW;
            const int gx = min(max(gx0 + txx, 0), nx - 1), gy = min(max(gy0 + tyy, 0), ny - 1);
            tile[tyy][txx] = in[(long long)gy * nx + gx];
        }
        __syncthreads();
        for (int i = 0; i < WPT_Y; ++i) {
            const int y = y0 + i * BY;
            if (x >= nx || y >= ny) continue;
            const int ty = threadIdx.y + i * BY + 1, tx = threadIdx.x + 1;
            const long long at = (long long)y * nx + x;
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
                out[at] = tile[ty][tx];
            else
                out[at] = jacobi(tile[ty][tx], tile[ty - 1][tx], tile[ty + 1][tx], tile[ty][tx + 1],
                                 tile[ty][tx - 1]);
        }
    } else {
        for (int i = 0; i < WPT_Y; ++i) {
            const int y = y0 + i * BY;
            if (x >= nx || y >= ny) continue;
            const long long at = (long long)y * nx + x;
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
                out[at] = in[at];
            else
                out[at] = jacobi(in[at], in[at - nx], in[at + nx], in[at + 1], in[at - 1]);
        }
    }
}

extern "C" __global__ void stencil2d_naive(const float* in, float* out, int nx, int ny) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const long long at = (long long)y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
        out[at] = in[at];
    else
        out[at] = jacobi(in[at], in[at - nx], in[at + nx], in[at + 1], in[at - 1]);
}
