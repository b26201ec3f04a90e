#include "gemm/pad.hpp"

#include <cuda_runtime.h>

namespace ktune::gemm::detail {
namespace {

constexpr std::int64_t k_multiple = 8; // 16 bytes of a 2-byte type: a vector, a TMA stride

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

cudaError_t copy(const operand& o, std::int64_t k8, std::size_t elem, const void* src, void* dst,
                 cudaStream_t s) {
    if (!o.k_leading)
        return cudaMemcpyAsync(dst, src, std::size_t(o.rows) * std::size_t(o.cols) * elem,
                               cudaMemcpyDeviceToDevice, s);
    return cudaMemcpy2DAsync(dst, std::size_t(k8) * elem, src, std::size_t(o.rows) * elem,
                             std::size_t(o.rows) * elem, std::size_t(o.cols),
                             cudaMemcpyDeviceToDevice, s);
}

} // namespace

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
                        cudaStream_t stream) {
    const std::int64_t k8 = padded(p).k;
    const std::size_t e = input_bytes(p.type);
    if (const cudaError_t err = copy(operand_a(p), k8, e, a, a_pad, stream); err != cudaSuccess)
        return err;
    return copy(operand_b(p), k8, e, b, b_pad, stream);
}

} // namespace ktune::gemm::detail
