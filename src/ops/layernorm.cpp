// LayerNorm over the last dimension: y = (x - mean) / sqrt(var + 1e-5) * gamma + beta. The
// kernels are in kernels/layernorm.cuh; here the space's hooks and the models.
#include "ops/builtin_ops.hpp"
#include "ops/kernel_sources.hpp"
#include "ops/row_op.hpp"
#include "ops/source_common.hpp"

#include <string>
#include <variant>

namespace ktune::ops::detail {
namespace {

class layernorm final : public row_op {
public:
    layernorm() noexcept : row_op(row_forms::cached) {}
    std::string_view name() const noexcept override { return "layernorm"; }
    int version() const noexcept override { return 13; }
    std::string_view description() const noexcept override {
        return "LayerNorm over the last dimension (eps 1e-5, affine)";
    }
    std::string_view torch_equivalent() const noexcept override {
        return "torch.nn.functional.layer_norm(x, (cols,), gamma, beta)";
    }
    std::vector<kernel::argument_spec> arguments(const problem& p) const override {
        return detail::with_shape({detail::buffer_argument("x", p, "rows * cols", true, false),
                                   detail::buffer_argument("gamma", p, "cols", true, false),
                                   detail::buffer_argument("beta", p, "cols", true, false),
                                   detail::buffer_argument("y", p, "rows * cols", false, true)});
    }
    // shifted_ops' operands: for each offset an odd row can start at (vec, at most 16 bytes),
    // gamma and beta placed on the row's aligned span (layernorm.cuh's prologue).
    std::size_t workspace_elements(const problem& p) const override {
        const auto widest = static_cast<std::int64_t>(16 / size_of(p.type));
        if (p.shape.cols % widest == 0) return 0; // every vec divides the row
        return static_cast<std::size_t>(2 * widest * (p.shape.cols + 2 * widest));
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

    // Hand-set keys (not axes): ragged_ring (rows that vec does not divide, stage smem_tma:
    // rounds of gamma/beta pairs loaded ahead, docs/perf/kernels.md#layernorm-ragged-ring;
    // default 1 where a thread has at most 32 rounds,
    // else 0), gb_prefetch (0-8 rounds of gamma/beta loaded before the
    // statistics exchange; default 2), packed_cvt (bf16 outputs two per cvt; default true) for
    // the staged forms, rows_reg_tail (smem_rows over 112 KiB keep row tails in registers;
    // default true), tma_reg_tail (one slice over 112 KiB: 96 KiB staged, the tail in registers,
    // two blocks a SM; default false), rows_in_turn (smem_tma rows_per_block > 1: two buffers,
    // out of the space since docs/perf/kernels.md#staged-rows), shifted_ops (odd staged rows:
    // true reads the prologue's shifted copies of gamma and beta, false shifts them per vector in
    // the threads; default: true for rows of 128 KiB and less,
    // docs/perf/kernels.md#layernorm-shifted-operands), min_blocks (1..4:
    // registers capped for that many blocks a SM). Each picks the form it names, so one GPU call
    // compares it at equal configs.
    bool valid(const config& c, const problem& p, std::string* why = nullptr) const override {
        if (!row_op::valid(c, p, why)) return false;
        const bool staged = staged_in_smem(c);
        if (const param_value* v = c.find("gb_prefetch")) {
            const auto* n = std::get_if<std::int64_t>(v);
            if (!n || *n < 0 || *n > 8 || !staged || (ragged(c, p) && !shifted_operands(c, p))) {
                if (why)
                    *why = "gb_prefetch: 0..8 rounds, staged forms (smem_tma, smem_rows); on rows "
                           "that vec does not divide only with their operands shifted once "
                           "(rows of 128 KiB and less, or shifted_ops=true)";
                return false;
            }
        }
        if (const param_value* v = c.find("ragged_ring")) {
            // Rounds of the store loop, unrolled whole with the ring: at most 32.
            const auto vec = c.get<std::int64_t>("vec");
            const std::int64_t rounds =
                ((p.shape.cols + 2 * vec - 2) / vec + c.get<std::int64_t>("threads_per_row") - 1) /
                c.get<std::int64_t>("threads_per_row");
            const auto* n = std::get_if<std::int64_t>(v);
            if (!n || *n < 0 || *n > 8 || !staged || c.get<std::string>("stage") != "smem_tma" ||
                !ragged(c, p) || (*n > 0 && rounds > 32)) {
                if (why)
                    *why = "ragged_ring: 0..8 rounds, stage smem_tma on rows that vec does not "
                           "divide, at most 32 rounds a thread (more threads per row)";
                return false;
            }
        }
        if (const param_value* v = c.find("shifted_ops")) {
            const auto* b = std::get_if<bool>(v);
            if (!b || (*b && (c.get<std::string>("stage") != "smem_tma" || !ragged(c, p) ||
                              c.find("ragged_ring") != nullptr || workspace_elements(p) == 0))) {
                if (why)
                    *why = "shifted_ops: true or false; true for stage smem_tma on rows that vec "
                           "does not divide, without ragged_ring";
                return false;
            }
        }
        if (const param_value* v = c.find("min_blocks")) {
            const auto* n = std::get_if<std::int64_t>(v);
            if (!n || *n < 1 || *n > 4 || c.get<std::string>("stage") != "smem_tma") {
                if (why) *why = "min_blocks: 1..4 blocks a SM, stage smem_tma";
                return false;
            }
        }
        for (const char* key : {"packed_cvt", "rows_reg_tail", "tma_reg_tail", "rows_in_turn"})
            if (const param_value* v = c.find(key); v && (!std::get_if<bool>(v) || !staged)) {
                if (why) *why = std::string(key) + ": true or false, staged forms only";
                return false;
            }
        return true;
    }

    // The source with shifted_ops set where the config leaves it to the op.
    std::string source(const config& c, const problem& p) const override {
        if (c.find("shifted_ops") || !ragged(c, p) || !staged_in_smem(c))
            return row_op::source(c, p);
        config d = c;
        d.set("shifted_ops", shifted_operands(c, p));
        return row_op::source(d, p);
    }

private:
    // Odd staged rows (one a block) read gamma and beta shifted once a launch by the prologue
    // (shifted_ops) where the row is 128 KiB or less, else shifted per vector in the threads.
    // H200, % of the 512 MiB copy (docs/perf/kernels.md#layernorm-shifted-operands): bf16
    // 4096x32001 83.4 against 74.5 (three blocks a SM instead of two), 4096x50257 79.3 against
    // 77.7, fp32 4096x32001 79.9 against 77.9; fp32 4096x50257 (196 KiB) 65.7 against 77.3.
    static bool shifted_operands(const config& c, const problem& p) {
        if (const param_value* v = c.find("shifted_ops"); v && std::get_if<bool>(v))
            return std::get<bool>(*v) && c.find("ragged_ring") == nullptr;
        if (c.find("ragged_ring") || c.get<std::string>("stage") != "smem_tma") return false;
        return slice_bytes(c, p) <= 128 * 1024; // a ragged row's whole span
    }
    // One row per block, 256 threads: fp32 rows of 128 KiB and more in 128 KiB slices (96 KiB
    // staged, the tail in registers, two blocks a SM), bf16 rows of 256 KiB in 32 KiB slices.
    // H200 (docs/perf/kernels.md#layernorm-register-tails): fp32 1024x131072 (clusters of 4) 88.0 %
    // vs 85.0 % (1024 threads, 256 KiB a block, clusters of 2); fp32 4096x32768 (no cluster) 94.1 %
    // vs 92.6 % (two rows at once) and 86.8 % (512 threads, clusters of 2); bf16 1024x131072
    // (clusters of 8) 79.6 / 79.3 % vs 79.2-78.4 % (512 threads, clusters of 4; another call: 79.6
    // vs 78.0 %).
    std::int64_t long_row_block_threads(dtype) const noexcept override { return 256; }
    std::int64_t long_row_min_bytes(dtype t) const noexcept override {
        return t == dtype::f32 ? 128 * 1024 : 256 * 1024;
    }
    std::int64_t long_row_slice_bytes(dtype t) const noexcept override {
        return t == dtype::f32 ? 128 * 1024 : 32 * 1024;
    }
    bool slice_tails_two_blocks() const noexcept override { return true; }
    bool column_operands() const noexcept override { return true; } // gamma, beta
    // Gamma and beta shifted to the row's columns (column_operand.cuh).
    bool ragged_rows() const noexcept override { return true; }
    // Long odd rows staged too (tma.cuh's span): register-cached rows of 64-200 KiB reached
    // 48-67 % of the copy on the H200 (docs/perf/kernels.md#rows-of-odd-length).
    bool ragged_stage() const noexcept override { return true; }
    // And their spans over 112 KiB with tails in registers, two blocks a SM, as aligned slices
    // (docs/perf/kernels.md#layernorm-ragged-tails).
    bool ragged_tails() const noexcept override { return true; }
    const char* body() const noexcept override { return kernels::layernorm; }
    const char* reference_body() const noexcept override { return kernels::layernorm_reference; }
};

} // namespace

const op& layernorm_op() {
    static const layernorm instance;
    return instance;
}

} // namespace ktune::ops::detail
