#include "ktune/metrics/range_session.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace ktune::metrics {

replay_mode parse_replay_mode(std::string_view s) {
    if (s == "kernel") return replay_mode::kernel;
    if (s == "launches") return replay_mode::launches;
    throw error(error_kind::usage,
                fmt::format("--replay {}: expected kernel (CUPTI replays each profiled launch) "
                            "or launches (pass i on the i-th launch of the kernel)",
                            s));
}

std::string_view to_string(replay_mode r) noexcept {
    return r == replay_mode::launches ? "launches" : "kernel";
}

range_session::range_session(metric_set set, const sampling_options& sampling,
                             std::unique_ptr<range_backend> backend, std::size_t batch,
                             replay_mode replay)
    : range_session([set = std::move(set)](tensor_precision) { return set; }, sampling,
                    std::move(backend), batch, replay) {}

range_session::range_session(set_resolver resolve, const sampling_options& sampling,
                             std::unique_ptr<range_backend> backend, std::size_t batch,
                             replay_mode replay)
    : resolve_(std::move(resolve)), policy_(sampling), backend_(std::move(backend)),
      // launches mode: one range per kernel of a pass, decoded when the last pass is in
      batch_(replay == replay_mode::launches ? launches_ranges_per_pass
             : batch == 0                    ? 1
                                             : batch),
      replay_(replay), max_kernels_(sampling.max_kernels) {
    if (!backend_ || !resolve_)
        throw error(error_kind::internal, "range_session without a backend or a metric set");
    max_per_kernel_ = sampling.max_per_kernel;
    doc_.chip = backend_->chip();
    doc_.replay = std::string(to_string(replay_));
    doc_.range = replay_ == replay_mode::launches ? "user" : "auto";
    use(resolved_.emplace(tensor_precision::bf16, resolve_(tensor_precision::bf16)).first->second);
}

void range_session::use(const metric_set& set) {
    if (!set.chip.empty() && set.chip != doc_.chip)
        throw error(error_kind::usage, fmt::format("metric set resolved for {}, but the GPU is {}",
                                                   set.chip, doc_.chip));
    if (!set_.metrics.empty() && set.metrics == set_.metrics) return;
    drain(); // pending ranges belong to the old configuration
    set_ = set;
    backend_->configure(set_.metrics, batch_, replay_);
    doc_.metric_set = set_.name;
    doc_.passes = std::max(doc_.passes, set_.passes);
}

range_session::~range_session() = default;

bool range_session::launch_begin(std::string_view name, std::uint64_t launch_index,
                                 std::uint64_t correlation_id, bool cooperative,
                                 std::string_view shape,
                                 const std::function<void()>& before_start) {
    if (active_) return false;
    if (replay_ == replay_mode::launches)
        return begin_launches(name, launch_index, correlation_id, cooperative, shape, before_start);
    if (policy_.decide(name, cooperative) != sample_decision::profile) return false;
    const tensor_precision p = guess_tensor_precision(name);
    auto it = resolved_.find(p);
    if (it == resolved_.end()) it = resolved_.emplace(p, resolve_(p)).first;
    use(it->second);
    pending_.push_back({std::string(name), launch_index, correlation_id});
    if (before_start) before_start();
    backend_->start();
    active_ = true;
    return true;
}

void range_session::launch_end(bool wait) {
    if (!active_) return;
    if (replay_ == replay_mode::launches) return end_launches(wait);
    (void)backend_->stop();
    active_ = false;
    if (pending_.size() >= batch_) drain();
}

void range_session::drain() {
    if (pending_.empty()) return;
    const auto d = backend_->decode();
    doc_.dropped_ranges += d.dropped;
    // Auto range stores ranges in launch order; dropped ones are the last of the batch (the
    // image was full), so range i belongs to the i-th pending launch.
    const std::size_t n = std::min(d.values.size(), pending_.size());
    for (std::size_t i = 0; i < n; ++i) {
        kernel_sample s;
        s.name = pending_[i].name;
        s.launch_index = pending_[i].launch_index;
        s.correlation_id = pending_[i].correlation_id;
        for (std::size_t m = 0; m < set_.metrics.size() && m < d.values[i].size(); ++m)
            if (std::isfinite(d.values[i][m])) // NaN: CUPTI could not evaluate it here
                s.values[set_.metrics[m]] = d.values[i][m];
        doc_.kernels.push_back(std::move(s));
    }
    // Launches without a range are dropped too, even where CUPTI's count says otherwise.
    if (pending_.size() > n + d.dropped) doc_.dropped_ranges += pending_.size() - n - d.dropped;
    pending_.clear();
}

kernel_metrics_doc range_session::finish() {
    launch_end();
    drain();
    abandon();
    list_warmup_only();
    doc_.denied = policy_.denied();
    return doc_;
}

} // namespace ktune::metrics
