#pragma once
// ktune's own Hopper GEMM (docs/perf/gemm.md#hopper-template): a TMA + wgmma kernel compiled by
// NVRTC for sm_90a (src/gemm/kernels/sm90_gemm.cuh), its configs, the rules that reject a
// config before compiling it, and the host side that loads it and launches it on a problem.
// "tn" problems of every type and epilogue the gemm op has (bf16, fp16, fp8 e4m3; bias, relu, gelu:
// docs/perf/gemm.md#hopper-types) whose K makes rows of whole 16 bytes (a TMA stride).
//
//   ktune::gemm::detail::sm90_kernel k(ktune::gemm::detail::sm90_default, kernel_form_of(p));
//   k.run(p, a, b, d, stream);

#include "gemm/kernel_form.hpp"
#include "ktune/gemm/algo.hpp"
#include "ktune/gemm/problem.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

struct CUstream_st;

namespace ktune::gemm::detail {

/// A config of the template: the public sm90_params (algo.hpp), which a cache entry holds.
using sm90_config = sm90_params;
/// The config bench_sm90 starts from: bn 256, 4 stages, 2 consumers, group 8, no cluster.
inline constexpr sm90_config sm90_default{256, 4, 2, 8, 1, 0};

/// What the rules and the prior need of the device.
struct sm90_device {
    int sms = 132;
    std::size_t max_shared = 232448; ///< opt-in shared memory a block (sm_90)
    double dram_gbs = 3352.3;        ///< theoretical DRAM bandwidth (H100 SXM: 2619 MHz x 5120 bit)
};
/// The current device's, where it is sm_90 (wgmma, TMA); nullopt elsewhere or without a GPU.
std::optional<sm90_device> sm90_device_here() noexcept;

/// Elements of K a slab row holds (one 128-byte swizzle atom): 64 for bf16 / fp16, 128 for fp8.
int sm90_bk(dtype t) noexcept;

/// Tile rows: 64 a consumer warpgroup.
int sm90_bm(const sm90_config& c) noexcept;
/// Dynamic shared memory of a launch: the ring, its barriers and the alignment slack.
std::size_t sm90_shared_bytes(const sm90_config& c) noexcept;
/// "bn256 s4 c2 g8 x2 e4 t0" (" k4" where it splits K in 4; "x2b" where the cluster shares B).
std::string sm90_name(const sm90_config& c);
/// Most slices of K a config may split into.
inline constexpr int sm90_max_splits = 16;
/// Largest split-K workspace a config may need (a decode GEMM's is a few MiB).
inline constexpr std::size_t sm90_max_workspace = std::size_t{256} << 20;
/// Bytes of device memory c's split-K needs on p (fp32 partials and counters); 0 unsplit.
std::size_t sm90_workspace_bytes(const sm90_config& c, const problem& p) noexcept;
/// Why c cannot be built, or cannot run p with `max_shared` bytes of opt-in shared memory a
/// block; "" where it can. Checked before compiling (docs/perf/gemm.md#hopper-template).
std::string sm90_rejects(const sm90_config& c, const problem& p, std::size_t max_shared);
/// A bug planted in the kernel to test the tuner's correctness gate (`ktune tune gemm
/// --inject-faults`, docs/perf/gemm.md#hopper-faults): the last K slab of every unit left out of
/// the sum, or the last tile never stored.
enum class sm90_fault : std::uint8_t { none, skip_slab, drop_tile };
/// "none", "skip_slab", "drop_tile".
const char* to_string(sm90_fault f) noexcept;
/// Which fault, if any, a tune that plants them in `rate` of the template's candidates plants in
/// c: a hash of c and `seed`, so a re-run plants the same ones.
sm90_fault sm90_fault_for(const sm90_config& c, double rate, std::uint64_t seed) noexcept;

/// The NVRTC source of c for `form` (the .cuh with its defines and the wgmma wrapper of c's N and
/// the form's type), with `fault` planted.
std::string sm90_source(const sm90_config& c, kernel_form form = {},
                        sm90_fault fault = sm90_fault::none);
/// The kernel's name in that source.
inline constexpr const char* sm90_kernel_name = "ktune_sm90_gemm";

/// One config compiled (cubin cache), loaded into the current context and ready to launch.
/// Move-only; the module is unloaded with it. One caller at a time (it keeps the last call's
/// tensor maps), as the session and the tuner's runner that own one.
class sm90_kernel {
public:
    /// Throws error{nvrtc} (the compile log), error{cuda}, error{no_device} (no driver), or
    /// error{unsupported} (the device is not sm_90).
    explicit sm90_kernel(const sm90_config& c, kernel_form form = {},
                         sm90_fault fault = sm90_fault::none);
    ~sm90_kernel();
    sm90_kernel(sm90_kernel&&) noexcept;
    sm90_kernel& operator=(sm90_kernel&&) noexcept;
    sm90_kernel(const sm90_kernel&) = delete;
    sm90_kernel& operator=(const sm90_kernel&) = delete;

    [[nodiscard]] const sm90_config& config() const noexcept;
    /// Blocks (clusters, where cluster > 1) resident at once: the persistent grid's size.
    [[nodiscard]] int resident_units() const noexcept;
    /// D = act(alpha op(A) op(B) + bias), column-major as in problem.hpp, on `stream`; `bias`
    /// (M values of D's type) where p has an epilogue. Throws error{input} where
    /// sm90_rejects(p) says why, where p is not of the kernel's form or its bias is missing,
    /// error{cuda} where the launch fails. `b_is` weights: B's first slabs are requested before
    /// the kernel waits for the one before it (problem.hpp's b_operand).
    void run(const problem& p, const void* a, const void* b, void* d, CUstream_st* stream,
             float alpha = 1.0f, const void* bias = nullptr,
             b_operand b_is = b_operand::written_before) const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace ktune::gemm::detail
