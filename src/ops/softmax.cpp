// Row softmax y = exp(x - max) / sum(exp(x - max)) along cols. A group of threads_per_row
// threads owns a row; the row is cached in registers (one DRAM read), or read twice with an
// online max/sum in the first pass, or, too long for one block, split across a thread-block
// cluster whose blocks each cache a slice and combine their (max, sum) pairs through DSMEM.
#include "ops/builtin_ops.hpp"
#include "ops/kernel_sources.hpp"
#include "ops/row_op.hpp"
#include "ops/source_common.hpp"

namespace ktune::ops::detail {
namespace {

class softmax final : public row_op {
public:
    softmax() noexcept : row_op(row_forms::cached) {}
    std::string_view name() const noexcept override { return "softmax"; }
    // 10: such rows staged too (tma.cuh's span); 9: rows that vec does not divide, cached with a
    // scalar head and tail; 8: staged rows take
    // exp once (7: the exp_once axis, docs/perf/kernels.md#softmax-exp-once; 6: smem_refill, since
    // removed, docs/perf/kernels.md#smem-refill).
    int version() const noexcept override { return 10; }
    std::string_view description() const noexcept override {
        return "row softmax along the last dimension";
    }
    std::string_view torch_equivalent() const noexcept override {
        return "torch.softmax(x, dim=-1)";
    }
    std::vector<kernel::argument_spec> arguments(const problem& p) const override {
        return detail::with_shape({detail::buffer_argument("x", p, "rows * cols", true, false),
                                   detail::buffer_argument("y", p, "rows * cols", false, true)});
    }
    bool valid(const config& c, const problem& p, std::string* why = nullptr) const override {
        if (!row_op::valid(c, p, why)) return false;
        // exp_once is a hand-set key, not an axis: the form follows the stage (see the body).
        if (exp_once(c) && !c.get<bool>("cache_row")) {
            if (why) *why = "exp_once keeps e over a cached or staged row (cache_row true)";
            return false;
        }
        if (exp_once(c) && ragged(c, p)) {
            if (why) *why = "exp_once: vec must divide cols";
            return false;
        }
        return true;
    }
    tolerance tolerance_for(const problem& p) const override {
        // fp32: ex2.approx's few-ulp error; bf16: two ulps of the output's 8-bit mantissa (with
        // exp_once, e rounded to fp16 first: 2^-11 relative, or 3e-8 absolute below 2^-14).
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
    static bool exp_once(const config& c) {
        return c.find("exp_once") != nullptr && c.get<bool>("exp_once");
    }
    // fp32 only: bf16 measured 72-78 % that way (docs/perf/kernels.md#long-row-forms: one block per
    // row instead).
    bool long_rows_in_registers(dtype t) const noexcept override { return t == dtype::f32; }
    // bf16: 0.1587 ms [0.1584, 0.1597] vs 1024 threads 0.1609 [0.1604, 0.1619] (H200).
    std::int64_t long_row_block_threads(dtype t) const noexcept override {
        return t == dtype::bf16 ? 512 : 0;
    }
    bool ragged_rows() const noexcept override { return true; }
    // Long odd rows staged too (tma.cuh's span): register-cached rows of 64-100 KiB reached
    // 52-60 % of the copy on the H200 (docs/perf/kernels.md#rows-of-odd-length).
    bool ragged_stage() const noexcept override { return true; }
    const char* body() const noexcept override { return kernels::softmax; }
    const char* reference_body() const noexcept override { return kernels::softmax_reference; }
};

} // namespace

const op& softmax_op() {
    static const softmax instance;
    return instance;
}

} // namespace ktune::ops::detail
