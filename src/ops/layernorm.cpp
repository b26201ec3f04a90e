// LayerNorm over the last dimension: y = (x - mean) / sqrt(var + 1e-5) * gamma + beta.
// Same row-group structure as softmax: the row cached in registers (exact two-pass variance)
// or streamed twice (sum and sum of squares in the first pass).
#include "ops/builtin_ops.hpp"
#include "ops/source_common.hpp"

#include <fmt/format.h>

namespace ktune::ops::detail {
namespace {

const char* const layernorm_body = R"(
constexpr int NV = C / VEC;
constexpr int ITEMS = (NV + TPR - 1) / TPR;
typedef vec_t<VEC> V;

extern "C" __global__ void __launch_bounds__(TPR * RPB)
ktune_op_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                T* __restrict__ y, int rows, int cols) {
    __shared__ float red[RPB * (WARPS > 0 ? WARPS : 1)];
    const int lrow = threadIdx.x / TPR, t = threadIdx.x % TPR;
    const long long row = (long long)blockIdx.x * RPB + lrow;
    const bool active = row < rows;
    const V* xr = reinterpret_cast<const V*>(x + (active ? row : 0) * (long long)C);
    V* yr = reinterpret_cast<V*>(y + (active ? row : 0) * (long long)C);
    const V* gv = reinterpret_cast<const V*>(gamma);
    const V* bv = reinterpret_cast<const V*>(beta);
#if CACHE_ROW
    float v[ITEMS][VEC];
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = t + i * TPR;
        if (active && j < NV) {
            const V a = xr[j];
#pragma unroll
            for (int k = 0; k < VEC; ++k) { v[i][k] = to_f(a.v[k]); s += v[i][k]; }
        } else {
#pragma unroll
            for (int k = 0; k < VEC; ++k) v[i][k] = 0.f;
        }
    }
    const float mean = group_sum(s, red, lrow, t) * (1.f / C);
    float q = 0.f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = t + i * TPR;
        if (j < NV)
#pragma unroll
            for (int k = 0; k < VEC; ++k) { const float d = v[i][k] - mean; q += d * d; }
    }
    const float rstd = rsqrtf(group_sum(q, red, lrow, t) * (1.f / C) + 1e-5f);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = t + i * TPR;
        if (active && j < NV) {
            const V g = gv[j], b = bv[j];
            V o;
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                o.v[k] = from_f((v[i][k] - mean) * rstd * to_f(g.v[k]) + to_f(b.v[k]));
            yr[j] = o;
        }
    }
#else
    float s = 0.f, q = 0.f;
    if (active) {
#pragma unroll UNROLL
        for (int j = t; j < NV; j += TPR) {
            const V a = xr[j];
#pragma unroll
            for (int k = 0; k < VEC; ++k) { const float xv = to_f(a.v[k]); s += xv; q += xv * xv; }
        }
    }
    const float mean = group_sum(s, red, lrow, t) * (1.f / C);
    const float var = fmaxf(group_sum(q, red, lrow, t) * (1.f / C) - mean * mean, 0.f);
    const float rstd = rsqrtf(var + 1e-5f);
    if (active) {
#pragma unroll UNROLL
        for (int j = t; j < NV; j += TPR) {
            const V a = xr[j], g = gv[j], b = bv[j];
            V o;
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                o.v[k] = from_f((to_f(a.v[k]) - mean) * rstd * to_f(g.v[k]) + to_f(b.v[k]));
            yr[j] = o;
        }
    }
#endif
    KTUNE_EPILOGUE(y, (long long)rows * C)
}
)";

const char* const layernorm_reference = R"(
extern "C" __global__ void ktune_op_kernel(const T* x, const T* gamma, const T* beta, float* y,
                                           int rows, int cols) {
    __shared__ double red[256];
    const long long row = blockIdx.x;
    const T* xr = x + row * cols;
    double s = 0;
    for (int j = threadIdx.x; j < cols; j += 256) s += (double)to_f(xr[j]);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
        __syncthreads();
    }
    const double mean = red[0] / cols;
    __syncthreads();
    double q = 0;
    for (int j = threadIdx.x; j < cols; j += 256) {
        const double d = (double)to_f(xr[j]) - mean;
        q += d * d;
    }
    red[threadIdx.x] = q;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
        __syncthreads();
    }
    const double rstd = 1.0 / sqrt(red[0] / cols + 1e-5);
    for (int j = threadIdx.x; j < cols; j += 256)
        y[row * cols + j] = (float)(((double)to_f(xr[j]) - mean) * rstd * (double)to_f(gamma[j]) +
                                    (double)to_f(beta[j]));
}
)";

class layernorm final : public op {
public:
    std::string_view name() const noexcept override { return "layernorm"; }
    int version() const noexcept override { return 1; }
    std::string_view description() const noexcept override {
        return "LayerNorm over the last dimension (eps 1e-5, affine)";
    }
    std::string_view torch_equivalent() const noexcept override {
        return "torch.nn.functional.layer_norm(x, (cols,), gamma, beta)";
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
               row_reduce_source + layernorm_body;
    }
    std::string reference_source(const problem& p) const override {
        return prelude(p.type) + layernorm_reference;
    }
    launch_geometry geometry(const config& c, const problem& p) const override {
        return row_geometry(c, p);
    }
    launch_geometry reference_geometry(const problem& p) const override {
        return row_reference_geometry(p);
    }
    std::vector<buffer_spec> buffers(const problem& p) const override {
        const auto n = static_cast<std::size_t>(p.shape.rows * p.shape.cols);
        const auto c = static_cast<std::size_t>(p.shape.cols);
        return {{"x", n, false}, {"gamma", c, false}, {"beta", c, false}, {"y", n, true}};
    }
    tolerance tolerance_for(const problem& p) const override {
        // Outputs are O(1); the one-pass variance of the streaming form costs a few 1e-6.
        return p.type == dtype::f32 ? tolerance{1e-4, 1e-4} : tolerance{2.0 / 256, 2e-2};
    }
    double bytes(const problem& p) const override {
        const auto es = static_cast<double>(size_of(p.type));
        return (2.0 * static_cast<double>(p.shape.rows * p.shape.cols) +
                2.0 * static_cast<double>(p.shape.cols)) *
               es;
    }
    double flops(const problem& p) const override {
        return 8.0 * static_cast<double>(p.shape.rows * p.shape.cols);
    }
    shape2d bucket(const shape2d& s) const override { return {next_pow2(s.rows), s.cols}; }
};

} // namespace

const op& layernorm_op() {
    static const layernorm instance;
    return instance;
}

} // namespace ktune::ops::detail
