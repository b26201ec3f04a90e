#pragma once
// The autotuning loop for a registered op on the GPU: look the key up in the config cache
// (a hit answers at once), else search the op's space with a strategy, compile candidates on
// every core while a worker process checks and times earlier ones, pick the tie-aware winner
// and file it in the cache. With several GPUs (tune_request::gpus) the candidates are spread over
// one worker per GPU and the finalists re-measured on every GPU (docs/perf/tune.md, "Several
// GPUs").
//
// Units: every kernel time in this header is in milliseconds (double), every duration of the
// tune itself in seconds; the cache entry's microseconds are made in one place (the loop's
// filing of the winner).
//
//   ktune::tune::tune_request rq;
//   rq.op = "softmax"; rq.prob = {{8192, 8192}, ktune::ops::dtype::bf16};
//   ktune::tune::tune_report r = ktune::tune::tune_op(rq);
//   use(r.winner.cfg);    // r.cache_hit says whether anything was measured

#include "ktune/cache/entry.hpp"
#include "ktune/core/device.hpp"
#include "ktune/kernel/problem.hpp"
#include "ktune/measure/candidate.hpp"
#include "ktune/ops/op.hpp"
#include "ktune/tune/searcher.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ktune::tune {

struct tune_request {
    std::string op;
    ops::problem prob;
    /// A user kernel instead of a built-in op (`ktune tune --kernel spec.json --problem ...`):
    /// its spec file and problem; op and prob are then not used
    /// (docs/perf/kernel.md#tuning-a-user-kernel).
    std::filesystem::path kernel_spec;
    kernel::problem kernel_problem;
    /// With kernel_spec: a capture directory (ktune/kernel/capture.hpp) whose problem, inputs,
    /// scalars and outputs (the reference) replace kernel_problem and the spec's generators:
    /// the application's real data (`ktune tune --kernel SPEC --capture DIR`).
    std::filesystem::path kernel_capture;
    std::string strategy = "auto";
    std::size_t budget = 0; ///< evaluated configs; 0: 256 (or the whole space if smaller)
    std::uint64_t seed = 0;
    std::filesystem::path cache_file; ///< empty: cache::default_cache_path()
    bool read_cache = true;           ///< false: always search (the result is still stored)
    bool write_cache = true;
    /// The shared cache tier (redis://host:port/db or unix:///path.sock): asked on a local miss,
    /// and the winner written to it as well as to the file; fail-open (docs/formats.md, the
    /// Redis section). Empty: the file alone.
    std::string shared_cache;
    measure::measure_policy policy;
    std::chrono::milliseconds candidate_timeout{10000};
    std::vector<std::string> worker_command; ///< empty: worker::default_worker_command()
    unsigned compile_threads = 0;            ///< 0: every core
    /// Compile in one compile-server process per slot (NVRTC serialises inside a process);
    /// false: threads of this process. Without a cubin cache directory threads are used.
    bool compile_processes = true;
    /// Candidates compiled together in one NVRTC program (compile_batch); 1: one each.
    std::size_t candidates_per_program = 2;
    /// A strategy that learns from its results (searcher::live_batch_cap) streams: `batch`
    /// candidates in flight, each measured as soon as its own compile is done and one proposed
    /// for each result, so no candidate waits for a slower compile of its batch
    /// (docs/perf/search.md#streaming). false, or a strategy that ignores its results: batches.
    bool stream = true;
    /// Batches: propose and compile the next batch while this one is measured (the search then
    /// decides one batch behind its newest results); false: strictly propose → measure → observe.
    bool compile_ahead = true;
    /// Configs per proposal (streaming: in flight). 0: a stream keeps one a compile thread, at
    /// most 2 x searcher::live_batch_cap a GPU; batches are 2 x the compile threads, at most
    /// live_batch_cap a GPU (docs/perf/search.md#live-batches, #streaming).
    std::size_t batch = 0;
    /// Tests and benchmarks only: this fraction of candidates is compiled with an injected
    /// fault (a wrong element, an out-of-bounds write, or a hang), chosen by config hash.
    double fault_injection = 0;
    /// The set-up overlaps (each on by default; benchmarks switch them off for before/after):
    /// the worker told the problem ahead, so it allocates while the baseline compiles;
    bool prepare_worker = true;
    /// compile servers started at a slot's first cubin-cache miss, not all at once;
    bool lazy_compile_servers = true;
    /// the worker spawned before this process's device query when the cache cannot hit;
    bool early_worker = true;
    /// the device query read from this boot's record (no driver client in this process).
    bool device_record = true;
    /// > 0: measure on a worker that outlives this process and waits this many seconds for the
    /// next tune (opt-in, one client at a time; ktune/worker/worker.hpp): a later tune skips the
    /// worker's GPU context, buffers and helper kernels. 0: a worker of this tune's own.
    int keep_worker_s = 0;
    /// The GPUs to tune on, as ordinals of this process's CUDA device list (parse_gpus). Empty:
    /// CUDA's default device, as before. Several: one worker per GPU (started with
    /// CUDA_VISIBLE_DEVICES naming it), one compile pool for all; they must be of one kind.
    std::vector<int> gpus;
};

/// How a candidate was broken on purpose (fault_injection), for the fault benchmark's audit.
enum class injected_fault : std::uint8_t { none, wrong_element, illegal_address, hang };

/// One GPU's timing of a finalist in the confirmation round.
struct gpu_timing {
    int gpu = -1; ///< ordinal (tune_request::gpus); -1: CUDA's default device
    double median_ms = 0;
    std::size_t samples = 0;
    bool operator==(const gpu_timing&) const = default;
};

struct candidate_record {
    config cfg;
    int gpu = -1; ///< the GPU that timed it in the search (-1: CUDA's default device)
    /// Confirmation round only: the finalist's median on each GPU of the tune.
    std::vector<gpu_timing> per_gpu;
    eval_status status = eval_status::ok;
    std::string message;
    measure::candidate_result run; ///< the worker's answer (samples, CI, clocks, …)
    double compile_ms = 0;
    bool cubin_cache_hit = false;
    injected_fault injected = injected_fault::none;
    /// Seconds since the tune began when this result came in (time-to-target comparisons).
    double done_s = 0;
};

struct tune_report {
    /// When the tune began (candidates' done_s count from here).
    std::chrono::steady_clock::time_point began{};
    bool cache_hit = false;
    cache::entry winner;          ///< the cache entry (config, median + CI, provenance)
    std::size_t winner_index = 0; ///< into candidates (when searched)
    std::size_t tied = 0;         ///< configs whose CI overlaps the winner's (itself included)
    std::vector<candidate_record> candidates; ///< in evaluation order
    bool default_joined = false;  ///< the default config (baseline) was appended to candidates
    candidate_record baseline;    ///< the op's default config
    double bytes = 0;             ///< the op's byte model
    double copy_gbs = 0;          ///< measured device-to-device copy, read + written
    bool copy_gbs_cached = false; ///< copy_gbs came from the per-device file (copy_gbs_for)
    double wall_s = 0;
    double gpu_busy_s = 0;     ///< device-side spans of all candidates' work
    double compile_s = 0;      ///< summed over compile threads
    double compile_wait_s = 0; ///< the loop waited for a compile (the GPU idled unless queued)
    double setup_s = 0;   ///< start → baseline measured (contexts, copy bandwidth, first compile)
    double confirm_s = 0; ///< the confirmation round of the leaders
    double confirm_busy_s = 0; ///< of gpu_busy_s: the confirmation round's share
    double worker_setup_s = 0; ///< workers' own set-up (GPU context, buffers, helper kernels)
    /// Where the set-up went, in seconds since the tune began: this process's steps
    /// ("processes_started", "device_query", "copy_gbs", "baseline_compiled", "baseline") and
    /// the worker's own ("worker:spawn", "worker:main", "worker:context", …, "worker:helpers",
    /// "worker:prepared", "worker:first_request", "worker:first_answer"), each in its order.
    std::vector<std::pair<std::string, double>> setup_marks;
    int workers_spawned = 0;
    bool worker_kept = false;        ///< measured on a kept worker (keep_worker_s)
    std::string keep_note;           ///< why a kept worker was asked for and not used
    int compile_servers = 0;         ///< compile-server processes started (0: threads)
    int compile_server_failures = 0; ///< servers that died or hung mid-batch (replaced)
    std::string strategy;
    std::vector<int> gpus; ///< the GPUs measured on (empty: CUDA's default device)
    /// How the search met its results: "stream", "ahead" (batches, the next compiling while one
    /// is measured) or "lockstep" (docs/perf/search.md#streaming); and the configs in flight
    /// (a stream's window) or per batch.
    std::string pipeline;
    std::size_t in_flight = 0;
};

/// What a request tunes, as reports print it: the op or the kernel spec's name, the shape
/// ("8192x8192") or the problem ("M=4096,N=4096,K=4096"), and the element type (a kernel's
/// buffer types joined by '+', kernel::kernel_dtype).
struct tune_labels {
    std::string op;
    std::string problem;
    std::string dtype;
    /// "softmax 8192x8192 bf16".
    [[nodiscard]] std::string to_string() const;
};
/// Throws error{input} (file:line:column) for a user kernel whose spec does not load.
tune_labels labels_of(const tune_request& rq);

/// Called after each evaluated candidate: (report so far, done, budget).
using tune_progress = std::function<void(const tune_report&, std::size_t, std::size_t)>;

/// rq's winner from the cache file (rq.read_cache honoured) without starting anything: a report
/// with cache_hit, or nullopt on a miss.
std::optional<tune_report> cached_tune(const tune_request& rq);

/// Throws error{not_found} for an unknown op or strategy, error{no_device} without a GPU.
/// A candidate's failure never throws: it is a status in the report.
tune_report tune_op(const tune_request& rq, const tune_progress& progress = {});

namespace detail {
struct runtime;
}

/// Several tunes on one measurement worker and one set of compile servers: the second and later
/// tunes skip their start-up (the worker's CUDA context, buffers and helper kernels, NVRTC's
/// start in every server: 0.25-0.4 s on the H200, a third of a warm 200-candidate tune).
///
///   ktune::tune::tune_session s;              // starts the worker and the compile servers
///   for (auto& rq : requests) reports.push_back(s.tune(rq));
class tune_session {
public:
    /// The worker command, compile threads and compile_processes of `setup` hold for every
    /// tune of the session (those fields of later requests are not looked at).
    explicit tune_session(const tune_request& setup = {});
    ~tune_session();
    tune_session(const tune_session&) = delete;
    tune_session& operator=(const tune_session&) = delete;
    /// As tune_op(rq, progress), on the session's worker and compile servers.
    tune_report tune(const tune_request& rq, const tune_progress& progress = {});

private:
    std::unique_ptr<detail::runtime> rt_;
};

/// The cache key a tune of rq would file its winner under, on this machine.
cache::cache_key tune_key(const tune_request& rq);
/// The same for a given environment (arch, toolkit, driver): the one derivation of a tune's key,
/// which tune_key, cached_tune and the tune itself all use.
cache::cache_key tune_key(const tune_request& rq, const cache::environment& env);

/// `--gpus` text: "all" (every GPU of `q`) or a comma list of ordinals ("0,2"). Throws
/// error{usage} naming the problem for an unknown ordinal, a duplicate, an empty item, or GPUs
/// of different kinds (name or arch differ: they are never pooled in one decision).
std::vector<int> parse_gpus(const std::string& text, const device_query& q);

/// PyTorch's equivalent of an op, timed with the same protocol (L2 flushed outside the events,
/// CUDA events, median of 50; in-place inputs restored before each launch).
struct torch_timing {
    bool ok = false;
    double median_ms = 0;
    std::string expression;    ///< what was timed, e.g. "torch.softmax(x, dim=-1)"
    std::string torch_version; ///< torch.__version__
    std::string message;       ///< why not, when !ok (no python, no torch, no equivalent)
};

/// Runs the bundled timing script with $KTUNE_PYTHON (default python3) on rq's op and problem.
/// Never throws for a missing interpreter, torch or GPU: ok=false and a message saying so.
torch_timing time_torch_equivalent(const tune_request& rq);

/// Device-to-device copy bandwidth (bytes read + written per second / 1e9): the copy roof
/// (measure::measure_copy_bandwidth), copying `bytes` each way (0: 512 MiB), that "% of copy BW"
/// refers to.
double measure_copy_gbs(std::size_t bytes = 0);
/// The copy an op moving `op_bytes` (read + written) is compared with: half of it each way,
/// rounded up to a power of two in [1 MiB, 512 MiB] (0: 512 MiB). A copy of the op's own size
/// sees the same L2 effects (writes still draining at the end event), so no op reads above it
/// (docs/perf/tune.md#the-copy-roof).
std::size_t copy_roof_bytes(double op_bytes);
/// measure_copy_gbs(bytes) once per device, driver and size: kept in the cubin cache directory
/// (copy-gbs-v4-<uuid>-driver<version>[-<size>MiB].txt) and measured again when older than a
/// day, so a tune needs no CUDA context of its own. *cached says whether the file answered.
double copy_gbs_for(const device_info& dev, const std::string& driver, bool* cached = nullptr,
                    std::size_t bytes = 0);
} // namespace ktune::tune
