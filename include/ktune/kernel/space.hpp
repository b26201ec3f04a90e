#pragma once
// The configuration space of a kernel spec for one problem: the cartesian product of its
// parameters' values, pruned by its restrictions and by the device limits its launch geometry
// must respect, counted and listed before anything is compiled; the launch geometry and the
// NVRTC request of one config; the hash of the spec, its sources and their local headers that
// keys its cache entries.
//
//   auto s = ktune::kernel::load_spec("matmul.json");
//   auto p = ktune::kernel::parse_problem("M=4096,N=4096,K=4096");
//   auto l = ktune::kernel::device_limits::for_arch("sm_90");
//   ktune::kernel::config_space cs = ktune::kernel::enumerate(s, p, l);   // cs.at(i)

#include "ktune/compile/compile.hpp"
#include "ktune/core/config.hpp"
#include "ktune/kernel/limits.hpp"
#include "ktune/kernel/spec.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ktune::kernel {

struct geometry {
    std::int64_t grid[3] = {1, 1, 1};
    std::int64_t block[3] = {1, 1, 1};
    std::int64_t shared_bytes = 0;
    std::int64_t cluster[3] = {1, 1, 1};
    bool operator==(const geometry&) const = default;
};

/// The spec's dimensions taken from `p`: each must be given, and nothing else. Throws
/// error{input} naming the missing or unknown dimension and the spec's dimension list.
void check_problem(const kernel_spec& s, const problem& p);

/// Names bound for expressions: dimensions, device limits, and the config's parameters.
bindings bind(const kernel_spec& s, const problem& p, const device_limits& l, const config& c);

/// Every parameter at its default, in the spec's parameter order.
config default_config(const kernel_spec& s);

/// The launch geometry of one config; throws error{input} at the expression's position when
/// one fails to evaluate (division by zero, overflow).
geometry launch_of(const kernel_spec& s, const config& c, const problem& p, const device_limits& l);

/// Why `g` cannot launch under `l` ("" when it can): threads per block, block and grid
/// dimensions, shared memory, cluster size and grid-to-cluster divisibility.
std::string limit_violation(const geometry& g, const device_limits& l);

struct space_counts {
    std::uint64_t product = 0;              ///< the cartesian product
    std::uint64_t valid = 0;                ///< configs that pass everything
    std::vector<std::uint64_t> rejected_by; ///< per restriction: configs it rejected first
    std::uint64_t rejected_by_limits = 0;   ///< passing the restrictions, not the limits
    std::uint64_t failed_to_evaluate = 0;   ///< an expression failed (counted as invalid)
    bool operator==(const space_counts&) const = default;
};

/// The valid configs of a space, kept as their indices in the cartesian product (8 bytes each,
/// so a space of millions costs megabytes, not the gigabytes of as many `config`s).
struct config_space {
    std::vector<std::uint64_t> valid; ///< product indices, ascending (first parameter slowest)
    space_counts counts;
    std::vector<std::string> names;                ///< the parameters, in order
    std::vector<std::vector<std::int64_t>> values; ///< each parameter's values

    [[nodiscard]] std::size_t size() const noexcept { return valid.size(); }
    /// The i-th valid config.
    [[nodiscard]] config at(std::size_t i) const;
    /// Every valid config (for spaces small enough to hold as configs).
    [[nodiscard]] std::vector<config> configs() const;
};

/// Largest cartesian product enumerate() walks; a bigger space is an error that says so.
inline constexpr std::uint64_t max_space_product = 20'000'000;

/// Enumerates and prunes. With `require_valid`, an empty result throws error{input} saying
/// which restriction emptied the space (at its position), or which limit every surviving
/// config exceeds (at the launch geometry), or that the default config fails.
config_space enumerate(const kernel_spec& s, const problem& p, const device_limits& l,
                       bool require_valid = true);

/// Why this config is rejected ("" when valid): the restriction's text, or the limit.
std::string reject_reason(const kernel_spec& s, const config& c, const problem& p,
                          const device_limits& l);

/// The sources in order, then every local header they include ("..." includes found beside
/// the including file or in the spec's include_dirs), each once.
std::vector<std::filesystem::path> source_files(const kernel_spec& s);
/// 64-bit FNV-1a over the spec text and each source_files() entry's name and bytes, as 16 hex
/// digits: a change to any of them changes the cache key.
std::string spec_hash(const kernel_spec& s);

/// The kernel's name expression for one config ("matmul<64, 64, 16>", "saxpy").
std::string name_expression(const kernel_spec& s, const config& c, const problem& p,
                            const device_limits& l);
/// The NVRTC request of one config: sources joined (with #line markers naming each file),
/// defines as -D options, the spec's compile options and include directories, for l.arch.
compile::compile_request compile_request_for(const kernel_spec& s, const config& c,
                                             const problem& p, const device_limits& l);

} // namespace ktune::kernel
