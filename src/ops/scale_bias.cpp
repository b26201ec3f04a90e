// In-place affine x[r, c] = x[r, c] * gamma[c] + beta[c] ("scale_bias_", PyTorch's trailing
// underscore): the built-in whose output aliases its input. It exists so the tuner's in-place
// handling is exercised for real: every timed launch must start from the same inputs (the
// runtime restores them outside the timed window), and the check compares against a reference
// that reads a pristine copy. Self-contained (own prelude) so it does not depend on the row
// ops' shared device code.
#include "ops/builtin_ops.hpp"
#include "ops/kernel_sources.hpp"
#include "ops/source_common.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ktune::ops::detail {
namespace {

std::string prelude_of(dtype d) {
    return std::string("#define KTUNE_BF16 ") + (d == dtype::bf16 ? "1\n" : "0\n") +
           kernels::scale_bias_prelude;
}

class scale_bias final : public op {
public:
    std::string_view name() const noexcept override { return "scale_bias_"; }
    int version() const noexcept override { return 3; }
    std::string_view description() const noexcept override {
        return "in-place x = x * gamma + beta per column (output aliases the input)";
    }
    std::string_view torch_equivalent() const noexcept override {
        return "torch.addcmul(beta, x, gamma, out=x)";
    }
    std::vector<param_axis> axes() const override {
        return {{"block", ints({64, 128, 256, 512, 1024}), "threads per block"},
                {"vec", ints({1, 2, 4, 8}), "elements per load (16 bytes at most)"},
                {"unroll", ints({1, 2, 4, 8}), "vectors in flight per thread"}};
    }
    bool valid(const config& c, const problem& p, std::string* why) const override {
        const auto vec = c.get<std::int64_t>("vec");
        const auto fail = [why](const char* m) {
            if (why) *why = m;
            return false;
        };
        if (vec * static_cast<std::int64_t>(size_of(p.type)) > 16)
            return fail("vector wider than 16 bytes");
        // Rows that vec does not divide: flat vectors, gamma and beta shifted (RAGGED).
        if (p.shape.cols % vec != 0 && p.shape.cols < vec)
            return fail("vec wider than a row that it does not divide");
        return true;
    }
    // The widest vector the row allows (16 bytes; odd rows take it too, as flat vectors), 128
    // threads, one vector in flight: within 1 % of the best of every 16-byte config on the H200
    // at bf16 4096x32001 / 4096x50257 / 8192x11008 and fp32 4096x32001, where the former default
    // (256 threads, 4 elements or 1 on odd rows) ran 31-93 % of the copy
    // (docs/perf/kernels.md#scale-bias-packed).
    config default_config(const problem& p) const override {
        std::int64_t vec = 16 / static_cast<std::int64_t>(size_of(p.type));
        while (vec > 1 && p.shape.cols % vec != 0 && p.shape.cols < vec)
            vec /= 2;
        return {{"block", std::int64_t{128}}, {"vec", vec}, {"unroll", std::int64_t{1}}};
    }
    std::string source(const config& c, const problem& p) const override {
        return prelude_of(p.type) +
               fmt::format("#define BLOCK {}\n#define VEC {}\n#define UNROLL {}\n"
                           "constexpr long long ROWS = {};\nconstexpr int C = {};\n",
                           c.get<std::int64_t>("block"), c.get<std::int64_t>("vec"),
                           c.get<std::int64_t>("unroll"), p.shape.rows, p.shape.cols) +
               ragged_source(c, p) + kernels::scale_bias;
    }
    std::string reference_source(const problem& p) const override {
        return prelude_of(p.type) + kernels::scale_bias_reference;
    }
    launch_geometry geometry(const config& c, const problem& p) const override {
        const auto block = c.get<std::int64_t>("block");
        const auto per_block = block * c.get<std::int64_t>("unroll");
        const std::int64_t nv = p.shape.rows * p.shape.cols / c.get<std::int64_t>("vec");
        launch_geometry g;
        g.grid[0] =
            static_cast<unsigned>(std::max<std::int64_t>(1, (nv + per_block - 1) / per_block));
        g.block[0] = static_cast<unsigned>(block);
        return g;
    }
    launch_geometry reference_geometry(const problem&) const override {
        launch_geometry g;
        g.grid[0] = 1024;
        g.block[0] = 256;
        return g;
    }
    std::vector<kernel::argument_spec> arguments(const problem& p) const override {
        // x is read and written in place: filled like an input, checked like an output.
        return detail::with_shape({detail::buffer_argument("x", p, "rows * cols", true, true),
                                   detail::buffer_argument("gamma", p, "cols", true, false),
                                   detail::buffer_argument("beta", p, "cols", true, false)});
    }
    tolerance tolerance_for(const problem& p) const override {
        // One fma in fp32 (|x*g| <= 4): a few 1e-7 absolute; bf16: the output's rounding.
        return p.type == dtype::f32 ? tolerance{1e-6, 1e-6} : tolerance{2.0 / 256, 1e-5};
    }
    double bytes(const problem& p) const override {
        return static_cast<double>(2 * p.shape.rows * p.shape.cols + 2 * p.shape.cols) *
               static_cast<double>(size_of(p.type));
    }
    double flops(const problem& p) const override {
        return 2.0 * static_cast<double>(p.shape.rows * p.shape.cols);
    }
    // Rows are baked into the source (the bound NV), so they are part of the key, rounded up.
    shape2d bucket(const shape2d& s) const override { return {next_pow2(s.rows), s.cols}; }
};

} // namespace

const op& scale_bias_op() {
    static const scale_bias instance;
    return instance;
}

} // namespace ktune::ops::detail
