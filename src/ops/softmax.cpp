// Row softmax y = exp(x - max) / sum(exp(x - max)) along cols. A group of threads_per_row
// threads owns a row; the row is cached in registers (one DRAM read), or read twice with an
// online max/sum in the first pass, or, too long for one block, split across a thread-block
// cluster whose blocks each cache a slice and combine their (max, sum) pairs through DSMEM.
#include "ops/builtin_ops.hpp"
#include "ops/row_op.hpp"

namespace ktune::ops::detail {
namespace {

const char* const softmax_body = R"(
// The row's (max, sum) from every block's (max, sum) of its slice, in rank order.
__device__ __forceinline__ void combine_slices(float& m, float& s) {
#if CLUSTER > 1
    cluster_publish(make_float2(m, s));
    float gm = -KTUNE_INF, gs = 0.f;
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) gm = fmaxf(gm, cluster_part(r).x);
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) {
        const float2 q = cluster_part(r);
        gs += q.y * __expf(q.x - gm);
    }
    cluster_done();
    m = gm;
    s = gs;
#endif
}
// Online (max, sum of exp) of one thread's elements.
__device__ __forceinline__ void online_add(float& m, float& s, const V& a) {
    float vm = to_f(a.v[0]);
#pragma unroll
    for (int k = 1; k < VEC; ++k) vm = fmaxf(vm, to_f(a.v[k]));
    if (vm > m) { s *= __expf(m - vm); m = vm; }
    const float ml = m * KTUNE_LOG2E;
#pragma unroll
    for (int k = 0; k < VEC; ++k) s += ex2(fmaf(to_f(a.v[k]), KTUNE_LOG2E, -ml));
}

extern "C" __global__ void __launch_bounds__(KTUNE_BLOCK) KTUNE_CLUSTER_DIMS
ktune_op_kernel(const T* __restrict__ x, T* __restrict__ y, int rows, int cols) {
    __shared__ float red[GROUPS * (WARPS > 0 ? WARPS : 1)];
    const row_pos p = row_position(rows);
    const V* xr = reinterpret_cast<const V*>(x + p.first);
    V* yr = reinterpret_cast<V*>(y + p.first);
#if defined(STAGE_smem_tma)
    // Row (slice) k of the block's RPB arrives by bulk copies in chunks while row k - 1 is
    // written; each thread folds its vectors into an online (max, sum) as chunks land, then
    // writes from shared memory.
    __shared__ __align__(8) unsigned long long bars[NBUF * NCH];
    mbar_setup(bars, NBUF * NCH);
    const long long row0 = (long long)(blockIdx.x / CLUSTER) * RPB;
    const long long first0 = row0 * C + p.col0;
    if (row0 < rows) stage_row(reinterpret_cast<const V*>(x + first0), bars, 0);
    // A slice over 226 KiB: its tail in registers (one row per block, the host checks it).
    static_assert(REG_ROUNDS == 0 || RPB == 1, "a register part needs one row per block");
    reg_part rg;
    if (REG_ROUNDS > 0) load_reg_part(rg, reinterpret_cast<const V*>(x + first0), p.t);
    for (int k = 0; k < RPB && row0 + k < rows; ++k) {
        if (k + 1 < RPB && row0 + k + 1 < rows)
            stage_row(reinterpret_cast<const V*>(x + first0 + (k + 1) * (long long)C), bars, k + 1);
        float m = -KTUNE_INF, s = 0.f;
        for_staged(bars, k, p.t, [&](const V& a) { online_add(m, s, a); });
#pragma unroll
        for (int i = 0; i < REG_ROUNDS; ++i) online_add(m, s, rg.v[i]);
        const float gm = group_max(m, red, p);
        s = (m == -KTUNE_INF) ? 0.f : s * __expf(m - gm);
        s = group_sum(s, red, p);
        m = gm;
        combine_slices(m, s);
        // y = exp(x - m) / s = 2^(x log2 e - (m log2 e + log2 s)): one FFMA and one MUFU.
        const float off = m * KTUNE_LOG2E + __log2f(s);
        V* yk = reinterpret_cast<V*>(y + first0 + k * (long long)C);
        for_row(k, p.t, [&](int j, const V& a) {
            V o;
#pragma unroll
            for (int e = 0; e < VEC; ++e) o.v[e] = from_f(ex2(fmaf(to_f(a.v[e]), KTUNE_LOG2E, -off)));
            yk[j] = o;
        });
#pragma unroll
        for (int i = 0; i < REG_ROUNDS; ++i) {
            V o;
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                o.v[e] = from_f(ex2(fmaf(to_f(rg.v[i].v[e]), KTUNE_LOG2E, -off)));
            yk[SNV + i * TPR + p.t] = o;
        }
#if CLUSTER > 1
        cluster_finish();
#endif
        __syncthreads(); // row k's buffer is read: row k + 2 may land in it
    }
#elif CACHE_ROW
    V raw[ITEMS];
    load_row(raw, xr, p, from_f(-KTUNE_INF));
    float m = -KTUNE_INF;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
        for (int k = 0; k < VEC; ++k) m = fmaxf(m, to_f(raw[i].v[k]));
    m = group_max(m, red, p);
    float s = 0.f;
    const float ml = m * KTUNE_LOG2E;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
        for (int k = 0; k < VEC; ++k) s += ex2(fmaf(to_f(raw[i].v[k]), KTUNE_LOG2E, -ml));
    s = group_sum(s, red, p);
    combine_slices(m, s);
    // exp again rather than a float copy of the row: the registers hold the row as loaded.
    const float off = m * KTUNE_LOG2E + __log2f(s);
    store_row(yr, raw, p,
              [&](int, int, float x) { return ex2(fmaf(x, KTUNE_LOG2E, -off)); });
#if CLUSTER > 1
    cluster_finish();
#endif
#else
    float m = -KTUNE_INF, s = 0.f;
    if (p.active) {
#pragma unroll UNROLL
        for (int j = p.t; j < NV; j += TPR) {
            const V a = xr[j];
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const float xv = to_f(a.v[k]);
                if (xv > m) { s *= __expf(m - xv); m = xv; }
                s += __expf(xv - m);
            }
        }
    }
    const float gm = group_max(m, red, p);
    s = (m == -KTUNE_INF) ? 0.f : s * __expf(m - gm);
    s = group_sum(s, red, p);
    const float off = gm * KTUNE_LOG2E + __log2f(s);
    if (p.active) {
#pragma unroll UNROLL
        for (int j = p.t; j < NV; j += TPR) {
            const V a = xr[j];
            V o;
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                o.v[k] = from_f(ex2(fmaf(to_f(a.v[k]), KTUNE_LOG2E, -off)));
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

class softmax final : public row_op {
public:
    softmax() noexcept : row_op(row_forms::cached) {}
    std::string_view name() const noexcept override { return "softmax"; }
    int version() const noexcept override { return 5; }
    std::string_view description() const noexcept override {
        return "row softmax along the last dimension";
    }
    std::string_view torch_equivalent() const noexcept override {
        return "torch.softmax(x, dim=-1)";
    }
    std::vector<buffer_spec> buffers(const problem& p) const override {
        const auto n = static_cast<std::size_t>(p.shape.rows * p.shape.cols);
        return {{"x", n, false}, {"y", n, true}};
    }
    tolerance tolerance_for(const problem& p) const override {
        // fp32: ex2.approx's few-ulp error; bf16: two ulps of the output's 8-bit mantissa.
        return p.type == dtype::f32 ? tolerance{1e-5, 1e-9} : tolerance{2.0 / 256, 1e-7};
    }
    double bytes(const problem& p) const override {
        return 2.0 * static_cast<double>(p.shape.rows * p.shape.cols) *
               static_cast<double>(size_of(p.type));
    }
    double flops(const problem& p) const override {
        return 5.0 * static_cast<double>(p.shape.rows * p.shape.cols);
    }

private:
    // fp32 only: bf16 measured 72-78 % that way (session 4: one block per row instead).
    bool long_rows_in_registers(dtype t) const noexcept override { return t == dtype::f32; }
    // bf16: 0.1587 ms [0.1584, 0.1597] vs 1024 threads 0.1609 [0.1604, 0.1619] (H200).
    std::int64_t long_row_block_threads(dtype t) const noexcept override {
        return t == dtype::bf16 ? 512 : 0;
    }
    const char* body() const noexcept override { return softmax_body; }
    const char* reference_body() const noexcept override { return softmax_reference; }
};

} // namespace

const op& softmax_op() {
    static const softmax instance;
    return instance;
}

} // namespace ktune::ops::detail
