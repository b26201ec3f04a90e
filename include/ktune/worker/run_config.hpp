#pragma once
// Run one config of an op on a problem: compile it (NVRTC, through the cubin cache), then check
// it against the op's reference and time it per the measurement protocol in a ktune-worker
// process, so a faulting kernel cannot take the caller down. What `ktune tune` does for each
// candidate, for a config an application already has (a cache hit, a hand-picked one).
//
//   const auto& op = ktune::ops::find_op("softmax");
//   const ktune::ops::problem p{{8192, 8192}, ktune::ops::dtype::bf16};
//   auto r = ktune::worker::run_config(op, op.default_config(p), p);
//   if (r.status == ktune::measure::run_status::ok) std::printf("%.4f ms\n", r.median_ms);

#include "ktune/core/config.hpp"
#include "ktune/measure/candidate.hpp"
#include "ktune/ops/op.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ktune::worker {

struct run_options {
    bool check = true; ///< against the op's reference on fresh random inputs
    bool time = true;  ///< the timing protocol (policy)
    measure::measure_policy policy;
    std::uint64_t seed = 7; ///< of the check's random inputs
    /// No answer in this time: the worker is killed and the status is timeout.
    std::chrono::milliseconds timeout{30000};
    /// "sm_90" etc.; empty: device 0's.
    std::string arch;
    /// Cubin cache directory; empty: compile::cubin_cache::default_dir().
    std::filesystem::path cubin_dir;
    /// argv of the worker; empty: default_worker_command().
    std::vector<std::string> worker_command;
};

/// Compiles and runs `cfg` of `op` on `prob`. A fault of the kernel (launch error, wrong result,
/// timeout, resource limit) is the result's status, never an exception. Throws error{usage} for
/// a config the op rejects (naming why), error{nvrtc} with the compile log when it does not
/// compile, error{no_device} when no arch is given and there is no GPU.
measure::candidate_result run_config(const ops::op& op, const config& cfg, const ops::problem& prob,
                                     const run_options& o = {});

} // namespace ktune::worker
