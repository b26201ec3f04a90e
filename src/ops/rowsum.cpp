// Row-wise sum y[r] = sum_c x[r, c]: the reduction of the suite. Each thread issues unroll
// independent (predicated) loads before it adds any: bytes in flight per SM are what a
// bandwidth-bound reduction lives on. Short rows take several rows per warp (threads_per_row
// below 32).
#include "ops/builtin_ops.hpp"
#include "ops/row_op.hpp"

#include <cmath>

namespace ktune::ops::detail {
namespace {

const char* const rowsum_body = R"(
extern "C" __global__ void __launch_bounds__(KTUNE_BLOCK)
ktune_op_kernel(const T* __restrict__ x, T* __restrict__ y, int rows, int cols) {
    __shared__ float red[GROUPS * (WARPS > 0 ? WARPS : 1)];
    const row_pos p = row_position(rows);
    const V* xr = reinterpret_cast<const V*>(x + p.first);
    float acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc[u] = 0.f;
#if defined(STAGE_smem_tma)
    // Row k of the block's RPB in flight by bulk copies (one thread issues them) while row
    // k - 1 is added up; the block adds each chunk as it lands.
    __shared__ __align__(8) unsigned long long bars[NBUF * NCH];
    mbar_setup(bars, NBUF * NCH);
    const long long row0 = (long long)blockIdx.x * RPB;
    if (row0 < rows) stage_row(reinterpret_cast<const V*>(x + row0 * C), bars, 0);
    for (int k = 0; k < RPB && row0 + k < rows; ++k) {
        if (k + 1 < RPB && row0 + k + 1 < rows)
            stage_row(reinterpret_cast<const V*>(x + (row0 + k + 1) * C), bars, k + 1);
        float a0 = 0.f;
        for_staged(bars, k, p.t, [&](const V& a) {
#pragma unroll
            for (int e = 0; e < VEC; ++e) a0 += to_f(a.v[e]);
        });
        a0 = group_sum(a0, red, p);
        if (p.t == 0) y[row0 + k] = from_f(a0);
        __syncthreads(); // row k's buffer is read: row k + 2 may land in it
    }
    KTUNE_EPILOGUE(y, (long long)rows)
    return;
#else
    if (p.active) {
        // Whole chunks of UNROLL loads, the tail predicated: a row shorter than one chunk per
        // thread still gets all its loads in flight at once.
        for (int j = p.t; j < NV; j += UNROLL * TPR) {
            V a[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                if (j + u * TPR < NV) {
                    a[u] = xr[j + u * TPR];
                } else {
#pragma unroll
                    for (int k = 0; k < VEC; ++k) a[u].v[k] = from_f(0.f);
                }
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
#pragma unroll
                for (int k = 0; k < VEC; ++k) acc[u] += to_f(a[u].v[k]);
        }
    }
#endif
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) s += acc[u];
    s = group_sum(s, red, p);
    if (p.active && p.t == 0) y[p.row] = from_f(s);
    KTUNE_EPILOGUE(y, (long long)rows)
}
)";

const char* const rowsum_reference = R"(
extern "C" __global__ void ktune_op_kernel(const T* x, float* y, int rows, int cols) {
    __shared__ double red[256];
    const long long row = blockIdx.x;
    double s = 0;
    for (int j = threadIdx.x; j < cols; j += 256) s += (double)to_f(x[row * cols + j]);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) y[row] = (float)red[0];
}
)";

class rowsum final : public row_op {
public:
    rowsum() noexcept : row_op(row_forms::streaming) {}
    std::string_view name() const noexcept override { return "rowsum"; }
    int version() const noexcept override { return 4; }
    std::string_view description() const noexcept override {
        return "sum reduction along the last dimension";
    }
    std::string_view torch_equivalent() const noexcept override { return "x.sum(dim=-1)"; }
    std::vector<buffer_spec> buffers(const problem& p) const override {
        return {{"x", static_cast<std::size_t>(p.shape.rows * p.shape.cols), false},
                {"y", static_cast<std::size_t>(p.shape.rows), true}};
    }
    tolerance tolerance_for(const problem& p) const override {
        // Inputs are U(-2, 2): a sum's magnitude and its fp32 rounding error grow as sqrt(cols);
        // a result near zero needs an absolute floor of that size.
        const double scale = std::sqrt(static_cast<double>(p.shape.cols));
        return p.type == dtype::f32 ? tolerance{1e-5, 1e-5 * scale}
                                    : tolerance{2.0 / 256, 1e-3 * scale};
    }
    double bytes(const problem& p) const override {
        return static_cast<double>(p.shape.rows * (p.shape.cols + 1)) *
               static_cast<double>(size_of(p.type));
    }
    double flops(const problem& p) const override {
        return static_cast<double>(p.shape.rows * p.shape.cols);
    }

private:
    const char* body() const noexcept override { return rowsum_body; }
    const char* reference_body() const noexcept override { return rowsum_reference; }
};

} // namespace

const op& rowsum_op() {
    static const rowsum instance;
    return instance;
}

} // namespace ktune::ops::detail
