#pragma once
// The worker's GPU side: loads a candidate cubin through the driver API, checks it against the
// op's reference kernel on fresh random inputs, times it per the protocol. One instance per
// worker process; buffers are kept between candidates of the same problem.
#include "ktune/measure/candidate.hpp"

#include <memory>

namespace ktune::measure::detail {

class gpu_runner {
public:
    gpu_runner(); ///< device 0; throws error{no_device} without a GPU
    ~gpu_runner();
    gpu_runner(const gpu_runner&) = delete;
    gpu_runner& operator=(const gpu_runner&) = delete;

    /// Never throws for a candidate's fault: the status says what happened.
    candidate_result run(const candidate_request& r);

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// Device-side helpers: seeded uniform fill and the tolerance compare, for fp32 and bf16.
extern const char* const utility_source;

} // namespace ktune::measure::detail
