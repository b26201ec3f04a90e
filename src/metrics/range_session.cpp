#include "ktune/metrics/range_session.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ktune::metrics {

range_session::range_session(metric_set set, sampling_options sampling,
                             std::unique_ptr<range_backend> backend, std::size_t batch)
    : range_session([set](tensor_precision) { return set; }, std::move(sampling),
                    std::move(backend), batch) {}

range_session::range_session(set_resolver resolve, sampling_options sampling,
                             std::unique_ptr<range_backend> backend, std::size_t batch)
    : resolve_(std::move(resolve)), policy_(std::move(sampling)), backend_(std::move(backend)),
      batch_(batch == 0 ? 1 : batch) {
    if (!backend_ || !resolve_)
        throw error(error_kind::internal, "range_session without a backend or a metric set");
    doc_.chip = backend_->chip();
    use(resolved_.emplace(tensor_precision::bf16, resolve_(tensor_precision::bf16)).first->second);
}

void range_session::use(const metric_set& set) {
    if (!set.chip.empty() && set.chip != doc_.chip)
        throw error(error_kind::usage, fmt::format("metric set resolved for {}, but the GPU is {}",
                                                   set.chip, doc_.chip));
    if (!set_.metrics.empty() && set.metrics == set_.metrics) return;
    drain(); // pending ranges belong to the old configuration
    set_ = set;
    backend_->configure(set_.metrics, batch_);
    doc_.metric_set = set_.name;
    doc_.passes = std::max(doc_.passes, set_.passes);
}

range_session::~range_session() = default;

bool range_session::launch_begin(std::string_view name, std::uint64_t launch_index,
                                 std::uint64_t correlation_id, bool cooperative) {
    if (active_ || policy_.decide(name, cooperative) != sample_decision::profile) return false;
    const tensor_precision p = guess_tensor_precision(name);
    auto it = resolved_.find(p);
    if (it == resolved_.end()) it = resolved_.emplace(p, resolve_(p)).first;
    use(it->second);
    pending_.push_back({std::string(name), launch_index, correlation_id});
    backend_->start();
    active_ = true;
    return true;
}

void range_session::launch_end() {
    if (!active_) return;
    backend_->stop();
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
    doc_.denied = policy_.denied();
    return doc_;
}

} // namespace ktune::metrics
