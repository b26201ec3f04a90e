// Softmax candidate kernel, assembled by row_op::source after row_common.cuh (and tma.cuh).
// The row's (max, sum) from every block's (max, sum) of its slice, in rank order.
__device__ __forceinline__ void combine_slices(float& m, float& s) {
#if CLUSTER > 1
    cluster_publish(make_float2(m, s));
    float gm = -KTUNE_INF, gs = 0.f;
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r)
        gm = fmaxf(gm, cluster_part(r).x);
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
    for (int k = 1; k < VEC; ++k)
        vm = fmaxf(vm, to_f(a.v[k]));
    if (vm > m) {
        s *= __expf(m - vm);
        m = vm;
    }
    const float ml = m * KTUNE_LOG2E;
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        s += ex2(fmaf(to_f(a.v[k]), KTUNE_LOG2E, -ml));
}

// Staged rows take exp once (H200, docs/perf/kernels.md#softmax-exp-once: bf16 1024x131072 90.7
// vs 81.2 % of the copy, 4096x32768 96.5 vs 93.9 %, fp32 equal); register-cached rows twice (equal
// within 0.5 %). A hand-set config key exp_once (not in the space) picks the other form.
#ifndef EXP_ONCE
#if defined(STAGE_smem_tma)
#define EXP_ONCE 1
#else
#define EXP_ONCE 0
#endif
#endif
#if EXP_ONCE
// exp_once: e = 2^((x - m) log2 e) is taken once, in the reduction pass, and kept where x was
// (the staged buffer, the register tail, the register-cached row); the store pass is then
// y = e * 2^((m - M) log2 e) / S: an FMUL per element, no MUFU. bf16 rows keep e in (0, 1] as
// fp16 (11 significant bits where the output keeps 8; below 2^-24 it rounds to 0, at most 3e-8
// of the output: under the tolerance's 1e-7), fp32 rows as floats.
template <class U>
__device__ __forceinline__ float e_to_f(U h) {
    if constexpr (sizeof(U) == 4) {
        return h;
    } else {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
        return f;
    }
}
template <class U, int N>
__device__ __forceinline__ void e_pack(vec_t<N>& o, const float (&e)[N]) {
    if constexpr (sizeof(U) == 2 && N % 2 == 0) {
        unsigned* w = reinterpret_cast<unsigned*>(o.v); // one cvt.rn.f16x2.f32 for two
#pragma unroll
        for (int k = 0; k < N / 2; ++k)
            asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w[k]) : "f"(e[2 * k + 1]), "f"(e[2 * k]));
    } else if constexpr (sizeof(U) == 2) {
#pragma unroll
        for (int k = 0; k < N; ++k)
            asm("cvt.rn.f16.f32 %0, %1;" : "=h"(o.v[k]) : "f"(e[k]));
    } else {
#pragma unroll
        for (int k = 0; k < N; ++k)
            o.v[k] = e[k];
    }
}
// Max of a vector: bf16 pairs by max.bf16x2 (exact), then one float compare.
template <class U, int N>
__device__ __forceinline__ float vmax(const vec_t<N>& a) {
    if constexpr (sizeof(U) == 2 && N % 2 == 0) {
        const unsigned* w = reinterpret_cast<const unsigned*>(a.v);
        unsigned mx = w[0];
#pragma unroll
        for (int k = 1; k < N / 2; ++k)
            asm("max.bf16x2 %0, %1, %2;" : "=r"(mx) : "r"(mx), "r"(w[k]));
        return fmaxf(__uint_as_float(mx << 16), __uint_as_float(mx & 0xffff0000u));
    } else {
        float v = to_f(a.v[0]);
#pragma unroll
        for (int k = 1; k < N; ++k)
            v = fmaxf(v, to_f(a.v[k]));
        return v;
    }
}
// e of a vector against the offset ml = m log2 e, added to s.
__device__ __forceinline__ V exp_vec(const V& a, float ml, float& s) {
    float e[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        e[k] = ex2(fmaf(to_f(a.v[k]), KTUNE_LOG2E, -ml));
        s += e[k];
    }
    V o;
    e_pack<T>(o, e);
    return o;
}
// The output vector of a vector of e: one FMUL each, bf16 packed in pairs.
__device__ __forceinline__ V scale_vec(const V& a, float sc) {
    float f[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        f[k] = e_to_f(a.v[k]) * sc;
    return to_vec(f);
}
#if defined(STAGE_smem_tma)
// The reduction pass over row k's staged chunks as they land: per chunk, this thread's max
// first (so one offset serves the whole chunk), then e written over x; mc[c] is that offset.
__device__ __forceinline__ void exp_staged(unsigned long long* bars, int k, int t, float& m,
                                           float& s, float (&mc)[NCH + 1]) {
    V* buf = stage_buf(k);
    unsigned long long* b = stage_bars(bars, k);
    const unsigned parity = stage_parity(k);
#pragma unroll
    for (int c = 0; c < NCH; ++c) {
        mbar_wait(&b[c], parity);
        float cm = -KTUNE_INF;
#pragma unroll 8
        for (int i = 0; i < RPC; ++i) {
            const int j = c * CV + i * TPR + t;
            if (j < span_vectors()) {
                // one 16-byte shared load, not one per element
                const V a = span_mask(j, buf[j], from_f(-KTUNE_INF));
                cm = fmaxf(cm, vmax<T>(a));
            }
        }
        if (cm > m) {
            s *= ex2((m - cm) * KTUNE_LOG2E);
            m = cm;
        }
        mc[c] = m;
        const float ml = m * KTUNE_LOG2E;
#pragma unroll 8
        for (int i = 0; i < RPC; ++i) {
            const int j = c * CV + i * TPR + t;
            if (j < span_vectors()) {
                const V a = span_mask(j, buf[j], from_f(-KTUNE_INF));
                buf[j] = exp_vec(a, ml, s);
            }
        }
    }
}
// The store pass: chunk c's e times its scale sc[c].
__device__ __forceinline__ void store_staged(V* yk, int k, int t, const float (&sc)[NCH + 1]) {
    const V* buf = stage_buf(k);
#pragma unroll
    for (int c = 0; c < NCH; ++c) {
#pragma unroll 8
        for (int i = 0; i < RPC; ++i) {
            const int j = c * CV + i * TPR + t;
            if (j < span_vectors()) {
                const V a = buf[j];
                span_store(yk, j, scale_vec(a, sc[c]));
            }
        }
    }
}
#endif
#endif
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
    // A ragged row's span starts span_off() elements before it (RAGGED: one row a block).
    const long long first0 = row0 * C + p.col0 - span_off();
    if (row0 < rows) stage_row(reinterpret_cast<const V*>(x + first0), bars, 0, span_vectors());
    // A slice over 226 KiB: its tail in registers (one row per block, the host checks it).
    static_assert(REG_ROUNDS == 0 || RPB == 1, "a register part needs one row per block");
    reg_part rg;
    if (REG_ROUNDS > 0) load_reg_part(rg, reinterpret_cast<const V*>(x + first0), p.t);
    for (int k = 0; k < RPB && row0 + k < rows; ++k) {
        if (k + 1 < RPB && row0 + k + 1 < rows)
            stage_row(reinterpret_cast<const V*>(x + first0 + (k + 1) * (long long)C), bars, k + 1);
        float m = -KTUNE_INF, s = 0.f;
#if EXP_ONCE
        float mc[NCH + 1]; // the offset of each chunk's e; [NCH]: the register tail's
        exp_staged(bars, k, p.t, m, s, mc);
        if (REG_ROUNDS > 0) {
            float tm = -KTUNE_INF;
#pragma unroll
            for (int i = 0; i < REG_ROUNDS; ++i)
                tm = fmaxf(tm, vmax<T>(rg.v[i]));
            if (tm > m) {
                s *= ex2((m - tm) * KTUNE_LOG2E);
                m = tm;
            }
            const float ml = m * KTUNE_LOG2E;
#pragma unroll
            for (int i = 0; i < REG_ROUNDS; ++i)
                rg.v[i] = exp_vec(rg.v[i], ml, s);
        }
        mc[NCH] = m;
#else
        for_staged(bars, k, p.t, [&](int j, const V& a) {
            online_add(m, s, span_mask(j, a, from_f(-KTUNE_INF)));
        });
#pragma unroll
        for (int i = 0; i < REG_ROUNDS; ++i)
            online_add(m, s, rg.v[i]);
#endif
        const float gm = group_max(m, red, p);
        s = (m == -KTUNE_INF) ? 0.f : s * __expf(m - gm);
        s = group_sum(s, red, p);
        m = gm;
        combine_slices(m, s);
        // y = exp(x - m) / s = 2^(x log2 e - (m log2 e + log2 s)): one FFMA and one MUFU.
        const float off = m * KTUNE_LOG2E + __log2f(s);
        V* yk = reinterpret_cast<V*>(y + first0 + k * (long long)C);
#if EXP_ONCE
        // y = e * 2^((mc - m) log2 e) / s: one MUFU per chunk, none per element.
        float sc[NCH + 1];
#pragma unroll
        for (int c = 0; c <= NCH; ++c)
            sc[c] = ex2(fmaf(mc[c], KTUNE_LOG2E, -off));
        store_staged(yk, k, p.t, sc);
#pragma unroll
        for (int i = 0; i < REG_ROUNDS; ++i)
            yk[SNV + i * TPR + p.t] = scale_vec(rg.v[i], sc[NCH]);
#else
        for_row(k, p.t, [&](int j, const V& a) {
            V o;
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                o.v[e] = from_f(ex2(fmaf(to_f(a.v[e]), KTUNE_LOG2E, -off)));
            span_store(yk, j, o);
        });
#pragma unroll
        for (int i = 0; i < REG_ROUNDS; ++i) {
            V o;
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                o.v[e] = from_f(ex2(fmaf(to_f(rg.v[i].v[e]), KTUNE_LOG2E, -off)));
            yk[SNV + i * TPR + p.t] = o;
        }
#endif
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
        for (int k = 0; k < VEC; ++k)
            m = fmaxf(m, to_f(raw[i].v[k]));
    m = group_max(m, red, p);
    float s = 0.f;
    const float ml = m * KTUNE_LOG2E;
#if EXP_ONCE
    // e over the cached row (fp16 in the registers that held bf16), then y = e * scale.
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        raw[i] = exp_vec(raw[i], ml, s);
    s = group_sum(s, red, p);
    combine_slices(m, s);
    const float sc = ex2(ml - (m * KTUNE_LOG2E + __log2f(s)));
    store_row_vec(yr, raw, p, [&](int, const V& e) { return scale_vec(e, sc); });
#else
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            s += ex2(fmaf(to_f(raw[i].v[k]), KTUNE_LOG2E, -ml));
    s = group_sum(s, red, p);
    combine_slices(m, s);
    // exp again rather than a float copy of the row: the registers hold the row as loaded.
    const float off = m * KTUNE_LOG2E + __log2f(s);
    store_row(yr, raw, p, [&](float x) { return ex2(fmaf(x, KTUNE_LOG2E, -off)); });
#endif
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
                if (xv > m) {
                    s *= __expf(m - xv);
                    m = xv;
                }
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
