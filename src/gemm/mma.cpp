#include "gemm/mma.hpp"

#include "core/driver_api.hpp"
#include "gemm/kernel_sources.hpp"
#include "gemm/own_module.hpp"
#include "gemm/rank_by_cost.hpp"
#include "ktune/core/error.hpp"

#include <cuda.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace ktune::gemm::detail {
namespace {

template <class Fn>
Fn need(const char* symbol) {
    return ktune::detail::need_driver_fn<Fn>("mma GEMM", symbol);
}

void check(CUresult rc, const char* call, std::string_view what) {
    ktune::detail::check_driver(rc, "mma GEMM", call, what);
}

bool one_of(int v, std::initializer_list<int> values) {
    return std::find(values.begin(), values.end(), v) != values.end();
}

// Accumulators a thread holds: (bm / warps_m / 16) x (bn / warps_n / 8) m16n8 tiles of 4.
int accumulators(const mma_config& c) noexcept {
    return (c.bm / c.warps_m / 16) * (c.bn / c.warps_n / 8) * 4;
}

} // namespace

std::optional<mma_device> mma_device_here() noexcept {
    const std::optional<device_limits> l = device_limits_here();
    if (!l || l->sm < 80) return std::nullopt;
    return mma_device{l->sm, l->sms, l->max_shared};
}

std::size_t mma_shared_bytes(const mma_config& c) noexcept {
    // Rows of bk elements and 8 of padding (the fragment loads' banks), bf16 / fp16.
    return static_cast<std::size_t>(c.stages) * static_cast<std::size_t>(c.bm + c.bn) *
           static_cast<std::size_t>(c.bk + 8) * 2;
}

std::string mma_name(const mma_config& c) {
    return fmt::format("bm{} bn{} bk{} w{}x{} s{}", c.bm, c.bn, c.bk, c.warps_m, c.warps_n,
                       c.stages);
}

std::string mma_rejects(const mma_config& c, const problem& p, const mma_device& d) {
    if (!one_of(c.bm, {64, 128, 256})) return fmt::format("bm {}: 64, 128 or 256", c.bm);
    if (!one_of(c.bn, {32, 64, 128, 256})) return fmt::format("bn {}: 32, 64, 128 or 256", c.bn);
    if (!one_of(c.bk, {32, 64})) return fmt::format("bk {}: 32 or 64", c.bk);
    if (!one_of(c.warps_m, {1, 2, 4}) || !one_of(c.warps_n, {1, 2, 4}))
        return fmt::format("warps {} x {}: 1, 2 or 4 each way", c.warps_m, c.warps_n);
    if (c.stages < 2 || c.stages > 5) return fmt::format("stages {}: 2 to 5", c.stages);
    // These values leave a warp whole m16 x n8 fragments (bm / 4 >= 16, bn / 4 >= 8).
    // A thread's accumulators beside its fragments within 255 registers (no spills under
    // ptxas -v at 128).
    if (accumulators(c) > 128)
        return fmt::format("{} accumulators a thread: over 128, they would spill", accumulators(c));
    if (mma_shared_bytes(c) > d.max_shared)
        return fmt::format("{} bytes of shared memory, the device allows {}", mma_shared_bytes(c),
                           d.max_shared);
    if (d.sm < 80) return fmt::format("sm_{}: mma.sync in bf16 needs sm_80 or later", d.sm);
    if (p.type != dtype::bf16 && p.type != dtype::fp16)
        return fmt::format("{}: bf16 or fp16 only (fp8 stays with cuBLASLt)", to_string(p.type));
    if (p.op != layout::tn)
        return fmt::format("layout {}: tn only (both operands K-major)", to_string(p.op));
    if (p.k % 8 != 0) return fmt::format("K {} is not a multiple of 8 (16-byte copies)", p.k);
    if (p.m > 0x7fffffff || p.n > 0x7fffffff || p.k > 0x7fffffff)
        return "a dimension over 2^31 - 1";
    if ((p.m + c.bn - 1) / c.bn > 65535)
        return fmt::format("M {} over bn {}: more than 65535 column tiles (the grid's y)", p.m,
                           c.bn);
    return "";
}

std::string mma_source(const mma_config& c, kernel_form form) {
    return fmt::format("#define BM {}\n#define BN {}\n#define BK {}\n#define WM {}\n#define WN {}\n"
                       "#define STAGES {}\n#define IN_F16 {}\n#define EPILOGUE {}\n{}{}",
                       c.bm, c.bn, c.bk, c.warps_m, c.warps_n, c.stages,
                       form.type == dtype::fp16 ? 1 : 0, static_cast<int>(form.epi),
                       kernels::gemm_epilogue, kernels::mma_gemm);
}

std::vector<mma_config> mma_grid() {
    std::vector<mma_config> out;
    for (int bm : {64, 128, 256})
        for (int bn : {32, 64, 128, 256})
            for (int bk : {32, 64})
                for (int wm : {1, 2, 4})
                    for (int wn : {1, 2, 4})
                        for (int stages = 2; stages <= 5; ++stages)
                            out.push_back({bm, bn, bk, wm, wn, stages});
    return out;
}

double mma_cost(const mma_config& c, const problem& p, const mma_device& d) {
    const double tiles = std::ceil(double(p.n) / c.bm) * std::ceil(double(p.m) / c.bn);
    const double threads = 32.0 * c.warps_m * c.warps_n;
    // Blocks a SM holds: shared memory, threads, and registers (~ accumulators + 64 a thread).
    const double by_smem = std::floor(double(d.max_shared) / double(mma_shared_bytes(c)));
    const double by_threads = std::floor(2048.0 / threads);
    const double by_regs = std::floor(65536.0 / (threads * (accumulators(c) + 64.0)));
    const double blocks = std::max(1.0, std::min({by_smem, by_threads, by_regs}));
    // A tile's MMA work, inflated by its operand bytes a FLOP from global memory (bm + bn per
    // bm bn) and a warp's from shared memory (fragment loads per MMA), and by too few warps or
    // stages to hide the copies' latency.
    const double tm = double(c.bm) / c.warps_m, tn = double(c.bn) / c.warps_n;
    const double k = std::ceil(double(p.k) / c.bk) * c.bk;
    const double work = double(c.bm) * c.bn * k;
    const double global = 1.0 + 24.0 * (1.0 / c.bm + 1.0 / c.bn);
    const double shared = 1.0 + 8.0 * (1.0 / tm + 1.0 / tn);
    const double warps = c.warps_m * c.warps_n * std::min(blocks, 2.0);
    const double latency = (c.stages == 2 ? 1.3 : 1.0) * (warps < 4 ? 1.5 : 1.0);
    const double waves = std::ceil(tiles / (d.sms * blocks));
    return waves * blocks * work * global * shared * latency / std::min(blocks, 2.0);
}

std::vector<mma_config> mma_ranked(const problem& p, const mma_device& d) {
    std::vector<mma_config> cs;
    for (const mma_config& c : mma_grid())
        if (mma_rejects(c, p, d).empty()) cs.push_back(c);
    return rank_by_cost(cs, [&](const mma_config& c) { return mma_cost(c, p, d); });
}

struct mma_kernel::impl {
    mma_config cfg;
    kernel_form form;
    mma_device dev;
    std::optional<own_module> loaded;
    decltype(&cuLaunchKernel) launch = need<decltype(&cuLaunchKernel)>("cuLaunchKernel");
    std::optional<problem> checked; // the last problem the rules passed
};

mma_kernel::mma_kernel(const mma_config& c, kernel_form form) : impl_(std::make_unique<impl>()) {
    impl_->cfg = c;
    impl_->form = form;
    const std::optional<mma_device> here = mma_device_here();
    if (!here)
        throw error(error_kind::unsupported,
                    "mma GEMM: needs an sm_80 or later GPU (mma.sync in bf16); none here");
    impl_->dev = *here;
    impl_->loaded.emplace(mma_source(c, form), mma_kernel_name, fmt::format("sm_{}", here->sm),
                          mma_shared_bytes(c), fmt::format("mma GEMM {}", mma_name(c)));
}

mma_kernel::~mma_kernel() = default;
mma_kernel::mma_kernel(mma_kernel&&) noexcept = default;
mma_kernel& mma_kernel::operator=(mma_kernel&&) noexcept = default;

const mma_config& mma_kernel::config() const noexcept {
    return impl_->cfg;
}

void mma_kernel::run(const problem& p, const void* a, const void* b, void* d, CUstream_st* stream,
                     float alpha, const void* bias) const {
    const mma_config& c = impl_->cfg;
    if (!impl_->checked || !(*impl_->checked == p)) {
        check_problem(fmt::format("mma GEMM {}", mma_name(c)), mma_rejects(c, p, impl_->dev),
                      impl_->form, p);
        impl_->checked = p;
    }
    if (p.epi != epilogue::none && bias == nullptr)
        throw_missing_bias(fmt::format("mma GEMM {}", mma_name(c)), p);
    // D (M x N column-major) is OUT (N x M row-major): P = B (N rows of K), Q = A (M rows of K).
    const void* pp = b;
    const void* qq = a;
    void* out = d;
    int rows = static_cast<int>(p.n), cols = static_cast<int>(p.m), k = static_cast<int>(p.k);
    const void* bias_arg = bias;
    std::array<void*, 8> args{&pp, &qq, &out, &rows, &cols, &k, &alpha, &bias_arg};
    const auto grid_x = static_cast<unsigned>((p.n + c.bm - 1) / c.bm);
    const auto grid_y = static_cast<unsigned>((p.m + c.bn - 1) / c.bn);
    check(impl_->launch(impl_->loaded->function(), grid_x, grid_y, 1,
                        static_cast<unsigned>(32 * c.warps_m * c.warps_n), 1, 1,
                        static_cast<unsigned>(mma_shared_bytes(c)), stream, args.data(), nullptr),
          "cuLaunchKernel", mma_name(c));
}

} // namespace ktune::gemm::detail
