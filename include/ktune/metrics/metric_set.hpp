#pragma once
// Named metric sets for the CUPTI range profiler, before and after they meet a chip.
//
// A set is first a request (chip-independent): for each metric, candidate names (the first one
// the chip knows wins, because metric names differ between GPU generations) and whether it is
// required. Resolving it on a chip (metric_host.hpp) gives concrete names and the replay passes.
//
//   auto spec = ktune::metrics::metric_set_request("roofline", tensor_precision::bf16);
//   auto set  = ktune::metrics::resolve_metric_set(spec, "GH100", 3); // set.passes == 2

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::metrics {

/// The tensor-core input precision whose `sm__ops_path_tensor_*` metric a roofline set asks for.
/// Each extra aggregate tensor precision costs about one replay pass, so a set asks for one only
/// — or, with `measure`, for every tensor counter that still fits the pass budget (on GH100 the
/// per-instruction `op_hgmma_src_{bf16,fp16,tf32}` counters share the base set's 2 passes), and
/// the kernel's precision is then read from which counter is non-zero, not from its name.
enum class tensor_precision : std::uint8_t { none, bf16, fp16, tf32, fp8, int8, fp64, measure };

std::string_view to_string(tensor_precision p) noexcept;
/// "bf16", "fp16", "tf32", "fp8", "int8", "fp64", "none", "measure"; nullopt otherwise.
std::optional<tensor_precision> parse_tensor_precision(std::string_view s) noexcept;
/// The precision a kernel most likely feeds its tensor cores with, from tokens in its name
/// (cuBLAS, CUTLASS and Triton names carry "bf16", "f16", "tf32", "e4m3", …); bf16 if none.
tensor_precision guess_tensor_precision(std::string_view kernel_name) noexcept;

/// One metric of a request: the first candidate valid on the chip is used.
struct metric_request {
    std::vector<std::string> candidates;
    bool required = true; ///< false: dropped (and reported) where the chip has none of them
    /// Added after every other request, in order, only while the set stays within the pass
    /// budget; silently left out otherwise (the tensor counters of `measure`).
    bool if_fits = false;
    bool operator==(const metric_request&) const = default;
};

/// A chip-independent metric set.
struct metric_set_spec {
    std::string name; ///< "roofline", "occupancy", "stalls" or "user"
    std::vector<metric_request> requests;
    bool operator==(const metric_set_spec&) const = default;
};

/// Names of the built-in sets, for help texts and error messages.
std::span<const std::string_view> builtin_metric_sets() noexcept;

/// "roofline", "occupancy", "stalls", or a comma-separated list of full metric names (with a
/// rollup such as `.sum`), which becomes a set named "user" where every name is required.
/// `tensor` picks the one tensor metric of `roofline` (none: no tensor metric).
/// Throws error_kind::usage for an empty list.
metric_set_spec metric_set_request(std::string_view spec,
                                   tensor_precision tensor = tensor_precision::bf16);

/// A set resolved on one chip.
struct metric_set {
    std::string name;
    std::string chip;                 ///< CUPTI chip name, e.g. "GH100"
    std::vector<std::string> metrics; ///< concrete names, in request order
    std::vector<std::string> dropped; ///< optional requests this chip cannot serve
    std::size_t passes = 0;           ///< kernel-replay passes CUPTI needs for `metrics`
    bool operator==(const metric_set&) const = default;
};

/// A resolved set as one line, "<name>|<chip>|<passes>|<metric>,<metric>,…", so `ktune profile`
/// hands the set it resolved (and checked against the pass budget) to the profiled process,
/// which then skips the resolution (~0.1–0.25 s of host-API work on the dev machine).
std::string encode_metric_set(const metric_set& set);
/// The set of encode_metric_set; nullopt for anything malformed (the caller resolves again).
std::optional<metric_set> decode_metric_set(std::string_view line);

/// The metric names of the roofline set, as the classifier reads them.
namespace names {
inline constexpr std::string_view duration = "gpu__time_duration.sum";
inline constexpr std::string_view dram_read = "dram__bytes_read.sum";
inline constexpr std::string_view dram_write = "dram__bytes_write.sum";
inline constexpr std::string_view l2_bytes = "lts__t_bytes.sum";
inline constexpr std::string_view sm_hz = "sm__cycles_elapsed.avg.per_second";
inline constexpr std::string_view sass_prefix = "smsp__sass_thread_inst_executed_op_";
inline constexpr std::string_view sass_suffix = "_pred_on.sum";
inline constexpr std::string_view tensor_prefix = "sm__ops_path_tensor_src_";
/// Per-instruction tensor counters (`…op_hgmma_src_bf16_dst_fp32.sum`): disjoint by instruction,
/// each a part of the aggregate `tensor_prefix` counter of its precision.
inline constexpr std::string_view tensor_op_prefix = "sm__ops_path_tensor_op_";
/// Throughputs (% of peak) beside the DRAM roofline, optional (kept where the budget allows):
/// L2 slices, L1/shared-memory data banks and LSU data pipe, and instruction issue.
inline constexpr std::string_view l2_pct = "lts__t_sectors.avg.pct_of_peak_sustained_elapsed";
inline constexpr std::string_view l1_bank_reads_pct =
    "l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed";
inline constexpr std::string_view l1_bank_writes_pct =
    "l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed";
inline constexpr std::string_view l1_lsu_pct =
    "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed";
inline constexpr std::string_view issue_pct = "sm__inst_executed.avg.pct_of_peak_sustained_elapsed";
} // namespace names

} // namespace ktune::metrics
