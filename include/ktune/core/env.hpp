#pragma once
// Every KTUNE_* environment variable ktune reads, one name each with what it does. Code reads
// them through these names (never a string literal), so this list is complete by construction
// of the review: `grep -rn '"KTUNE_' src tools` finds nothing else.
//
//   if (const char* d = std::getenv(ktune::env::cubin_cache)) ...

namespace ktune::env {

// --- Caches and files -------------------------------------------------------------------------
/// Default cache file of tuned configs (`ktune tune`, cache lookups); else the XDG cache dir.
inline constexpr const char* cache = "KTUNE_CACHE";
/// Directory of compiled cubins, the recorded device query and the copy roof.
inline constexpr const char* cubin_cache = "KTUNE_CUBIN_CACHE";
/// Directory of the peaks `ktune device --measure` saves per GPU name.
inline constexpr const char* peaks_dir = "KTUNE_PEAKS_DIR";

// --- Worker and compile processes -------------------------------------------------------------
/// Path of the ktune-worker executable (else found beside the program, libktune, build tree).
inline constexpr const char* worker = "KTUNE_WORKER";
/// "compile": ktune-worker serves NVRTC compiles instead of running candidates.
inline constexpr const char* worker_role = "KTUNE_WORKER_ROLE";
/// Socket of a kept worker: ktune-worker serves clients there instead of its pipes.
inline constexpr const char* worker_daemon = "KTUNE_WORKER_DAEMON";
/// Seconds a kept worker waits for its next client before it exits.
inline constexpr const char* worker_idle = "KTUNE_WORKER_IDLE";
/// Prefix of the worker's own variables, dropped from a kept worker's inherited environment.
inline constexpr const char* worker_prefix = "KTUNE_WORKER_";
/// "0": compile without NVRTC's -minimal (a before/after measurement, or a source needing it).
inline constexpr const char* nvrtc_minimal = "KTUNE_NVRTC_MINIMAL";
/// Python interpreter with PyTorch for `ktune tune --vs-torch`.
inline constexpr const char* python = "KTUNE_PYTHON";

// --- `ktune profile` -> libktune_inject.so (trace) ---------------------------------------------
/// Path of libktune_inject.so (else beside the ktune binary / library).
inline constexpr const char* inject_library = "KTUNE_INJECT_LIBRARY";
/// Trace file the profiled process writes.
inline constexpr const char* output = "KTUNE_OUTPUT";
/// pid of the `ktune profile` that started the run (children write their own traces).
inline constexpr const char* root_pid = "KTUNE_ROOT_PID";
/// Seconds after start before recording begins.
inline constexpr const char* delay = "KTUNE_DELAY";
/// Seconds of recording, then the trace is closed.
inline constexpr const char* duration = "KTUNE_DURATION";
/// Comma list of extra records: memcpy, memset, sync, nvtx.
inline constexpr const char* record = "KTUNE_RECORD";
/// How NVTX ranges are linked to launches (callback, external_correlation, …); ablations.
inline constexpr const char* nvtx_link = "KTUNE_NVTX_LINK";
/// "node": one record per CUDA graph node; else one per graph launch.
inline constexpr const char* graph_trace = "KTUNE_GRAPH_TRACE";
/// "0": instrumented kernel timestamps instead of hardware events.
inline constexpr const char* hw_trace = "KTUNE_HW_TRACE";
/// "0": release the CUPTI subscription between phases (ablation).
inline constexpr const char* hold_subscription = "KTUNE_HOLD_SUBSCRIPTION";
/// "0": activity buffers are not zeroed before use (ablation).
inline constexpr const char* zeroed_buffers = "KTUNE_ZEROED_BUFFERS";
/// CUPTI device buffer size in MiB.
inline constexpr const char* device_buffer_mb = "KTUNE_DEVICE_BUFFER_MB";
/// "0": no driver-API records for NVTX linking (ablation).
inline constexpr const char* nvtx_driver_records = "KTUNE_NVTX_DRIVER_RECORDS";
/// Job identifier a run is sampled and stored under (else SLURM_JOB_ID, PBS_JOBID, …).
inline constexpr const char* job_id = "KTUNE_JOB_ID";

// --- `ktune profile --metrics` -> libktune_inject.so (metrics/launch_options.hpp) --------------
/// The metric set (roofline, occupancy, stalls or names); unset: no metrics.
inline constexpr const char* metrics = "KTUNE_METRICS";
/// Regex: only matching kernels get metrics.
inline constexpr const char* metrics_kernels = "KTUNE_METRICS_KERNELS";
/// Regex: kernels never serialised for metrics.
inline constexpr const char* metrics_deny = "KTUNE_METRICS_DENY";
/// Profile launch 0, N, 2N, … of each kernel ("N" or "1/N").
inline constexpr const char* metrics_sample = "KTUNE_METRICS_SAMPLE";
/// Distinct kernels that get metrics.
inline constexpr const char* metrics_max_kernels = "KTUNE_METRICS_MAX_KERNELS";
/// Metric samples per kernel.
inline constexpr const char* metrics_per_kernel = "KTUNE_METRICS_PER_KERNEL";
/// Replay-pass budget per profiled kernel.
inline constexpr const char* metrics_max_passes = "KTUNE_METRICS_MAX_PASSES";
/// "all": flush L2 before each profiled range; "none": leave it.
inline constexpr const char* metrics_cache_control = "KTUNE_METRICS_CACHE_CONTROL";
/// "kernel" or "launches" replay.
inline constexpr const char* metrics_replay = "KTUNE_METRICS_REPLAY";
/// The set already resolved for the launcher's chip (encode_metric_set).
inline constexpr const char* metrics_resolved = "KTUNE_METRICS_RESOLVED";
/// Measured peaks file to record in the trace.
inline constexpr const char* metrics_peaks = "KTUNE_METRICS_PEAKS";
/// "1": each range-profiler pass (set, start, stop with CUPTI's pass index and all-submitted
/// flag) written to stderr: why a sequence of --replay launches ended early.
inline constexpr const char* metrics_log = "KTUNE_METRICS_LOG";

// --- Users' kernels (kernel/) -------------------------------------------------------------------
/// Directory `ktune ops` searches for kernel specs (*.json of schema ktune.kernel), recursively.
inline constexpr const char* kernels = "KTUNE_KERNELS";
/// Directory where kernel::launcher captures each distinct problem it launches (inputs before,
/// outputs after; docs/formats.md#ktunekernel_capture). Slow by design: it synchronises.
inline constexpr const char* capture = "KTUNE_CAPTURE";

} // namespace ktune::env
