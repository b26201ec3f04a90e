#pragma once
// The row ops (softmax, layernorm, rowsum) share everything but their math: the space, its
// constraints, the default config, the launch geometry, the shape buckets and how a source is
// assembled. row_op holds that once; each op adds its kernel bodies and its models.
#include "ktune/ops/op.hpp"

namespace ktune::ops::detail {

/// One row per group of threads_per_row threads, rows_per_block groups per block, or (cached
/// forms, cluster > 1) one row split across a thread-block cluster.
///
///   class softmax final : public row_op { softmax() : row_op(row_forms::cached) {} ... };
enum class row_forms {
    streaming, ///< one pass over the row, unroll loads in flight (rowsum)
    cached,    ///< the row in registers, read twice, or split across a cluster (softmax, ...)
};

/// Whether c stages the row in shared memory by bulk copies (stage = smem_tma, or smem_rows:
/// rows_per_block rows at once).
bool staged_in_smem(const config& c);

class row_op : public op {
public:
    explicit row_op(row_forms forms) noexcept : forms_(forms) {}

    [[nodiscard]] std::vector<param_axis> axes() const override;
    [[nodiscard]] bool valid(const config& c, const problem& p,
                             std::string* why = nullptr) const override;
    [[nodiscard]] config default_config(const problem& p) const override;
    [[nodiscard]] std::string source(const config& c, const problem& p) const override;
    [[nodiscard]] std::string reference_source(const problem& p) const override;
    [[nodiscard]] launch_geometry geometry(const config& c, const problem& p) const override;
    [[nodiscard]] launch_geometry reference_geometry(const problem& p) const override;
    /// cols are baked into the source (register caching, slices): exact; rows only set the grid.
    [[nodiscard]] shape2d bucket(const shape2d& s) const override;

protected:
    /// Whether the default config splits rows of 256 KiB and more across a cluster of 8 with
    /// the row cached in registers (else: staged in shared memory, 256 KiB a block). The H200
    /// data decides per op and dtype: softmax fp32 yes (96 % at 1024x131072 vs 87 % staged in
    /// clusters), layernorm no (69 % vs 82 % staged, fp32).
    [[nodiscard]] virtual bool long_rows_in_registers(dtype) const noexcept { return false; }
    /// Else, threads of a block taking 256 KiB of such a row (192 KiB staged, the tail in
    /// registers; fp32 rows in clusters of 2), or 0: staged slices of at most 64 KiB. H200
    /// (docs/perf/kernels.md#long-row-forms): softmax bf16 512 (81.0 % vs 73.2 % in a register
    /// cluster), layernorm fp32 1024 (84.2 vs 81.8 % in 64 KiB slices), layernorm bf16 0 (66.0
    /// vs 68.9 %).
    [[nodiscard]] virtual std::int64_t long_row_block_threads(dtype) const noexcept { return 0; }
    /// Whether the op reads per-column operands (layernorm's gamma and beta) beside each row:
    /// then its space has stage smem_rows, rows_per_block rows staged at once so that each
    /// operand vector is read once from L2 for all of them instead of once per row.
    [[nodiscard]] virtual bool column_operands() const noexcept { return false; }
    /// With long_row_block_threads: the rows (bytes) it applies to, at least, and the slice a
    /// block takes (as few blocks per row as that allows). 256 KiB / 256 KiB unless an op says
    /// otherwise (layernorm, docs/perf/kernels.md#layernorm-register-tails: fp32 128 KiB slices
    /// with register tails from 128 KiB rows, bf16 32 KiB slices of 256 KiB rows).
    [[nodiscard]] virtual std::int64_t long_row_min_bytes(dtype) const noexcept {
        return 256 * 1024;
    }
    [[nodiscard]] virtual std::int64_t long_row_slice_bytes(dtype) const noexcept {
        return 256 * 1024;
    }
    /// Whether a staged slice over 112 KiB (one row per block, blocks of at most 512 threads)
    /// stages 96 KiB and keeps its tail in registers, two blocks a SM (else staged whole, one
    /// block a SM); the hand-set key tma_reg_tail overrides. H200, layernorm
    /// (docs/perf/kernels.md#layernorm-register-tails): 6 of 6 such configs gained 1.7-26 points
    /// (fp32 1024x131072 clusters of 4, 256 threads: 67.5 -> 88.0 %).
    [[nodiscard]] virtual bool slice_tails_two_blocks() const noexcept { return false; }
    /// Whether the cached form (the streaming form of a streaming op), cluster 1, takes rows
    /// that vec does not divide: aligned vectors with a scalar head and tail per row (RAGGED).
    [[nodiscard]] virtual bool ragged_rows() const noexcept { return false; }
    /// Whether the staged form (smem_tma, one row per block, no cluster) takes such rows too:
    /// the row's aligned span staged, the neighbours' places masked (tma.cuh).
    [[nodiscard]] virtual bool ragged_stage() const noexcept { return false; }
    /// Whether such a staged row's span over 112 KiB keeps its tail in registers, two blocks a
    /// SM, as an aligned slice does (slice_tails_two_blocks, tma_reg_tail).
    [[nodiscard]] virtual bool ragged_tails() const noexcept { return false; }
    /// Bytes a staged slice takes in shared memory: cols / cluster elements, or a ragged row's
    /// aligned span (vectors that vec does not divide the row into).
    [[nodiscard]] static std::int64_t slice_bytes(const config& c, const problem& p);
    /// The candidate kernel, after the prelude, the config's constants and row_common_source.
    [[nodiscard]] virtual const char* body() const noexcept = 0;
    /// The reference kernel (one 256-thread block per row, double accumulation).
    [[nodiscard]] virtual const char* reference_body() const noexcept = 0;

private:
    /// A valid regs-stage config for any shape, from c's keys (see row_op.cpp).
    [[nodiscard]] config any_shape_default(config c, const problem& p) const;
    [[nodiscard]] bool valid_smem(const config& c, const problem& p, std::string* why) const;
    /// Dynamic shared memory of the staged form: one slice, two with rows in turn.
    [[nodiscard]] std::int64_t smem_bytes(const config& c, const problem& p) const;
    /// Rounds of threads_per_row 16-byte vectors a staged slice over 226 KiB keeps in
    /// registers (its tail; 192 KiB staged), else 0.
    [[nodiscard]] std::int64_t reg_rounds(const config& c, const problem& p) const;
    /// Whether register tails bring the block to 96 KiB staged, two a SM (launch bounds say so).
    [[nodiscard]] bool two_blocks(const config& c, const problem& p) const;
    row_forms forms_;
};

} // namespace ktune::ops::detail
