#pragma once
// `ktune tune <op> --shape …`: the GPU tuning mode of `ktune tune`. cmd_tune.cpp parses the
// subcommand (both modes); this file runs the op mode, so the two modes stay in their own files.

#include <cstdint>
#include <string>

namespace ktune::cli {

struct tune_op_options {
    std::string op;    ///< registered op name (`ktune ops` lists them)
    std::string shape; ///< e.g. "4096x4096"
    std::string dtype = "fp32";
    std::string strategy = "auto";
    int budget = 0;    ///< 0: the op's default
    std::string cache; ///< cache file; empty: the default location
    std::uint64_t seed = 0;
    bool json = false;
    bool vs_torch = false; ///< also time PyTorch's equivalent (python3 with torch)
};

/// Runs the op mode; returns an exit code (0 ok, 1 finding, 2 usage/input error).
int run_tune_op(const tune_op_options& o);

} // namespace ktune::cli
