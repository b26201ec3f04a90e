// Vectors read at any element offset (docs/perf/kernels.md#rows-of-odd-length): a per-column
// operand (scale_bias_'s and layernorm's gamma and beta) beside rows that the vector width does
// not divide, and transpose's odd input rows; assembled after the prelude (T, vec_t). Such a
// row starts anywhere in a vector, so the elements wanted lie across two aligned vectors: both
// are loaded (the second is mostly an L1 hit: the next lane loaded it) and the elements picked
// by the shift, which is the same for a whole row (no divergence where a row spans whole warps).
//
// Elements s .. s + N - 1 of the pair lo, hi (0 <= s < N): the pair as 32-bit words, shifted
// right by the shift's bytes: whole words through one select per word and bit of the word shift,
// then the bytes within a word by one PRMT per output word (about 16 instructions for a 16-byte
// vector; element by element with a branch per shift took 56 and more, and bf16 rows were
// issue-bound on them).
template <int N>
__device__ __forceinline__ vec_t<N> shift_pair(const vec_t<N>& lo, const vec_t<N>& hi, int s) {
    typedef vec_t<N> W;
    constexpr int NW = sizeof(W) / 4;
    static_assert(NW >= 1 && sizeof(W) % 4 == 0, "shift_pair: vectors of whole words");
    unsigned w[2 * NW];
#pragma unroll
    for (int i = 0; i < NW; ++i) {
        w[i] = reinterpret_cast<const unsigned*>(&lo)[i];
        w[NW + i] = reinterpret_cast<const unsigned*>(&hi)[i];
    }
    const int b = s * (int)sizeof(T), q = b >> 2;
    const unsigned sel = 0x3210u + 0x1111u * (unsigned)(b & 3);
#pragma unroll
    for (int bit = 1; bit < NW; bit <<= 1)
#pragma unroll
        for (int i = 0; i + bit < 2 * NW; ++i)
            w[i] = (q & bit) ? w[i + bit] : w[i];
    W o;
#pragma unroll
    for (int i = 0; i < NW; ++i)
        reinterpret_cast<unsigned*>(&o)[i] = __byte_perm(w[i], w[i + 1], sel);
    return o;
}
// Columns c0 .. c0 + N - 1 of g (cols elements, 16-byte aligned), past the last column wrapping
// to the first (a flat vector crossing into the next row); 0 <= c0 < cols and N <= cols.
// Two halves, so that a loop can issue the loads rounds ahead of the shift (layernorm's ragged
// ring): column_pair_load's two loads are unconditional (clamped to g's last whole vector), so
// an unrolled loop issues every iteration's loads before it waits on any: a branch around them
// serialised the L2 round trips. column_pair_finish shifts the pair and patches the columns past
// g's last whole vector (its tail, or the wrap) one by one.
template <int N>
struct column_pair {
    vec_t<N> lo, hi;
};
template <int N>
__device__ __forceinline__ column_pair<N> column_pair_load(const T* __restrict__ g, int c0,
                                                           int cols) {
    typedef vec_t<N> W;
    const W* ga = reinterpret_cast<const W*>(g);
    const int a = c0 / N;
    const int whole = cols / N; // g's whole vectors: columns below whole * N
    return {ga[a < whole ? a : whole - 1], ga[a + 1 < whole ? a + 1 : whole - 1]};
}
template <int N>
__device__ __forceinline__ vec_t<N> column_pair_finish(const column_pair<N>& pr,
                                                       const T* __restrict__ g, int c0, int cols) {
    const int whole = cols / N;
    vec_t<N> o = shift_pair<N>(pr.lo, pr.hi, c0 - c0 / N * N);
    if (c0 + N > whole * N) {
#pragma unroll
        for (int k = 0; k < N; ++k) {
            const int c = c0 + k;
            if (c >= whole * N) o.v[k] = g[c < cols ? c : c - cols];
        }
    }
    return o;
}
template <int N>
__device__ __forceinline__ vec_t<N> column_vec(const T* __restrict__ g, int c0, int cols) {
    return column_pair_finish<N>(column_pair_load<N>(g, c0, cols), g, c0, cols);
}
