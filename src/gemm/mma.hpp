#pragma once
// ktune's GEMM for GPUs without wgmma (docs/perf/gemm.md#mma-fallback): an mma.sync kernel
// compiled by NVRTC for the device's own arch (sm_80 and later; src/gemm/kernels/mma_gemm.cuh),
// its configs and the rules that reject one before compiling it, a prior that ranks them, and
// the host side that launches it. "tn" problems in bf16 or fp16 with any fused epilogue and
// K % 8 == 0 (16-byte copies); fp8 stays with cuBLASLt.
//
//   ktune::gemm::detail::mma_kernel k({128, 128, 32, 2, 2, 3}, kernel_form_of(p));
//   k.run(p, a, b, d, stream);

#include "gemm/kernel_form.hpp"
#include "ktune/gemm/algo.hpp"
#include "ktune/gemm/problem.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct CUstream_st;

namespace ktune::gemm::detail {

using mma_config = mma_params;

/// What the rules and the prior need of the device.
struct mma_device {
    int sm = 80;                     ///< compute capability x 10
    int sms = 108;                   ///< multiprocessors
    std::size_t max_shared = 166912; ///< opt-in shared memory a block (A100)
};
/// The current device's, where it has mma.sync for bf16 (sm_80 and later); nullopt elsewhere or
/// without a GPU.
std::optional<mma_device> mma_device_here() noexcept;

/// Dynamic shared memory of a launch: the ring of padded rows.
std::size_t mma_shared_bytes(const mma_config& c) noexcept;
/// "bm128 bn128 bk32 w2x2 s3".
std::string mma_name(const mma_config& c);
/// Why c cannot be built, or cannot run p on d; "" where it can.
std::string mma_rejects(const mma_config& c, const problem& p, const mma_device& d);
/// The NVRTC source of c for `form` (the epilogue's .cuh and the kernel's, with defines).
std::string mma_source(const mma_config& c, kernel_form form = {});
inline constexpr const char* mma_kernel_name = "ktune_mma_gemm";

/// Every knob's values: bm {64, 128, 256} x bn {32, 64, 128, 256} x bk {32, 64} x warps
/// {1, 2, 4} x {1, 2, 4} x stages {2, 3, 4, 5}: 864 combinations before the rules.
std::vector<mma_config> mma_grid();
/// The prior's estimate of c's time on p (only the order means anything): waves of tiles over
/// the SMs, each as slow as its tensor-core work inflated by the operand bytes a FLOP of the
/// tile and a warp's share of it.
double mma_cost(const mma_config& c, const problem& p, const mma_device& d);
/// The grid's configs the rules keep for p on d, the prior's best first.
std::vector<mma_config> mma_ranked(const problem& p, const mma_device& d);

/// One config compiled for the current device (cubin cache) and loaded; move-only.
class mma_kernel {
public:
    /// Throws error{nvrtc}, error{cuda}, error{no_device}, or error{unsupported} (no sm_80+).
    explicit mma_kernel(const mma_config& c, kernel_form form = {});
    ~mma_kernel();
    mma_kernel(mma_kernel&&) noexcept;
    mma_kernel& operator=(mma_kernel&&) noexcept;
    mma_kernel(const mma_kernel&) = delete;
    mma_kernel& operator=(const mma_kernel&) = delete;

    [[nodiscard]] const mma_config& config() const noexcept;
    /// D = act(alpha op(A) op(B) + bias) on `stream`; `bias` (M values of D's type) where p has
    /// an epilogue. Throws error{input} where the rules refuse p or p is not of the kernel's form
    /// or its bias is missing, error{cuda} where the launch fails.
    void run(const problem& p, const void* a, const void* b, void* d, CUstream_st* stream,
             float alpha = 1.0f, const void* bias = nullptr) const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace ktune::gemm::detail
