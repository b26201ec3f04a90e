#pragma once
// `ktune tune gemm --shape MxNxK …`: the cuBLASLt mode of `ktune tune`. cmd_tune.cpp parses the
// shared options and hands over when the op is "gemm"; the options only gemm has live here.

#include "tune_op.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace ktune::cli {

struct gemm_cli_options {
    std::string layout = "tn";
    std::string epilogue = "none";
    int workspace_mib = 32;
    int heuristic_count = 16;
    double max_seconds = 10;
    bool cublaslt_only = false;
    bool with_mma = false;
    double inject_faults = 0; ///< --inject-faults: share of template candidates with a planted bug
    std::string b_operand = "written_before"; ///< --b-operand: problem.hpp's b_operand
};

/// Registers --layout, --epilogue, --workspace-mib, --heuristic-count, --max-seconds,
/// --inject-faults, --cublaslt-only, --with-mma, --b-operand on
/// `ktune tune`.
std::shared_ptr<gemm_cli_options> add_gemm_options(CLI::App* tune_app);

/// Runs the tunes (each --shape × --dtype, or a plan file's entries). Exit 0, 1 when a tune
/// found no passing candidate, 2 on bad input.
int run_tune_gemm(const tune_op_options& o, const gemm_cli_options& g);

} // namespace ktune::cli
