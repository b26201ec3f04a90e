#pragma once
// `ktune tune <op> --shape …`: the GPU tuning mode of `ktune tune`. cmd_tune.cpp parses the
// subcommand (both modes); this file runs the op mode, so the two modes stay in their own files.

#include <cstdint>
#include <string>
#include <vector>

namespace ktune::cli {

struct tune_op_options {
    std::string op;                  ///< registered op name (`ktune ops` lists them)
    std::vector<std::string> shapes; ///< e.g. "4096x4096"; several: one tune each
    std::vector<std::string> dtypes; ///< empty: fp32; several: one tune each
    std::string plan;                ///< a plan file (ktune.tune_plan) instead of op/shapes
    std::string strategy = "auto";
    int budget = 0;    ///< 0: the op's default
    std::string cache; ///< cache file; empty: the default location
    std::string redis; ///< shared cache tier URL; empty: the file alone
    std::uint64_t seed = 0;
    bool json = false;
    bool vs_torch = false;    ///< also time PyTorch's equivalent (python3 with torch)
    int keep_worker = 0;      ///< > 0: a worker kept this many seconds for the next `ktune tune`
    std::size_t batch = 0;    ///< --batch: configs per proposal (0: tune_request's default)
    std::string pipeline;     ///< --pipeline: stream, ahead or lockstep; empty: the mode's default
    std::string gpus;         ///< --gpus: "all" or "0,1,…"; empty: CUDA's default device
    std::string kernel;       ///< --kernel: a user kernel's spec instead of an op
    std::string problem;      ///< --problem: its dimensions; empty: the spec's example values
    std::string record_space; ///< --record-space: every measured candidate, replayable
    std::string capture;      ///< --capture: a capture directory, or a folder of them
    std::string misses;       ///< --misses: a launcher's misses file: tune each missed problem
};

/// Runs the op mode: one tune, or several on one tune session (several shapes or dtypes, or a
/// plan) with one summary table. Returns an exit code (0 ok, 1 finding: a tune failed or found
/// no passing candidate, 2 usage/input error).
int run_tune_op(const tune_op_options& o);

/// `ktune tune --kernel spec.json [--problem M=..,N=..]`: one tune of a user kernel
/// (docs/perf/kernel.md#tuning-a-user-kernel); exit codes as run_tune_op.
int run_tune_kernel(const tune_op_options& o);

} // namespace ktune::cli
