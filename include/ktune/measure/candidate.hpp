#pragma once
// What the tuner asks a worker to do with one compiled candidate, and what comes back. Both are
// value types with a JSON form: they travel as one JSON line over the worker's pipes.
//
//   candidate_request rq{.op = "softmax", .rows = 8192, .cols = 8192, .dtype = "fp32", ...};
//   std::string line = encode(rq);   candidate_request back = decode_request(line);

#include "ktune/core/clocks.hpp"
#include "ktune/core/config.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ktune::measure {

/// The measurement protocol (DESIGN.md): warm-up, L2 flushed before every timed launch (a
/// memset of 2x the device's L2, outside the events), repetitions until the median's 95 % CI
/// is within +-target_rel_ci or a cap is reached.
struct measure_policy {
    int warmup = 3;
    int min_samples = 16;
    int max_samples = 200;
    double target_rel_ci = 0.01;
    double max_ms = 1000; ///< wall-time cap of the timing loop per candidate
    bool flush_l2 = true;
    /// Copy the pristine inputs back into in-place buffers before every launch (outside the
    /// timed window). Only a test turns it off, to show what the restore prevents.
    bool restore_in_place = true;
    bool operator==(const measure_policy&) const = default;
};

/// Grid, block and dynamic shared memory of one launch.
struct launch_dims {
    std::array<std::uint32_t, 3> grid{1, 1, 1};
    std::array<std::uint32_t, 3> block{1, 1, 1};
    std::uint32_t shared_bytes = 0;
    bool operator==(const launch_dims&) const = default;
};

/// One argument of a user kernel, resolved for one problem: a buffer (its element type and count,
/// how its inputs are generated, whether the kernel writes it) or a scalar's value.
struct kernel_arg_job {
    bool buffer = true;
    std::string type = "fp32";  ///< kernel::to_string(element_type)
    std::int64_t elements = 0;  ///< buffer
    std::string input = "none"; ///< kernel::to_string(input_generator) of a buffer read
    bool output = false;        ///< written (with an input too: restored before every launch)
    std::int64_t value = 0;     ///< scalar (an fp32/fp64 scalar gets it converted)
    /// A captured launch's data (ktune/kernel/capture.hpp): the buffer's bytes before the launch
    /// (instead of the generator) and, for an output, the expected bytes after it (the
    /// application's own output is the reference). Empty: generated / the reference kernel's.
    std::string input_file;
    std::string reference_file;
    bool operator==(const kernel_arg_job&) const = default;
};

/// A user kernel's candidate as the worker runs it (docs/formats.md#worker-protocol): the tuner
/// resolves the spec (ktune/kernel/spec.hpp) into sizes, values and geometry, so the worker
/// reads no spec. The reference is a compiled kernel (the default config's, or the spec's
/// reference kernel) run once per problem on the same inputs; outputs are compared on the host.
struct kernel_job {
    /// Identity of the problem ("<name>@<spec hash> M=..,N=..", a capture's directory after
    /// it): buffers, inputs and the
    /// reference's outputs are kept while it stays the same. Empty: not a user kernel.
    std::string problem;
    std::vector<kernel_arg_job> args; ///< kernel-argument order
    launch_dims launch;               ///< this candidate's
    std::string reference_cubin;
    std::string reference_kernel; ///< lowered name
    launch_dims reference_launch;
    double rtol = 0;
    double atol = 0;
    std::uint64_t input_seed = 0;
    [[nodiscard]] bool empty() const noexcept { return problem.empty(); }
    bool operator==(const kernel_job&) const = default;
};

struct candidate_request {
    std::string op;
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::string dtype = "fp32";
    config cfg;
    std::string cubin_path; ///< compiled candidate (compile.hpp's cubin cache)
    std::string kernel;     ///< lowered name in the cubin
    std::uint64_t seed = 0; ///< fresh random inputs for the correctness check
    bool check = true;
    bool time = true;
    measure_policy policy;
    /// Set up this problem's buffers (and its reference kernel, from the cubin cache) and answer
    /// nothing: sent ahead so the worker allocates while the first candidate compiles.
    bool prepare = false;
    /// Set for a user kernel (op, rows, cols and dtype are then only labels).
    kernel_job job;
    bool operator==(const candidate_request&) const = default;
};

enum class run_status : std::uint8_t {
    ok,
    launch_error,   ///< the launch or the kernel failed (illegal address, trap, …)
    wrong_result,   ///< outputs outside the op's tolerance, non-finite, or left unwritten
    timeout,        ///< no answer within the per-candidate limit: the worker was killed
    resource_limit, ///< needs more threads, registers or shared memory than the device has
    worker_died,    ///< the worker process ended without an answer
    load_error,     ///< the cubin could not be loaded
};
std::string_view to_string(run_status s) noexcept;
run_status run_status_from_string(std::string_view s);

struct candidate_result {
    run_status status = run_status::ok;
    std::string message;            ///< why, for anything but ok
    std::vector<double> samples_ms; ///< per-launch kernel times, event-timed
    double median_ms = 0;
    double ci_lo_ms = 0; ///< 95 % CI of the median (order statistics)
    double ci_hi_ms = 0;
    double max_error = 0;          ///< largest |out - ref| of the check
    std::int64_t bad_elements = 0; ///< outside tolerance (NaN/unwritten included)
    int registers = 0;             ///< per thread, from the loaded function
    bool clocks_known = false;
    gpu_clocks clocks;      ///< read right after the timing loop
    double gpu_busy_ms = 0; ///< device-side span of the work enqueued for this candidate
    double worker_ms = 0;   ///< worker wall time on this request
    double load_ms = 0;     ///< of which: reading + loading the cubin
    double check_ms = 0;    ///< the correctness check (host wall time)
    double timing_ms = 0;   ///< warm-up + timing loop (host wall time)
    /// The worker's own set-up (GPU context, buffers, helper kernels), on its first answer only.
    double setup_ms = 0;
    /// The worker's start-up milestones on its first answer only: (what, steady_clock ms since
    /// its epoch). Linux's steady_clock is CLOCK_MONOTONIC, one clock for every process of the
    /// machine, so the tuner places them on its own timeline.
    std::vector<std::pair<std::string, double>> setup_marks;
    /// The worker's GPU (its UUID), on its first answer only: the tuner checks its recorded
    /// device identity against it.
    std::string device_uuid;
    bool fatal = false; ///< the worker's context is gone: it exits after replying
    bool operator==(const candidate_result&) const = default;
};

std::string encode(const candidate_request& r);
std::string encode(const candidate_result& r);
/// Throw error{input} naming the field on a malformed line.
candidate_request decode_request(std::string_view line);
candidate_result decode_result(std::string_view line);

} // namespace ktune::measure
