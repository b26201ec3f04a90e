// Row softmax y = exp(x - max) / sum(exp(x - max)) along cols. A group of threads_per_row
// threads owns a row; the row is either cached in registers (one DRAM read) or read twice
// with an online max/sum in the first pass (long rows that would not fit in registers).
#include "ktune/core/error.hpp"
#include "ops/builtin_ops.hpp"
#include "ops/source_common.hpp"

#include <fmt/format.h>

namespace ktune::ops::detail {
namespace {

const char* const softmax_body = R"(
constexpr int NV = C / VEC;                   // vectors per row
constexpr int ITEMS = (NV + TPR - 1) / TPR;  // vectors per thread when cached
typedef vec_t<VEC> V;

extern "C" __global__ void __launch_bounds__(TPR * RPB)
ktune_op_kernel(const T* __restrict__ x, T* __restrict__ y, int rows, int cols) {
    __shared__ float red[RPB * (WARPS > 0 ? WARPS : 1)];
    const int lrow = threadIdx.x / TPR, t = threadIdx.x % TPR;
    const long long row = (long long)blockIdx.x * RPB + lrow;
    const bool active = row < rows;
    const V* xr = reinterpret_cast<const V*>(x + (active ? row : 0) * (long long)C);
    V* yr = reinterpret_cast<V*>(y + (active ? row : 0) * (long long)C);
#if CACHE_ROW
    float v[ITEMS][VEC];
    float m = -KTUNE_INF;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = t + i * TPR;
        if (active && j < NV) {
            const V a = xr[j];
#pragma unroll
            for (int k = 0; k < VEC; ++k) { v[i][k] = to_f(a.v[k]); m = fmaxf(m, v[i][k]); }
        } else {
#pragma unroll
            for (int k = 0; k < VEC; ++k) v[i][k] = -KTUNE_INF;
        }
    }
    m = group_max(m, red, lrow, t);
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
        for (int k = 0; k < VEC; ++k) { v[i][k] = __expf(v[i][k] - m); s += v[i][k]; }
    s = group_sum(s, red, lrow, t);
    const float inv = 1.f / s;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = t + i * TPR;
        if (active && j < NV) {
            V o;
#pragma unroll
            for (int k = 0; k < VEC; ++k) o.v[k] = from_f(v[i][k] * inv);
            yr[j] = o;
        }
    }
#else
    float m = -KTUNE_INF, s = 0.f;
    if (active) {
#pragma unroll UNROLL
        for (int j = t; j < NV; j += TPR) {
            const V a = xr[j];
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const float xv = to_f(a.v[k]);
                if (xv > m) { s *= __expf(m - xv); m = xv; }
                s += __expf(xv - m);
            }
        }
    }
    const float gm = group_max(m, red, lrow, t);
    s = (m == -KTUNE_INF) ? 0.f : s * __expf(m - gm);
    s = group_sum(s, red, lrow, t);
    const float inv = 1.f / s;
    if (active) {
#pragma unroll UNROLL
        for (int j = t; j < NV; j += TPR) {
            const V a = xr[j];
            V o;
#pragma unroll
            for (int k = 0; k < VEC; ++k) o.v[k] = from_f(__expf(to_f(a.v[k]) - gm) * inv);
            yr[j] = o;
        }
    }
#endif
    KTUNE_EPILOGUE(y, (long long)rows * C)
}
)";

const char* const softmax_reference = R"(
extern "C" __global__ void ktune_op_kernel(const T* x, float* y, int rows, int cols) {
    __shared__ double red[256];
    const long long row = blockIdx.x;
    const T* xr = x + row * cols;
    double m = -1e300;
    for (int j = threadIdx.x; j < cols; j += 256) m = fmax(m, (double)to_f(xr[j]));
    red[threadIdx.x] = m;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + o]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    double s = 0;
    for (int j = threadIdx.x; j < cols; j += 256) s += exp((double)to_f(xr[j]) - m);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
        __syncthreads();
    }
    s = red[0];
    for (int j = threadIdx.x; j < cols; j += 256)
        y[row * cols + j] = (float)(exp((double)to_f(xr[j]) - m) / s);
}
)";

class softmax final : public op {
public:
    std::string_view name() const noexcept override { return "softmax"; }
    int version() const noexcept override { return 1; }
    std::string_view description() const noexcept override {
        return "row softmax along the last dimension";
    }
    std::string_view torch_equivalent() const noexcept override {
        return "torch.softmax(x, dim=-1)";
    }
    std::vector<param_axis> axes() const override {
        return {{"threads_per_row", ints({32, 64, 128, 256, 512, 1024}), "threads sharing a row"},
                {"rows_per_block", ints({1, 2, 4, 8}), "rows per thread block"},
                {"vec", ints({1, 2, 4, 8}), "elements per load/store (16 bytes at most)"},
                {"cache_row", {true, false}, "keep the row in registers (one read) or read twice"},
                {"unroll", ints({1, 2, 4}), "unroll of the streaming loops (two-pass only)"}};
    }
    bool valid(const config& c, const problem& p, std::string* why) const override {
        if (!row_op_valid(c, p, true, why)) return false;
        if (c.get<bool>("cache_row") && c.get<std::int64_t>("unroll") != 1) {
            if (why) *why = "unroll applies to the two-pass form only";
            return false;
        }
        return true;
    }
    config default_config(const problem& p) const override {
        const std::int64_t vec = 16 / static_cast<std::int64_t>(size_of(p.type));
        config c{{"threads_per_row", std::int64_t{256}},
                 {"rows_per_block", std::int64_t{1}},
                 {"vec", vec},
                 {"cache_row", true},
                 {"unroll", std::int64_t{1}}};
        if (!valid(c, p, nullptr)) {
            c.set("cache_row", false);
            c.set("unroll", std::int64_t{2});
        }
        return c;
    }
    std::string source(const config& c, const problem& p) const override {
        return prelude(p.type) + constants(c) +
               fmt::format("#define TPR THREADS_PER_ROW\n#define RPB ROWS_PER_BLOCK\n"
                           "constexpr int C = {};\n",
                           p.shape.cols) +
               row_reduce_source + softmax_body;
    }
    std::string reference_source(const problem& p) const override {
        return prelude(p.type) + softmax_reference;
    }
    launch_geometry geometry(const config& c, const problem& p) const override {
        return row_geometry(c, p);
    }
    launch_geometry reference_geometry(const problem& p) const override {
        return row_reference_geometry(p);
    }
    std::vector<buffer_spec> buffers(const problem& p) const override {
        const auto n = static_cast<std::size_t>(p.shape.rows * p.shape.cols);
        return {{"x", n, false}, {"y", n, true}};
    }
    tolerance tolerance_for(const problem& p) const override {
        // fp32: __expf's few-ulp error; bf16: two ulps of the output's 8-bit mantissa.
        return p.type == dtype::f32 ? tolerance{1e-5, 1e-9} : tolerance{2.0 / 256, 1e-7};
    }
    double bytes(const problem& p) const override {
        return 2.0 * static_cast<double>(p.shape.rows * p.shape.cols) *
               static_cast<double>(size_of(p.type));
    }
    double flops(const problem& p) const override {
        return 5.0 * static_cast<double>(p.shape.rows * p.shape.cols);
    }
    shape2d bucket(const shape2d& s) const override {
        // cols are baked into the source (register caching): exact; rows only set the grid.
        return {next_pow2(s.rows), s.cols};
    }
};

} // namespace

const op& softmax_op() {
    static const softmax instance;
    return instance;
}

} // namespace ktune::ops::detail
