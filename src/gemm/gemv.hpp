#pragma once
// ktune's GEMV for decode GEMMs of at most 8 rows (docs/perf/gemm.md#gemv-decode): a CUDA-core
// kernel compiled by NVRTC for the device's own arch (sm_80 and later;
// src/gemm/kernels/gemv.cuh) that streams the weights B once, its configs and the rules that
// reject one before compiling it, the order its configs are tried in, and the host side that
// launches it. "tn" problems in bf16 or fp16 (sm_80 and later) or fp8 e4m3 (sm_89 and later;
// D bf16), M <= 8, any fused epilogue, K a whole number of 16-byte chunks.
//
//   ktune::gemm::detail::gemv_kernel k({2, 1, 8}, 1, kernel_form_of(p));   // a block a row, M 1
//   k.run(p, a, b, d, stream);

#include "gemm/kernel_form.hpp"
#include "ktune/gemm/algo.hpp"
#include "ktune/gemm/problem.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

struct CUstream_st;

namespace ktune::gemm::detail {

using gemv_config = gemv_params;

/// What the rules and the launch need of the device.
struct gemv_device {
    int sm = 80;   ///< compute capability x 10
    int sms = 108; ///< multiprocessors
};
/// The current device's (sm_80 and later); nullopt elsewhere or without a GPU.
std::optional<gemv_device> gemv_device_here() noexcept;

/// Rows of A (M) the kernel takes at most: its sums are registers of every thread.
inline constexpr int gemv_max_rows = 8;
/// "block u2 b8" (a block a row of B, 2 loads in flight a thread, 8 blocks a SM).
std::string gemv_name(const gemv_config& c);
/// Why c cannot be built, or cannot run p on d; "" where it can.
std::string gemv_rejects(const gemv_config& c, const problem& p, const gemv_device& d);
/// The NVRTC source of c for M rows and `form` (the epilogue's .cuh and the kernel's).
std::string gemv_source(const gemv_config& c, int rows, kernel_form form = {});
inline constexpr const char* gemv_kernel_name = "ktune_gemv";

/// Every knob's values: form {1 a warp a row, 2 a block a row} x unroll {1, 2, 4, 8} x blocks a
/// SM {2, 4, 8, 16}: 32 configs.
std::vector<gemv_config> gemv_grid();
/// The grid's configs the rules keep for p on d, in the order a tune tries them: first the
/// forms that were fastest at decode shapes on an H200 (M <= 2: a block a row, 1 load in flight,
/// 8 blocks a SM; M > 2: a warp a row, 1 load, 16 blocks; docs/perf/gemm.md#gemv-decode), then
/// the rest nearest to them.
std::vector<gemv_config> gemv_ranked(const problem& p, const gemv_device& d);

/// One config compiled for the current device (cubin cache) for one M and form, loaded;
/// move-only.
class gemv_kernel {
public:
    /// Throws error{nvrtc}, error{cuda}, or error{unsupported} (no sm_80+ GPU).
    gemv_kernel(const gemv_config& c, int rows, kernel_form form = {});
    ~gemv_kernel();
    gemv_kernel(gemv_kernel&&) noexcept;
    gemv_kernel& operator=(gemv_kernel&&) noexcept;
    gemv_kernel(const gemv_kernel&) = delete;
    gemv_kernel& operator=(const gemv_kernel&) = delete;

    [[nodiscard]] const gemv_config& config() const noexcept;
    /// D = act(alpha op(A) op(B) + bias) on `stream`; `bias` (M values of D's type) where p has
    /// an epilogue. Throws error{input} where the rules refuse p, p is not of the kernel's M and
    /// form, A or B is not 16-byte aligned or the bias is missing; error{cuda} where the launch
    /// fails.
    void run(const problem& p, const void* a, const void* b, void* d, CUstream_st* stream,
             float alpha = 1.0f, const void* bias = nullptr) const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace ktune::gemm::detail
