#pragma once
// Private: the launcher's state, shared by launcher.cpp (plans, compile, launch) and
// launcher_capture.cpp (the capture path).
#include "core/fnv1a.hpp"
#include "kernel/launch_driver.hpp"
#include "ktune/cache/index.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/kernel/launcher.hpp"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>

namespace ktune::kernel::detail {

/// A problem's dimensions as a fixed-size key: the hot path hashes and compares it without
/// allocating.
struct dims_key {
    static constexpr std::size_t max_dims = 8;
    std::array<std::int64_t, max_dims> v{};
    std::size_t n = 0;
    bool operator==(const dims_key& o) const noexcept {
        if (n != o.n) return false;
        for (std::size_t i = 0; i < n; ++i)
            if (v[i] != o.v[i]) return false;
        return true;
    }
};

struct dims_key_hash {
    std::size_t operator()(const dims_key& k) const noexcept {
        // FNV-1a's constants a word at a time (the hot path folds n int64s, not 8n bytes).
        std::uint64_t h = ktune::detail::fnv1a_basis;
        for (std::size_t i = 0; i < k.n; ++i) {
            h ^= static_cast<std::uint64_t>(k.v[i]);
            h *= ktune::detail::fnv1a_prime;
            h ^= h >> 29;
        }
        return static_cast<std::size_t>(h);
    }
};

/// A loaded module and its kernel; unloaded with the launcher.
struct loaded_kernel {
    std::shared_ptr<launch_driver> driver;
    module_handle module = nullptr;
    function_handle function = nullptr;
    std::int64_t shared_opt_in = 0; ///< the dynamic shared memory the function is opted in to
    loaded_kernel() = default;
    loaded_kernel(const loaded_kernel&) = delete;
    loaded_kernel& operator=(const loaded_kernel&) = delete;
    ~loaded_kernel() {
        if (driver && module) driver->unload_module(module);
    }
};

struct plan_entry {
    launch_plan plan;
    std::atomic<loaded_kernel*> kernel{nullptr}; ///< owned by launcher state's modules
    std::atomic<bool> captured{false};
};

/// What the hot path checks each argument against.
struct expected_arg {
    argument_kind kind;
    element_type type;
    std::size_t size; ///< bytes the kernel receives
};

struct launcher_state {
    kernel_spec spec;
    launcher_options opt;
    cache::environment env;
    device_limits limits;
    std::string hash;
    std::string dtype;
    config defaults;
    cache::cache_index index;
    std::optional<compile::cubin_cache> cubins;
    std::vector<expected_arg> expected;
    std::filesystem::path capture_dir;

    std::shared_mutex plans_mu;
    std::unordered_map<dims_key, std::unique_ptr<plan_entry>, dims_key_hash> plans;

    std::mutex modules_mu; ///< also guards driver
    std::shared_ptr<launch_driver> driver;
    std::unordered_map<std::string, std::unique_ptr<loaded_kernel>> modules; ///< by cubin key

    std::atomic<std::uint64_t> n_plans{0}, n_nvrtc{0}, n_cubin_hits{0}, n_modules{0}, n_misses{0},
        n_captures{0};
};

/// The capture path of one launch (launcher_capture.cpp): synchronises, copies the inputs,
/// launches, copies the outputs, writes the capture. Write failures are reported on stderr and
/// never stop the application's launch.
void launch_with_capture(launcher_state& st, plan_entry& e, std::span<const kernel_arg> args,
                         const kernel_params& params, CUstream_st* stream);

} // namespace ktune::kernel::detail
