#pragma once
// Launching a user kernel from the config cache at run time (docs/formats.md#ktunekernel): the
// application links ktune, builds one launcher per kernel spec at start-up and calls launch() in
// its loop. The first launch of a problem resolves its config through the cache (exact -> nearest
// -> the spec's default) and evaluates the launch geometry; the first launch of a config compiles
// it with NVRTC (through the on-disk cubin cache) and loads its module. Every later launch is one
// hash lookup, an argument check and the driver's launch, so it can go into a CUDA graph (prepare()
// compiles ahead of capture).
//
//   ktune::kernel::launcher mm("examples/kernels/matmul/matmul.json");
//   const std::int64_t dims[] = {M, N, K};                 // the spec's dimension order
//   mm.launch(dims, {a, b, c, M32, N32, K32}, stream);     // args in the spec's order
//   std::puts(ktune::cache::to_string(mm.plan_for(dims).tier).data());   // "exact", ...
//
// A problem that no tuned entry answers is appended to a misses file so `ktune` can tune it
// later (docs/formats.md#ktunekernel_miss); with $KTUNE_CAPTURE set, launches are also captured
// with their data for offline tuning (docs/formats.md#ktunekernel_capture; slow by design).

#include "ktune/cache/index.hpp"
#include "ktune/cache/key.hpp"
#include "ktune/core/config.hpp"
#include "ktune/kernel/space.hpp"
#include "ktune/kernel/spec.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>

struct CUstream_st; // cudaStream_t and CUstream are CUstream_st*

namespace ktune::kernel {

namespace detail {
class launch_driver; // the driver seam (src/kernel/launch_driver.hpp)
}

/// One kernel argument as the application passes it: a device pointer or a scalar. Scalars keep
/// their C++ type, which must be the spec's dtype for that argument (no silent conversion).
class kernel_arg {
public:
    enum class arg_kind : std::uint8_t { pointer, scalar };

    template <class T>
    kernel_arg(const T* device_ptr) noexcept : kind_(arg_kind::pointer), size_(sizeof(void*)) {
        bits_.p = const_cast<T*>(device_ptr);
    }
    kernel_arg(std::nullptr_t) noexcept : kind_(arg_kind::pointer), size_(sizeof(void*)) {}
    kernel_arg(std::int32_t v) noexcept : kernel_arg(element_type::int32, 4) { bits_.i32 = v; }
    kernel_arg(std::int64_t v) noexcept : kernel_arg(element_type::int64, 8) { bits_.i64 = v; }
    kernel_arg(float v) noexcept : kernel_arg(element_type::fp32, 4) { bits_.f32 = v; }
    kernel_arg(double v) noexcept : kernel_arg(element_type::fp64, 8) { bits_.f64 = v; }
    /// A CUdeviceptr (an integer in the driver API) as a pointer argument.
    static kernel_arg device_ptr(std::uint64_t p) noexcept {
        kernel_arg a(nullptr);
        // The driver API spells device addresses as integers; the kernel receives the same bits.
        a.bits_.p = reinterpret_cast<void*>(p); // NOLINT(performance-no-int-to-ptr)
        return a;
    }

    [[nodiscard]] arg_kind kind() const noexcept { return kind_; }
    /// The scalar's type (meaningless for a pointer).
    [[nodiscard]] element_type type() const noexcept { return type_; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] void* pointer() const noexcept { return bits_.p; }
    /// The bytes the kernel receives (what cuLaunchKernel's kernelParams entry points to).
    [[nodiscard]] const void* address() const noexcept { return &bits_; }
    /// The scalar as int64 / double (for captures and messages).
    [[nodiscard]] std::int64_t as_int() const noexcept;
    [[nodiscard]] double as_double() const noexcept;

private:
    kernel_arg(element_type t, std::size_t size) noexcept
        : kind_(arg_kind::scalar), type_(t), size_(size) {}
    union {
        void* p = nullptr;
        std::int32_t i32;
        std::int64_t i64;
        float f32;
        double f64;
    } bits_;
    arg_kind kind_;
    element_type type_ = element_type::int64;
    std::size_t size_;
};

struct launcher_options {
    /// Tuned configs; empty: cache::default_cache_path() ($KTUNE_CACHE, else the XDG cache).
    std::filesystem::path cache_file;
    /// Compiled cubins; empty: compile::cubin_cache::default_dir() ($KTUNE_CUBIN_CACHE, ...).
    std::filesystem::path cubin_dir;
    /// Where misses are appended; empty: "<cache_file>.misses.jsonl".
    std::filesystem::path misses_file;
    /// false: misses are not written (a dry run, a plan printed without a GPU).
    bool record_misses = true;
    /// Capture directory; empty: $KTUNE_CAPTURE (unset: no capture).
    std::filesystem::path capture_dir;
    /// The environment of the key (arch, toolkit, driver); none: cache::environment::current().
    /// Set it to plan without a GPU (tests, a build machine); the arch also picks device_limits.
    std::optional<cache::environment> env;
    /// The driver; null: the CUDA driver (src/kernel/launch_driver_cuda.cpp).
    std::shared_ptr<detail::launch_driver> driver;
};

/// What a problem launches with.
struct launch_plan {
    problem prob;
    cache::cache_key key;                                     ///< kernel_cache_key(spec, prob, env)
    cache::lookup_tier tier = cache::lookup_tier::op_default; ///< who answered
    config cfg;
    geometry geo;                           ///< launch_of(spec, cfg, prob, limits)
    std::vector<std::int64_t> buffer_bytes; ///< per argument (0 for a scalar)
    /// Why a tuned entry was not used ("" when it was, or none applied): a config that is
    /// invalid for this problem (a nearest bucket's) falls back to the default.
    std::string fallback_reason;
};

/// Counters for tests and logs.
struct launcher_stats {
    std::uint64_t plans = 0;           ///< distinct problems resolved
    std::uint64_t nvrtc_compiles = 0;  ///< configs compiled by NVRTC in this process
    std::uint64_t cubin_hits = 0;      ///< configs whose cubin came from the on-disk cache
    std::uint64_t modules = 0;         ///< modules loaded
    std::uint64_t misses_recorded = 0; ///< lines appended to the misses file
    std::uint64_t captures = 0;        ///< launches captured
};

/// Thread-safe: any number of threads may launch through one launcher.
class launcher {
public:
    explicit launcher(kernel_spec spec, launcher_options o = {});
    explicit launcher(const std::filesystem::path& spec_file, launcher_options o = {});
    ~launcher();
    launcher(launcher&&) noexcept;
    launcher& operator=(launcher&&) noexcept;
    launcher(const launcher&) = delete;
    launcher& operator=(const launcher&) = delete;

    /// The plan of a problem given as its dimensions in the spec's order (the hot path: one hash
    /// lookup once resolved). Throws error{input} for a wrong dimension count or a value < 1.
    /// The reference stays valid as long as the launcher.
    const launch_plan& plan_for(std::span<const std::int64_t> dims);
    /// The same from named dimensions (each of the spec's, nothing else).
    const launch_plan& plan_for(const problem& p);

    /// Resolves and compiles ahead of time (before a CUDA graph capture, for instance).
    const launch_plan& prepare(std::span<const std::int64_t> dims);

    /// Launches on `stream` with args in the spec's argument order. Throws error{input} naming
    /// the argument for a wrong count or kind or a scalar of another type than the spec's;
    /// error{nvrtc} when the config does not compile; error{cuda} when the driver refuses.
    void launch(std::span<const std::int64_t> dims, std::span<const kernel_arg> args,
                CUstream_st* stream);
    void launch(std::span<const std::int64_t> dims, std::initializer_list<kernel_arg> args,
                CUstream_st* stream) {
        launch(dims, std::span<const kernel_arg>(args.begin(), args.size()), stream);
    }
    void launch(const problem& p, std::span<const kernel_arg> args, CUstream_st* stream);

    [[nodiscard]] const kernel_spec& spec() const noexcept;
    [[nodiscard]] const cache::environment& environment() const noexcept;
    /// spec_hash(spec): the op_version of every key.
    [[nodiscard]] const std::string& hash() const noexcept;
    [[nodiscard]] const std::filesystem::path& misses_file() const noexcept;
    /// Empty when capture is off.
    [[nodiscard]] const std::filesystem::path& capture_dir() const noexcept;
    [[nodiscard]] launcher_stats stats() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// The cache key of a user kernel's problem: the one derivation the launcher looks up and a
/// tune of the kernel files its winner under. op = the spec's name, op_version = spec_hash (spec
/// text + sources + local headers), dtype = kernel_dtype(spec), bucket = the problem's bucket
/// (bucket_of) in the spec's dimension order, then the environment's arch, toolkit, driver and
/// protocol.
cache::cache_key kernel_cache_key(const kernel_spec& s, const problem& p,
                                  const cache::environment& env);
/// The element types of the buffer arguments, each once, in argument order, joined by '+'
/// ("fp32", "bf16+fp32"); "none" for a kernel without buffers.
std::string kernel_dtype(const kernel_spec& s);

} // namespace ktune::kernel
