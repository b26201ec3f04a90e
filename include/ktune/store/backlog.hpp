#pragma once
// The tuning backlog: kernels ranked by fleet GPU time, with their share, roofline class and
// % of roof where sampled metrics exist, the time a tune could save, and, where ktune can tune
// the kernel (its built-in ops), the `ktune tune …` command. The loop "profiling feeds the
// autotuner" reads this.
//
//   auto db = ktune::store::open_store("sqlite:k.db");
//   auto b = ktune::store::backlog(db, {.limit = 20});
//   std::fputs(ktune::store::format_backlog(b).c_str(), stdout);

#include "ktune/store/store.hpp"

#include <string>
#include <vector>

namespace ktune::store {

struct backlog_options {
    run_filter filter{};
    std::size_t limit = 20; ///< rows; 0 = all
};

/// Where ktune can tune a kernel: one of its built-in ops.
struct tune_target {
    std::string op;      ///< "softmax", "layernorm", … ("" = not tunable by ktune)
    std::string dtype;   ///< "bf16" | "f32" ("" = unknown)
    std::string shape;   ///< "ROWSxCOLS" when known from the run's own command
    std::string command; ///< the exact `ktune tune …` command; empty when the shape is unknown
    std::string hint;    ///< the command with placeholders, when it is not exact
    bool operator==(const tune_target&) const = default;
};

/// Recognises ktune's built-in ops by kernel name: its own `ktune_op_kernel` (op and shape from
/// a `ktune tune <op> --shape …` command that ran it) and PyTorch's kernels for the same math
/// (softmax, layer norm, …; shape unknown, so a hint rather than a command).
tune_target match_tunable(const std::string& demangled, const std::vector<std::string>& commands);

struct backlog_row {
    std::string kernel; ///< demangled
    std::string mangled;
    std::uint64_t count = 0;
    std::uint64_t total_ns = 0;
    std::uint64_t runs = 0;
    double share = 0;                          ///< of the selected runs' kernel time, 0..1
    double p50_ns = 0, p95_ns = 0, p99_ns = 0; ///< fleet quantiles from merged sketches
    std::string bound;                         ///< roofline class; empty without metrics
    double pct_of_roof = -1;                   ///< < 0 without metrics
    double savable_ns = -1; ///< (1 - achieved/roof) x time; < 0 where no roof is known
    std::string lever;
    tune_target tune;
};

struct backlog_report {
    std::string db;
    run_filter filter;
    std::size_t runs = 0;
    std::uint64_t total_ns = 0; ///< kernel time of the selected runs
    std::uint64_t kernels = 0;  ///< kernel records of the selected runs
    std::vector<backlog_row> rows;
};

backlog_report backlog(profile_store& db, const backlog_options& options = {});
/// Schema ktune.backlog (docs/formats.md#ktunebacklog).
std::string backlog_json(const backlog_report& report);
std::string format_backlog(const backlog_report& report);

} // namespace ktune::store
