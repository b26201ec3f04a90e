// Row-wise sum y[r] = sum_c x[r, c]: the reduction of the suite. Each thread issues unroll
// independent (predicated) loads before it adds any: bytes in flight per SM are what a
// bandwidth-bound reduction lives on. Short rows take several rows per warp (threads_per_row
// below 32).
#include "ops/builtin_ops.hpp"
#include "ops/kernel_sources.hpp"
#include "ops/row_op.hpp"
#include "ops/source_common.hpp"

#include <cmath>

namespace ktune::ops::detail {
namespace {

class rowsum final : public row_op {
public:
    rowsum() noexcept : row_op(row_forms::streaming) {}
    std::string_view name() const noexcept override { return "rowsum"; }
    // 5: rows that vec does not divide (aligned span, scalar head and tail).
    int version() const noexcept override { return 5; }
    std::string_view description() const noexcept override {
        return "sum reduction along the last dimension";
    }
    std::string_view torch_equivalent() const noexcept override { return "x.sum(dim=-1)"; }
    std::vector<kernel::argument_spec> arguments(const problem& p) const override {
        return detail::with_shape({detail::buffer_argument("x", p, "rows * cols", true, false),
                                   detail::buffer_argument("y", p, "rows", false, true)});
    }
    tolerance tolerance_for(const problem& p) const override {
        // Inputs are U(-2, 2): a sum's magnitude and its fp32 rounding error grow as sqrt(cols);
        // a result near zero needs an absolute floor of that size.
        const double scale = std::sqrt(static_cast<double>(p.shape.cols));
        return p.type == dtype::f32 ? tolerance{1e-5, 1e-5 * scale}
                                    : tolerance{2.0 / 256, 1e-3 * scale};
    }
    double bytes(const problem& p) const override {
        return static_cast<double>(p.shape.rows * (p.shape.cols + 1)) *
               static_cast<double>(size_of(p.type));
    }
    double flops(const problem& p) const override {
        return static_cast<double>(p.shape.rows * p.shape.cols);
    }

private:
    bool ragged_rows() const noexcept override { return true; }
    const char* body() const noexcept override { return kernels::rowsum; }
    const char* reference_body() const noexcept override { return kernels::rowsum_reference; }
};

} // namespace

const op& rowsum_op() {
    static const rowsum instance;
    return instance;
}

} // namespace ktune::ops::detail
