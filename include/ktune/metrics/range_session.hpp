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

#include "ktune/metrics/kernel_metrics.hpp"
#include "ktune/metrics/metric_set.hpp"
#include "ktune/metrics/sampling.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::metrics {

/// The target side of the range profiler on the current CUDA context.
class range_backend {
public:
    struct decoded {
        std::uint64_t dropped = 0;               ///< ranges CUPTI could not store
        std::vector<std::string> range_names;    ///< one per stored range, in launch order
        std::vector<std::vector<double>> values; ///< per range, one value per metric
    };
    virtual ~range_backend() = default;
    /// CUPTI chip name of the current device (e.g. "GH100").
    virtual std::string chip() = 0;
    /// Configure `metrics` for up to `max_ranges` ranges between decodes.
    virtual void configure(std::span<const std::string> metrics, std::size_t max_ranges) = 0;
    virtual void start() = 0; ///< the next kernel launches are profiled, one range each
    virtual void stop() = 0;
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
    range_session(metric_set set, sampling_options sampling, std::unique_ptr<range_backend> backend,
                  std::size_t batch = 64);
    /// A set per kernel: the one for the tensor precision its name suggests
    /// (guess_tensor_precision), so each kernel pays for one tensor metric only. Switching sets
    /// decodes the pending batch and reconfigures the backend.
    range_session(set_resolver resolve, sampling_options sampling,
                  std::unique_ptr<range_backend> backend, std::size_t batch = 64);
    ~range_session();
    range_session(const range_session&) = delete;
    range_session& operator=(const range_session&) = delete;

    /// Before a launch: true when this launch is sampled, and profiling has started for it.
    bool launch_begin(std::string_view kernel_name, std::uint64_t launch_index,
                      std::uint64_t correlation_id, bool cooperative);
    /// After a launch that launch_begin sampled.
    void launch_end();
    /// Decode what is left; the document joins each range to its launch, in launch order.
    kernel_metrics_doc finish();

private:
    struct pending {
        std::string name;
        std::uint64_t launch_index, correlation_id;
    };
    void drain();
    void use(const metric_set& set);
    set_resolver resolve_;
    std::map<tensor_precision, metric_set> resolved_;
    metric_set set_;
    sampling_policy policy_;
    std::unique_ptr<range_backend> backend_;
    std::size_t batch_;
    bool active_ = false;
    std::vector<pending> pending_;
    kernel_metrics_doc doc_;
};

} // namespace ktune::metrics
