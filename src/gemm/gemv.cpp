#include "gemm/gemv.hpp"

#include "core/driver_api.hpp"
#include "gemm/kernel_sources.hpp"
#include "gemm/own_module.hpp"
#include "ktune/core/error.hpp"

#include <cuda.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace ktune::gemm::detail {
namespace {

bool one_of(int v, std::initializer_list<int> values) {
    return std::find(values.begin(), values.end(), v) != values.end();
}

// How far c is from the form measured fastest for M rows (gemv_ranked's order).
int distance(const gemv_config& c, std::int64_t rows) {
    const gemv_config best = rows <= 2 ? gemv_config{2, 1, 8} : gemv_config{1, 1, 16};
    const auto steps = [](int a, int b) {
        return static_cast<int>(std::lround(std::abs(std::log2(double(a) / double(b)))));
    };
    return 4 * (c.form != best.form ? 1 : 0) + steps(c.unroll, best.unroll) +
           steps(c.blocks, best.blocks);
}

} // namespace

std::optional<gemv_device> gemv_device_here() noexcept {
    const std::optional<device_limits> l = device_limits_here();
    if (!l || l->sm < 80) return std::nullopt;
    return gemv_device{l->sm, l->sms};
}

std::string gemv_name(const gemv_config& c) {
    return fmt::format("{} u{} b{}", c.form == 1 ? "warp" : "block", c.unroll, c.blocks);
}

std::string gemv_rejects(const gemv_config& c, const problem& p, const gemv_device& d) {
    if (!one_of(c.form, {1, 2}))
        return fmt::format("form {}: 1 (a warp a row) or 2 (a block)", c.form);
    if (!one_of(c.unroll, {1, 2, 4, 8})) return fmt::format("unroll {}: 1, 2, 4 or 8", c.unroll);
    if (!one_of(c.blocks, {2, 4, 8, 16}))
        return fmt::format("blocks {}: 2, 4, 8 or 16 a SM", c.blocks);
    if (d.sm < 80) return fmt::format("sm_{}: bf16 conversions need sm_80 or later", d.sm);
    if (p.type == dtype::fp8_e4m3 && d.sm < 89)
        return fmt::format("sm_{}: fp8 conversions need sm_89 or later", d.sm);
    if (p.op != layout::tn)
        return fmt::format("layout {}: tn only (both operands K-major)", to_string(p.op));
    if (p.m > gemv_max_rows)
        return fmt::format("M {}: the GEMV takes at most {} rows (the tensor cores' kernels take "
                           "more)",
                           p.m, gemv_max_rows);
    if (const std::int64_t per = 16 / static_cast<std::int64_t>(input_bytes(p.type));
        p.k % per != 0)
        return fmt::format("K {} is not a multiple of {} (16-byte loads)", p.k, per);
    if (p.n > 0x7fffffff || p.k > 0x7fffffff) return "a dimension over 2^31 - 1";
    return "";
}

std::string gemv_source(const gemv_config& c, int rows, kernel_form form) {
    return fmt::format("#define MROWS {}\n#define FORM {}\n#define UNROLL {}\n#define IN_F16 {}\n"
                       "#define IN_FP8 {}\n#define EPILOGUE {}\n{}{}",
                       rows, c.form, c.unroll, form.type == dtype::fp16 ? 1 : 0,
                       form.type == dtype::fp8_e4m3 ? 1 : 0, static_cast<int>(form.epi),
                       kernels::gemm_epilogue, kernels::gemv);
}

std::vector<gemv_config> gemv_grid() {
    std::vector<gemv_config> out;
    for (int form : {1, 2})
        for (int unroll : {1, 2, 4, 8})
            for (int blocks : {2, 4, 8, 16})
                out.push_back({form, unroll, blocks});
    return out;
}

std::vector<gemv_config> gemv_ranked(const problem& p, const gemv_device& d) {
    std::vector<gemv_config> cs;
    for (const gemv_config& c : gemv_grid())
        if (gemv_rejects(c, p, d).empty()) cs.push_back(c);
    std::stable_sort(cs.begin(), cs.end(), [&](const gemv_config& x, const gemv_config& y) {
        return distance(x, p.m) < distance(y, p.m);
    });
    return cs;
}

struct gemv_kernel::impl {
    gemv_config cfg;
    int rows = 1;
    kernel_form form;
    gemv_device dev;
    std::optional<own_module> loaded;
    decltype(&cuLaunchKernel) launch =
        ktune::detail::need_driver_fn<decltype(&cuLaunchKernel)>("GEMV", "cuLaunchKernel");
    std::optional<problem> checked; // the last problem the rules passed
};

gemv_kernel::gemv_kernel(const gemv_config& c, int rows, kernel_form form)
    : impl_(std::make_unique<impl>()) {
    impl_->cfg = c;
    impl_->rows = rows;
    impl_->form = form;
    const std::optional<gemv_device> here = gemv_device_here();
    if (!here) throw error(error_kind::unsupported, "GEMV: needs an sm_80 or later GPU; none here");
    impl_->dev = *here;
    impl_->loaded.emplace(gemv_source(c, rows, form), gemv_kernel_name,
                          fmt::format("sm_{}", here->sm), 0,
                          fmt::format("GEMV {} M {}", gemv_name(c), rows));
}

gemv_kernel::~gemv_kernel() = default;
gemv_kernel::gemv_kernel(gemv_kernel&&) noexcept = default;
gemv_kernel& gemv_kernel::operator=(gemv_kernel&&) noexcept = default;

const gemv_config& gemv_kernel::config() const noexcept {
    return impl_->cfg;
}

void gemv_kernel::run(const problem& p, const void* a, const void* b, void* d, CUstream_st* stream,
                      float alpha, const void* bias) const {
    const gemv_config& c = impl_->cfg;
    // Named only where a call fails: this is every launch's path.
    const auto who = [&] { return fmt::format("GEMV {}", gemv_name(c)); };
    if (!impl_->checked || !(*impl_->checked == p)) {
        std::string why = gemv_rejects(c, p, impl_->dev);
        if (why.empty() && p.m != impl_->rows)
            why = fmt::format("M {}: this kernel was compiled for M {}", p.m, impl_->rows);
        check_problem(who(), why, impl_->form, p);
        impl_->checked = p;
    }
    if (p.epi != epilogue::none && bias == nullptr) throw_missing_bias(who(), p);
    if (((reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b)) & 15) != 0)
        throw error(error_kind::input,
                    fmt::format("{}: A and B must be 16-byte aligned (16-byte loads)", who()));
    const void* aa = a;
    const void* bb = b;
    void* dd = d;
    int n = static_cast<int>(p.n), k = static_cast<int>(p.k);
    const void* bias_arg = bias;
    std::array<void*, 7> args{&aa, &bb, &dd, &n, &k, &alpha, &bias_arg};
    const auto grid = static_cast<unsigned>(c.blocks * impl_->dev.sms);
    ktune::detail::check_driver(impl_->launch(impl_->loaded->function(), grid, 1, 1, 256, 1, 1, 0,
                                              stream, args.data(), nullptr),
                                "GEMV", "cuLaunchKernel", gemv_name(c));
}

} // namespace ktune::gemm::detail
