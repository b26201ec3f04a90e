#include "gemm/pad.hpp"

#include "ktune/compile/compile.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <climits>
#include <optional>

namespace ktune::gemm::detail {
namespace {

constexpr std::int64_t k_multiple = 8; // 16 bytes of a 2-byte type: a vector, a TMA stride
constexpr int chunk = 4096;            // elements of a column a block stages (8 KiB)

// One block per (column, chunk of `chunk` elements) of a K-leading operand; A's blocks first,
// then B's, in one launch. A column of odd K starts anywhere in a 16-byte vector, so the block
// reads the aligned 16-byte vectors that cover its chunk (the first and last of the whole
// operand element by element where they reach past it) into shared memory, then writes the
// padded chunk, zeros past K, as aligned 16-byte vectors (a padded column starts on a 16-byte
// boundary): each out of two conflict-free 16-byte shared loads shifted by the chunk's offset
// (word selects, then one PRMT a word). Loads must be wide: 2-byte loads, one in flight a
// thread, ran no faster than cudaMemcpy2DAsync with a 2-byte-aligned pitch; the forms tried
// and their times are in docs/perf/gemm.md#padded-k.
constexpr const char* pad_source = R"(
#define KTUNE_PAD_CHUNK 4096
extern "C" __global__ void __launch_bounds__(256)
ktune_pad_k(const unsigned short* __restrict__ src_a, unsigned short* __restrict__ dst_a,
            long long k, long long k8, int chunks, long long total_a, unsigned blocks_a,
            const unsigned short* __restrict__ src_b, unsigned short* __restrict__ dst_b,
            long long total_b) {
    __shared__ __align__(16) unsigned short staged[KTUNE_PAD_CHUNK + 16];
    const bool is_a = blockIdx.x < blocks_a;
    const unsigned block = is_a ? blockIdx.x : blockIdx.x - blocks_a;
    const unsigned short* src = is_a ? src_a : src_b;
    unsigned short* dst = is_a ? dst_a : dst_b;
    const long long total = is_a ? total_a : total_b;
    const long long col = block / chunks;
    const long long lo = (long long)(block % chunks) * KTUNE_PAD_CHUNK;
    const long long left = k8 - lo;
    const int n = left < KTUNE_PAD_CHUNK ? (int)left : KTUNE_PAD_CHUNK; // padded elements
    const long long real_end = lo + n < k ? lo + n : k;                  // column-relative
    const long long first = col * k + lo, last = col * k + real_end;     // source elements
    const unsigned long long a0 = (unsigned long long)(src + first) & ~15ull;
    const int shift = (int)((unsigned long long)(src + first) - a0) / 2;
    const int nvec = first < last ? (int)((last - first + shift + 7) / 8) : 0;
    const uint4* sv = reinterpret_cast<const uint4*>(a0);
    uint4* st = reinterpret_cast<uint4*>(staged);
    const unsigned long long lo_addr = (unsigned long long)src;
    const unsigned long long hi_addr = (unsigned long long)(src + total);
    for (int v = threadIdx.x; v < nvec; v += blockDim.x) {
        const unsigned long long at = a0 + 16ull * v;
        if (at >= lo_addr && at + 16 <= hi_addr) {
            st[v] = sv[v];
        } else {
            for (int e = 0; e < 8; ++e) {
                const unsigned long long ea = at + 2ull * e;
                staged[8 * v + e] =
                    ea >= lo_addr && ea < hi_addr ? *(const unsigned short*)ea : (unsigned short)0;
            }
        }
    }
    __syncthreads();
    uint4* d = reinterpret_cast<uint4*>(dst + col * k8 + lo);
    const int q = shift >> 1;
    const unsigned sel = (shift & 1) ? 0x5432u : 0x3210u;
    for (int v = threadIdx.x; v < n / 8; v += blockDim.x) {
        const uint4 x = st[v], y = st[v + 1];
        unsigned w[8] = {x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w};
#pragma unroll
        for (int i = 0; i < 7; ++i) w[i] = (q & 1) ? w[i + 1] : w[i];
#pragma unroll
        for (int i = 0; i < 6; ++i) w[i] = (q & 2) ? w[i + 2] : w[i];
        unsigned o[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) o[i] = __byte_perm(w[i], w[i + 1], sel);
        const long long c0 = lo + 8 * v; // column-relative index of the vector's first element
        if (c0 + 8 > k) { // the column's last real elements, then its zeros
#pragma unroll
            for (int i = 0; i < 8; ++i)
                if (c0 + i >= k) o[i / 2] &= (i & 1) ? 0x0000ffffu : 0xffff0000u;
        }
        d[v] = make_uint4(o[0], o[1], o[2], o[3]);
    }
}
)";

// The kernel, compiled once per process for the current device (the cubin cache keeps it
// across processes) and loaded for the process's lifetime; nullopt where NVRTC or the load
// fails, and the copies fall back to cudaMemcpy2DAsync.
std::optional<cudaKernel_t> load_pad_kernel() {
    try {
        int dev = 0, major = 0, minor = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
            return std::nullopt;
        compile::compile_request req;
        req.source = pad_source;
        req.name_expression = "ktune_pad_k";
        req.arch = fmt::format("sm_{}{}", major, minor);
        const compile::cubin_cache cache(compile::cubin_cache::default_dir());
        const compile::compile_result c = compile::compile_cached(req, &cache);
        if (!c.ok) return std::nullopt;
        cudaLibrary_t lib = nullptr;
        cudaKernel_t kernel = nullptr;
        if (cudaLibraryLoadData(&lib, c.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) !=
                cudaSuccess ||
            cudaLibraryGetKernel(&kernel, lib, c.lowered_name.c_str()) != cudaSuccess) {
            (void)cudaGetLastError();
            return std::nullopt;
        }
        return kernel;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<cudaKernel_t> pad_kernel() {
    static const std::optional<cudaKernel_t> k = load_pad_kernel();
    return k;
}

// One stored operand, column-major: `rows` x `cols` with ld = rows; K is either its rows (the
// leading dimension, padded per column) or its columns (padded by zero columns at the end).
struct operand {
    std::int64_t rows = 0, cols = 0;
    bool k_leading = false;
};

operand operand_a(const problem& p) noexcept {
    return p.transa() ? operand{p.k, p.m, true} : operand{p.m, p.k, false};
}
operand operand_b(const problem& p) noexcept {
    return p.transb() ? operand{p.n, p.k, false} : operand{p.k, p.n, true};
}

// The padded copy of K-leading operands through the kernel: one launch for one or both (a
// null second source). False where the kernel is not available or the grid too large.
bool launch_pad(std::int64_t k, std::int64_t k8, const void* src_a, void* dst_a,
                std::int64_t cols_a, const void* src_b, void* dst_b, std::int64_t cols_b,
                cudaStream_t s, cudaError_t& err) {
    const auto kernel = pad_kernel();
    const std::int64_t chunks = (k8 + chunk - 1) / chunk;
    if (!kernel || (cols_a + cols_b) * chunks > INT_MAX) return false;
    long long kk = k, kk8 = k8, total_a = k * cols_a, total_b = k * cols_b;
    int per_col = static_cast<int>(chunks);
    auto blocks_a = static_cast<unsigned>(cols_a * chunks);
    void* args[] = {&src_a,   &dst_a,    &kk,    &kk8,   &per_col,
                    &total_a, &blocks_a, &src_b, &dst_b, &total_b};
    err = cudaLaunchKernel(reinterpret_cast<const void*>(*kernel),
                           dim3(static_cast<unsigned>((cols_a + cols_b) * chunks)), dim3(256), args,
                           0, s);
    return true;
}

cudaError_t copy(const operand& o, std::int64_t k8, std::size_t elem, const void* src, void* dst,
                 cudaStream_t s, pad_copy form) {
    auto* out = static_cast<char*>(dst);
    if (!o.k_leading) {
        // K is the column count: the columns past K are the padding, one run at the end.
        const std::size_t whole = std::size_t(o.rows) * std::size_t(o.cols) * elem;
        if (const cudaError_t err = cudaMemcpyAsync(dst, src, whole, cudaMemcpyDeviceToDevice, s);
            err != cudaSuccess)
            return err;
        return cudaMemsetAsync(out + whole, 0,
                               std::size_t(o.rows) * std::size_t(k8 - o.cols) * elem, s);
    }
    cudaError_t err = cudaSuccess;
    if (form == pad_copy::kernel &&
        launch_pad(o.rows, k8, src, dst, o.cols, nullptr, nullptr, 0, s, err))
        return err;
    err = cudaMemcpy2DAsync(dst, std::size_t(k8) * elem, src, std::size_t(o.rows) * elem,
                            std::size_t(o.rows) * elem, std::size_t(o.cols),
                            cudaMemcpyDeviceToDevice, s);
    if (err != cudaSuccess) return err;
    return cudaMemset2DAsync(out + std::size_t(o.rows) * elem, std::size_t(k8) * elem, 0,
                             std::size_t(k8 - o.rows) * elem, std::size_t(o.cols), s);
}

} // namespace

std::string_view pad_kernel_source() noexcept {
    return pad_source;
}

void prepare_pad() {
    (void)pad_kernel();
}

bool pads_k(const problem& p) noexcept {
    return (p.type == dtype::bf16 || p.type == dtype::fp16) && p.k % k_multiple != 0;
}

problem padded(const problem& p) noexcept {
    problem q = p;
    if (pads_k(p)) q.k = (p.k + k_multiple - 1) / k_multiple * k_multiple;
    return q;
}

padded_sizes padded_bytes(const problem& p) noexcept {
    const problem q = padded(p);
    const std::size_t e = input_bytes(p.type);
    return {std::size_t(q.m) * std::size_t(q.k) * e, std::size_t(q.k) * std::size_t(q.n) * e};
}

cudaError_t enqueue_pad(const problem& p, const void* a, const void* b, void* a_pad, void* b_pad,
                        cudaStream_t stream, pad_copy form) {
    const std::int64_t k8 = padded(p).k;
    const std::size_t e = input_bytes(p.type);
    const operand oa = operand_a(p), ob = operand_b(p);
    // tn (x @ W^T): both K-leading, one launch.
    if (cudaError_t err = cudaSuccess;
        form == pad_copy::kernel && oa.k_leading && ob.k_leading &&
        launch_pad(p.k, k8, a, a_pad, oa.cols, b, b_pad, ob.cols, stream, err))
        return err;
    if (const cudaError_t err = copy(oa, k8, e, a, a_pad, stream, form); err != cudaSuccess)
        return err;
    return copy(ob, k8, e, b, b_pad, stream, form);
}

} // namespace ktune::gemm::detail
