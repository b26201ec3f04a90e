#pragma once
// The worker's GPU side (what ktune-worker runs, ktune/worker/worker.hpp): loads a candidate cubin
// through the driver API, checks it against the op's reference kernel on fresh random inputs, times
// it per the protocol. One instance per worker process; buffers are kept between candidates of the
// same problem.
#include "ktune/core/device.hpp"
#include "ktune/measure/candidate.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ktune::measure {

class gpu_runner {
public:
    /// A start-up milestone: (what, steady_clock ms since its epoch), see candidate_result.
    using marks = std::vector<std::pair<std::string, double>>;
    /// Device 0; throws error{no_device} without a GPU. Appends its milestones to `m`.
    explicit gpu_runner(marks* m = nullptr);
    ~gpu_runner();
    gpu_runner(const gpu_runner&) = delete;
    gpu_runner& operator=(const gpu_runner&) = delete;

    /// Never throws for a candidate's fault: the status says what happened.
    candidate_result run(const candidate_request& r);
    /// Allocates r's problem buffers and loads its reference if the cubin cache has it, so the
    /// first candidate of the problem finds them (a prepare request; never throws).
    void prepare(const candidate_request& r) noexcept;
    /// Frees the problem's buffers (a kept worker between clients); the context stays.
    void release() noexcept;
    [[nodiscard]] const device_info& device() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// Now on steady_clock (CLOCK_MONOTONIC on Linux: the same clock in every process), in ms.
double monotonic_ms() noexcept;

} // namespace ktune::measure
