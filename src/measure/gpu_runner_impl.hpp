#pragma once
// The worker's GPU state and steps, shared by gpu_runner.cpp (set-up, module loading, one
// candidate's run), gpu_check.cpp (correctness gate) and gpu_timing.cpp (the timed loop).
#include "core/driver_api.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/clocks.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/device.hpp"
#include "ktune/kernel/problem.hpp"
#include "ktune/measure/gpu_runner.hpp"
#include "ktune/measure/l2_flush.hpp"
#include "ktune/ops/op.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ktune::measure::detail {

struct driver {
    using load_data_t = CUresult (*)(CUmodule*, const void*);
    using unload_t = CUresult (*)(CUmodule);
    using get_function_t = CUresult (*)(CUfunction*, CUmodule, const char*);
    using launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  unsigned, unsigned, CUstream, void**, void**);
    using func_attr_t = CUresult (*)(int*, CUfunction_attribute, CUfunction);
    load_data_t load = ktune::detail::driver_fn<load_data_t>("cuModuleLoadData");
    unload_t unload = ktune::detail::driver_fn<unload_t>("cuModuleUnload");
    get_function_t function = ktune::detail::driver_fn<get_function_t>("cuModuleGetFunction");
    launch_t launch = ktune::detail::driver_fn<launch_t>("cuLaunchKernel");
    func_attr_t attr = ktune::detail::driver_fn<func_attr_t>("cuFuncGetAttribute");
};
const driver& drv();

struct module {
    CUmodule m = nullptr;
    CUfunction f = nullptr;
    /// A built-in op's `ktune_op_prologue`, run before each launch (ops::op::workspace_elements);
    /// null where the module has none.
    CUfunction prologue = nullptr;
    module() = default;
    module(const module&) = delete;
    module& operator=(const module&) = delete;
    ~module();
};

/// A failed launch or kernel: the candidate's status and whether the context survived.
struct fault {
    run_status status;
    std::string message;
    bool fatal;
};

/// The wrong_result of a check: `bad` elements outside the tolerance, `what` before it (e.g.
/// "after timing: "), `detail` after it (the largest error, the first bad element).
fault wrong_result(const char* what, std::int64_t bad, double atol, double rtol,
                   const std::string& detail);

double ms_between(cudaEvent_t a, cudaEvent_t b);

struct problem_state {
    const ops::op* op = nullptr;
    ops::problem prob;
    std::vector<ops::buffer_spec> specs;
    std::vector<std::int32_t> scalars; ///< a built-in op's scalar arguments (rows, cols)
    std::vector<device_buffer> bufs;   ///< candidate buffers, op order
    std::vector<device_buffer> refs;   ///< fp32 reference outputs, one per output buffer
    /// Per buffer: the inputs an in-place buffer had before the candidate ran (else empty).
    std::vector<device_buffer> pristine;
    /// A built-in op's launch arguments, [0] a candidate's and [1] the reference's: cuLaunchKernel
    /// takes each by address, so they stay with the problem and a launch builds nothing.
    struct op_args {
        std::vector<void*> buffers;  ///< the buffer arguments' device pointers
        std::vector<void*> trailing; ///< a candidate's pointers after the scalars (workspace)
        std::vector<void*> slots;    ///< each buffer's address, each scalar's, each trailing's
    };
    std::array<op_args, 2> args;
    /// The op's workspace (ops::op::workspace_elements; empty where none), a candidate's
    /// argument after the scalars.
    device_buffer workspace;
    std::unique_ptr<module> reference;
    /// A user kernel (candidate_request::job; op is null): specs, bufs and pristine hold one
    /// entry per kernel argument (a scalar's buffer is empty), and per argument its element
    /// type, its scalar's bytes, and the reference's output bytes (gpu_kernel_job.cpp).
    bool user_kernel = false;
    std::vector<kernel::element_type> types;
    std::vector<std::int64_t> scalar_slots;
    std::vector<std::string> host_refs;
    /// The reference's fp32/bf16 outputs as fp32 on the device, compared there (a host compare
    /// of a 64 M-element output costs half a second per candidate); empty for other types.
    std::vector<device_buffer> device_refs;
    bool reference_ran = false;
    double rtol = 0, atol = 0; ///< the job's tolerance
};

/// A wire launch's dims as the launcher takes them.
ops::launch_geometry to_geometry(const launch_dims& d) noexcept;

} // namespace ktune::measure::detail

namespace ktune::measure {
using detail::fault;
using detail::module;
using detail::ms_between;
using detail::problem_state;

struct gpu_runner::impl {
    device_info dev;
    std::optional<compile::cubin_cache> cache;
    std::unique_ptr<module> utility;
    CUfunction fill[2]{}, compare[2]{};
    cuda_stream stream;
    /// Read sweep over 2 x L2 before each timed launch: evicts the previous launch's dirty
    /// lines outside the events and leaves only clean ones (a memset flush left L2 full of
    /// dirty lines that the timed kernel then wrote back inside its window).
    std::optional<l2_flusher> flush;
    device_buffer counters{16};
    cuda_event check_begin, check_end;
    /// Two sets of (2 per launch + 2 per batch) events: one batch is queued while the one
    /// before it is read (gpu_timing.cpp).
    std::vector<cuda_event> timing_events;
    std::optional<gpu_clocks> clocks;
    std::chrono::steady_clock::time_point clocks_at{};
    std::map<std::string, problem_state> problems;

    std::unique_ptr<module> load(const std::string& cubin, const std::string& name);
    std::unique_ptr<module> compile_load(const std::string& source, const char* name);
    void launch(CUfunction f, const ops::launch_geometry& g, void** args);
    /// The problem's buffers (kept while requests are for the same problem) and its reference
    /// kernel; `compile` false: the reference only when the cubin cache has it (a prepare
    /// request must not put an NVRTC compile in front of the first candidate).
    problem_state& state_for(const candidate_request& r, bool compile = true);
    /// One launch of a built-in op's candidate (its prologue first, if any) or reference.
    void launch_op(const problem_state& s, const module& m, const ops::launch_geometry& g,
                   bool reference);
    /// The candidate's launch geometry: the op's for its config, or the job's.
    [[nodiscard]] static ops::launch_geometry geometry_of(const problem_state& s,
                                                          const candidate_request& r);
    /// Puts every in-place buffer back to its pristine inputs (stream-ordered, before a launch).
    void restore(const problem_state& s);

    // gpu_check.cpp
    /// Fresh inputs, poisoned outputs, reference, candidate, compare.
    std::optional<fault> check(problem_state& s, const module& cand, const candidate_request& r,
                               candidate_result& out);
    /// n outputs (fp32, or bf16) against an fp32 reference on the device, with the compare
    /// kernels: elements off |out - ref| <= atol + rtol |ref| (NaN counts) and the largest finite
    /// error; nullopt when the stream failed (the context may be gone).
    struct device_verdict {
        std::int64_t bad = 0;
        double max_error = 0;
    };
    std::optional<device_verdict> compare_on_device(const void* out, const void* ref, std::size_t n,
                                                    bool bf16, double rtol, double atol);
    /// Every output against the reference; wrong_result naming `what` when any is off.
    std::optional<fault> compare_outputs(const problem_state& s, candidate_result& out,
                                         bool count_busy, const char* what);
    /// Launch the candidate once and wait; classify a failure.
    std::optional<fault> guarded_launch(const problem_state& s, const module& cand,
                                        const candidate_request& r);

    // gpu_kernel_job.cpp: a user kernel's buffers, reference, launch and check
    problem_state& kernel_state_for(const candidate_request& r, bool compile);
    void launch_kernel_job(const problem_state& s, CUfunction f, const ops::launch_geometry& g);
    /// The reference's outputs (in host_refs) kept for the compare: fp32/bf16 ones as fp32 on
    /// the device, the others on the host.
    void keep_reference_outputs(problem_state& s);
    std::optional<fault> kernel_check(problem_state& s, const module& cand,
                                      const candidate_request& r, candidate_result& out);
    std::optional<fault> kernel_compare(const problem_state& s, candidate_result& out,
                                        const char* what);

    // gpu_timing.cpp
    std::optional<fault> time(const problem_state& s, const module& cand,
                              const candidate_request& r, candidate_result& out);
};

} // namespace ktune::measure
