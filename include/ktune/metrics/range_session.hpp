#pragma once
// Hardware metrics for sampled kernel launches through the CUPTI range profiler (auto range,
// kernel replay). The session brackets each sampled launch with start/stop, so only those
// launches are serialised and replayed; everything else runs untouched. CUPTI sits behind
// `range_backend`, so the sampling, batching, drop accounting and the join of ranges to
// launches are unit-tested with synthetic ranges.
//
//   range_session s(set, {.sample_every = 10}, make_cupti_range_backend());
//   if (s.launch_begin(name, i, corr, false)) { launch(); s.launch_end(); } else launch();
//   write_kernel_metrics("run.metrics.json", s.finish());
//
// replay_mode::launches replays nothing: pass i of the set is collected on a later natural
// launch of the same kernel (name + launch shape), CUPTI's user replay driven by the launches the
// program makes anyway, and one pass covers many kernels (range_session_launches.cpp): CUPTI's
// cost is per pass (~25 ms for start + stop on an H200, bench_range_probe), a user range around
// one launch ~1 ms. Ranges are named by the kernel's place in the sequence and CUPTI matches a
// later pass's ranges to pass 0's by name, in any order (the probe's reordered pass). Pass 0 opens
// on the first sampled launch and pushes one range per distinct sampled kernel as the program
// launches them (up to `launches_ranges_per_pass`); it closes once every kernel in it has been
// launched again since the last one joined (a loop iteration went by, or a kernel repeats back to
// back), or when those that came back came back more than `other_repeats` times each while one
// never did (PyTorch's weight initialisation before the loop). Each later pass takes the next
// launch of each kernel, in whatever order they come, and closes when it has them all; kernels
// that do not come back while every kernel the pass has came back twice (or within `patience`
// launches) get an empty range, so the pass still holds every name, and are reported
// incomplete; so is every kernel of a sequence still open at exit. The
// sequence is decoded once, after its last pass. Each range is profiled alone (the L2 flush right
// before its push); the launch runs once, so no device memory is saved or restored.

#include "ktune/metrics/kernel_metrics.hpp"
#include "ktune/metrics/metric_set.hpp"
#include "ktune/metrics/sampling.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::metrics {

enum class replay_mode {
    kernel,   ///< CUPTI replays each profiled launch once per pass (saves/restores memory)
    launches, ///< pass i on the i-th profiled natural launch of the kernel (user replay)
};

/// "kernel" | "launches". Throws error_kind::usage otherwise.
replay_mode parse_replay_mode(std::string_view s);
std::string_view to_string(replay_mode r) noexcept;

/// The target side of the range profiler on the current CUDA context.
class range_backend {
public:
    /// What a stop reports: the pass the next start collects, and whether every pass of the
    /// set has now been submitted (always true under kernel replay).
    struct pass_state {
        std::size_t next_pass = 0;
        bool all_submitted = true;
    };
    struct decoded {
        std::uint64_t dropped = 0;               ///< ranges CUPTI could not store
        std::vector<std::string> range_names;    ///< one per stored range, in launch order
        std::vector<std::vector<double>> values; ///< per range, one value per metric
    };
    virtual ~range_backend() = default;
    /// CUPTI chip name of the current device (e.g. "GH100").
    virtual std::string chip() = 0;
    /// Configure `metrics` for up to `max_ranges` ranges between decodes.
    virtual void configure(std::span<const std::string> metrics, std::size_t max_ranges,
                           replay_mode replay) = 0;
    /// Launches mode, before start: the pass the next range collects; 0 begins a new kernel and
    /// discards the passes of an unfinished one.
    virtual void begin_pass(std::size_t pass) = 0;
    virtual void start() = 0; ///< the next kernel launches are profiled, one range each
    virtual pass_state stop() = 0;
    /// Launches mode, between start and stop: a range around the next launch (none: an empty
    /// range that keeps later ranges matched to pass 0's). Drains the context first, so the
    /// range holds that launch alone.
    virtual void push_range(std::string_view name) = 0;
    /// `wait`: synchronise before closing, for a launch on a stream whose order with the
    /// profiler's own commands is not known (not the legacy default stream).
    virtual void pop_range(bool wait) = 0;
    /// Decode and evaluate every range since the last decode, then reset the counter image.
    virtual decoded decode() = 0;
};

/// The real backend on the current CUDA context. Throws error_kind::cupti (another profiler
/// holds the counters, insufficient privileges) or no_device.
std::unique_ptr<range_backend> make_cupti_range_backend();

/// The metric set for a kernel whose tensor precision is guessed as the argument, resolved for
/// the backend's chip, e.g. `[&](auto p) { return resolve_metric_set(metric_set_request("roofline",
/// p), chip, 3); }`.
using set_resolver = std::function<metric_set(tensor_precision)>;

class range_session {
public:
    /// One set for every kernel. `set` must be resolved for the backend's chip. `batch` ranges
    /// are decoded at a time.
    range_session(metric_set set, const sampling_options& sampling,
                  std::unique_ptr<range_backend> backend, std::size_t batch = 64,
                  replay_mode replay = replay_mode::kernel);
    /// A set per kernel: the one for the tensor precision its name suggests
    /// (guess_tensor_precision), so each kernel pays for one tensor metric only. Switching sets
    /// decodes the pending batch and reconfigures the backend.
    range_session(set_resolver resolve, const sampling_options& sampling,
                  std::unique_ptr<range_backend> backend, std::size_t batch = 64,
                  replay_mode replay = replay_mode::kernel);
    ~range_session();
    range_session(const range_session&) = delete;
    range_session& operator=(const range_session&) = delete;

    /// Before a launch: true when this launch is sampled, and profiling has started for it.
    /// `shape` identifies the launch configuration (grid, block, shared memory): launches mode
    /// merges passes only across launches of equal name and shape. `before_start` runs right
    /// before the range starts (the L2 flush), only for launches that are profiled.
    bool launch_begin(std::string_view kernel_name, std::uint64_t launch_index,
                      std::uint64_t correlation_id, bool cooperative, std::string_view shape = {},
                      const std::function<void()>& before_start = {});
    /// After a launch that launch_begin sampled. `wait`: the launch was on a stream other than
    /// the legacy default stream (launches mode synchronises before closing its range).
    void launch_end(bool wait = false);
    /// Decode what is left; the document joins each range to its launch, in launch order.
    kernel_metrics_doc finish();
    /// Launches mode: pass 0 closes when `launches` candidate launches go by with no kernel
    /// joining, or when the kernels that came back came back more than `other_repeats` times
    /// each while another never did; a later pass gives up on the kernels it lacks (incomplete)
    /// after `launches` candidate launches without a range.
    void set_patience(std::uint64_t launches, std::uint32_t other_repeats = 3) noexcept {
        patience_ = launches;
        other_repeats_ = other_repeats;
    }
    /// Launches mode: launches of each kernel (by name) that run unprofiled before it may join a
    /// sequence (default 1). A user range spans the whole launch call, so a first launch would
    /// count the lazy loading of the kernel's module inside the range (H200, PyTorch: 3-5 ms of
    /// idle GPU in the range of an 8 us kernel's first launch).
    void set_warmup_launches(std::uint32_t launches) noexcept { warmup_ = launches; }

private:
    struct pending {
        std::string name;
        std::uint64_t launch_index, correlation_id;
    };
    /// Launches mode: the kernels of one multi-range pass sequence (range i = kernels[i]).
    struct batch_kernel {
        std::string key, name;
        std::string work; ///< hash of the parameter bytes ("" not told apart by work)
        std::uint64_t launch_index = 0, correlation_id = 0;
        bool incomplete = false;
        bool taken = false; ///< this pass has its range
        /// Launches since the last kernel joined (pass 0) or since its range (later passes).
        std::uint32_t back = 0;
    };
    struct sequence {
        std::vector<batch_kernel> kernels;
        std::size_t pass = 0;
        bool running = false;     ///< between start and stop
        bool cycle_open = false;  ///< a pass was started and the backend's passes are not all in
        std::uint64_t waited = 0; ///< candidate launches since the last range or join
    };
    void drain();
    void use(const metric_set& set);
    bool begin_launches(std::string_view name, std::uint64_t launch_index,
                        std::uint64_t correlation_id, bool cooperative, std::string_view shape,
                        const std::function<void()>& before_start);
    void end_launches(bool wait);
    bool join_pass0(std::string key, std::string work, std::string_view name,
                    std::uint64_t launch_index, std::uint64_t correlation_id, bool cooperative,
                    const std::function<void()>& before_start, bool admitted);
    /// The key passes merge by; `work` gets the work hash, or "" where it is not used.
    std::string work_key(std::string_view name, std::string_view shape, std::string& work);
    bool admit(std::string_view name, const std::string& key, bool has_work, bool cooperative);
    /// Per name + shape: the work keys seen, until they prove to change on every launch.
    struct work_family {
        std::set<std::string> seen;
        std::uint64_t launches = 0, repeats = 0;
        std::uint64_t repeats_elsewhere_at_first = 0; ///< repeat_events_ at its first launch
        bool varying = false;
    };
    std::uint64_t repeat_events_ = 0; ///< launches whose work key came back, all kernels
    std::map<std::string, work_family> families_;
    std::set<std::string, std::less<>> admitted_;       ///< names the policy admitted
    std::map<std::string, std::uint64_t> work_samples_; ///< samples begun per work key
    std::uint64_t max_per_kernel_ = 1;
    bool take(std::size_t position, const std::function<void()>& before_start);
    void open_pass();
    void push(const std::function<void()>& before_start, std::size_t position);
    void give_up_missing(); ///< empty ranges for the kernels this pass lacks; ends the pass
    /// An empty range under the name of each kernel of the sequence that `missing` picks.
    void push_empty(bool (*missing)(const batch_kernel&));
    /// After a stop: true when the backend collects a later pass of the set, now seq_->pass;
    /// else the cycle is closed. `bounded`: a next pass past the set's passes is out of step.
    bool note_stop(const range_backend::pass_state& state, bool bounded);
    /// No range (pass 0: no kernel joining) for 64 candidate launches per kernel of the
    /// sequence, or for `patience` launches.
    bool stalled(const sequence& b) const noexcept;
    void end_pass();
    void abandon();     ///< the sequence in flight: every kernel incomplete
    void submit_rest(); ///< the backend's remaining passes of a sequence given up on, empty
    set_resolver resolve_;
    std::map<tensor_precision, metric_set> resolved_;
    metric_set set_;
    sampling_policy policy_;
    std::unique_ptr<range_backend> backend_;
    std::size_t batch_;
    bool active_ = false;
    std::vector<pending> pending_;
    kernel_metrics_doc doc_;
    replay_mode replay_;
    std::optional<sequence> seq_;
    std::uint64_t patience_ = 4096;
    std::uint32_t other_repeats_ = 3;
    std::uint32_t warmup_ = 1;
    /// Launches mode, per kernel name: launches seen, counted up to warmup_ + 1.
    std::map<std::string, std::uint32_t, std::less<>> launched_;
    std::vector<std::string> first_seen_; ///< names in the order of their first launch
    std::uint64_t max_kernels_ = 0;       ///< the sampling policy's max_kernels
    void list_warmup_only();              ///< kernels launched only as warm-ups: incomplete
};

/// Launches mode: ranges in one pass, i.e. kernels collected together (the counter image holds
/// as many).
inline constexpr std::size_t launches_ranges_per_pass = 64;

} // namespace ktune::metrics
