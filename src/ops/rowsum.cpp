// Row-wise sum y[r] = sum_c x[r, c]: the reduction of the suite. unroll independent
// accumulators keep several 16-byte loads in flight per thread.
#include "ops/builtin_ops.hpp"
#include "ops/source_common.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ktune::ops::detail {
namespace {

const char* const rowsum_body = R"(
constexpr int NV = C / VEC;
typedef vec_t<VEC> V;

extern "C" __global__ void __launch_bounds__(TPR * RPB)
ktune_op_kernel(const T* __restrict__ x, T* __restrict__ y, int rows, int cols) {
    __shared__ float red[RPB * (WARPS > 0 ? WARPS : 1)];
    const int lrow = threadIdx.x / TPR, t = threadIdx.x % TPR;
    const long long row = (long long)blockIdx.x * RPB + lrow;
    const bool active = row < rows;
    const V* xr = reinterpret_cast<const V*>(x + (active ? row : 0) * (long long)C);
    float acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc[u] = 0.f;
    if (active) {
        int j = t;
        for (; j + (UNROLL - 1) * TPR < NV; j += UNROLL * TPR) {
            V a[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) a[u] = xr[j + u * TPR];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
#pragma unroll
                for (int k = 0; k < VEC; ++k) acc[u] += to_f(a[u].v[k]);
        }
        for (; j < NV; j += TPR) {
            const V a = xr[j];
#pragma unroll
            for (int k = 0; k < VEC; ++k) acc[0] += to_f(a.v[k]);
        }
    }
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) s += acc[u];
    s = group_sum(s, red, lrow, t);
    if (active && t == 0) y[row] = from_f(s);
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

class rowsum final : public op {
public:
    std::string_view name() const noexcept override { return "rowsum"; }
    int version() const noexcept override { return 1; }
    std::string_view description() const noexcept override {
        return "sum reduction along the last dimension";
    }
    std::string_view torch_equivalent() const noexcept override { return "x.sum(dim=-1)"; }
    std::vector<param_axis> axes() const override {
        return {{"threads_per_row", ints({32, 64, 128, 256, 512, 1024}), "threads sharing a row"},
                {"rows_per_block", ints({1, 2, 4, 8}), "rows per thread block"},
                {"vec", ints({1, 2, 4, 8}), "elements per load (16 bytes at most)"},
                {"unroll", ints({1, 2, 4, 8}), "independent loads in flight per thread"}};
    }
    bool valid(const config& c, const problem& p, std::string* why) const override {
        return row_op_valid(c, p, false, why);
    }
    config default_config(const problem& p) const override {
        const std::int64_t vec = 16 / static_cast<std::int64_t>(size_of(p.type));
        return {{"threads_per_row", std::int64_t{256}},
                {"rows_per_block", std::int64_t{1}},
                {"vec", vec},
                {"unroll", std::int64_t{2}}};
    }
    std::string source(const config& c, const problem& p) const override {
        return prelude(p.type) + constants(c) +
               fmt::format("#define TPR THREADS_PER_ROW\n#define RPB ROWS_PER_BLOCK\n"
                           "constexpr int C = {};\n",
                           p.shape.cols) +
               row_reduce_source + rowsum_body;
    }
    std::string reference_source(const problem& p) const override {
        return prelude(p.type) + rowsum_reference;
    }
    launch_geometry geometry(const config& c, const problem& p) const override {
        return row_geometry(c, p);
    }
    launch_geometry reference_geometry(const problem& p) const override {
        return row_reference_geometry(p);
    }
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
    shape2d bucket(const shape2d& s) const override { return {next_pow2(s.rows), s.cols}; }
};

} // namespace

const op& rowsum_op() {
    static const rowsum instance;
    return instance;
}

} // namespace ktune::ops::detail
