#pragma once
// A plan's tunes over several GPUs: one thread per GPU takes the next tune from one queue, so a
// fast GPU takes more; a GPU that is lost (its worker killed, its context gone) hands its tune
// back to the queue and stops, and the others finish the plan (docs/perf/tune.md, "Several
// GPUs"). The scheduling is separate from the tuning so unit tests drive it with fake GPUs.
#include "ktune/core/error.hpp"
#include "ktune/tune/tuner_plan.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace ktune::tune::detail {

/// Errors that say the GPU (or its worker) is gone, not that the tune is wrong: the tune moves.
[[nodiscard]] bool loses_gpu(const error& e) noexcept;

/// Runs tunes 0..n-1 on `slots` GPUs; run(slot, i) tunes i on slot's GPU. A run that throws an
/// error loses_gpu() accepts retires the slot and puts i back at the head of the queue; any
/// other exception is i's outcome (error text). When every slot is lost, each tune left gets
/// an outcome naming the last loss. Each tune has exactly one outcome; outcome.gpu is the slot.
std::vector<plan_outcome>
run_on_slots(std::size_t n, std::size_t slots,
             const std::function<plan_outcome(std::size_t slot, std::size_t i)>& run);

} // namespace ktune::tune::detail
