#include "profile_metrics.hpp"

#include "ktune/core/device.hpp"
#include "ktune/metrics/device_measure.hpp"
#include "ktune/metrics/kernel_metrics.hpp"
#include "ktune/metrics/launch_options.hpp"
#include "ktune/metrics/metric_host.hpp"
#include "ktune/metrics/range_session.hpp"
#include "ktune/metrics/sampling.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace ktune::cli {

void add_profile_metrics_options(CLI::App& app, profile_metrics_options& o) {
    app.add_option("--metrics", o.set,
                   "Hardware metrics of sampled launches, stored in the trace: roofline, "
                   "occupancy, stalls or a comma list of metric names");
    app.add_option("--kernels", o.kernels,
                   "Only kernels whose name matches this regex get metrics");
    app.add_option("--sample", o.sample, "Profile launch 0, N, 2N, ... of each kernel (1/N)")
        ->capture_default_str();
    app.add_option("--max-metric-kernels", o.max_kernels, "Distinct kernels that get metrics")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--max-per-kernel", o.per_kernel,
                   "Metric samples per kernel (under --replay launches a sample spans as many "
                   "launches as the set has passes)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--deny", o.deny,
                   "Regex of kernels never to serialise (NCCL, cooperative and persistent "
                   "kernels are always denied)");
    app.add_option("--peaks", o.peaks,
                   "Measured roofs to record in the trace (`ktune device --measure --json`)")
        ->check(CLI::ExistingFile);
    app.add_option("--max-passes", o.max_passes, "Replay-pass budget per profiled kernel")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--cache-control", o.cache_control,
                   "all: write back and invalidate L2 before each profiled range, as ncu does "
                   "(under --replay kernel only its first pass follows the flush); none: leave "
                   "the caches as the program left them. Default: all with --replay launches, "
                   "none with --replay kernel")
        ->check(CLI::IsMember({"all", "none"}));
    app.add_option("--replay", o.replay,
                   "kernel: CUPTI replays each profiled launch once per pass (saving and "
                   "restoring memory); launches: pass i runs on a later launch of the same "
                   "kernel and launch shape, one pass covering every sampled kernel of a loop "
                   "iteration; nothing is replayed (kernels that do not come back once per "
                   "pass are reported incomplete)")
        ->capture_default_str()
        ->check(CLI::IsMember({"kernel", "launches"}));
}

void export_profile_metrics(const profile_metrics_options& o) {
    if (o.set.empty()) return;
    metrics::sampling_options s;
    s.kernel_regex = o.kernels;
    s.deny_regex = o.deny;
    s.sample_every = metrics::parse_sample_rate(o.sample);
    s.max_kernels = o.max_kernels;
    s.max_per_kernel = o.per_kernel;
    metrics::sampling_policy check(s); // throws for a bad regex
    const auto spec = metrics::metric_set_request(o.set, metrics::tensor_precision::measure);
    if (!o.peaks.empty()) (void)metrics::read_measured_peaks(o.peaks);
    // With a GPU here, resolve on its chip now: an unknown metric or a set over the pass
    // budget is refused before the program runs, not at its first sampled launch.
    const auto q = query_devices();
    std::string peaks = o.peaks, resolved;
    if (!q.devices.empty()) {
        // The profiled process uses this resolution when its GPU is the same chip.
        if (const auto chip = metrics::default_chip_for_arch(q.devices.front().arch()))
            resolved =
                metrics::encode_metric_set(metrics::resolve_metric_set(spec, *chip, o.max_passes));
        // Without --peaks, the roofs `ktune device --measure` saved for this GPU, if any.
        if (peaks.empty())
            if (const auto saved = metrics::find_saved_peaks(q.devices.front().name)) {
                peaks = saved->string();
                fmt::print(stderr, "ktune profile: recording the measured peaks of {}\n", peaks);
            }
    }
    metrics::launch_options l;
    l.set = o.set;
    l.sampling = s;
    l.max_passes = o.max_passes;
    l.replay = metrics::parse_replay_mode(o.replay);
    l.flush_l2 = o.cache_control.empty() ? l.replay == metrics::replay_mode::launches
                                         : o.cache_control == "all";
    l.resolved = resolved;
    // The program may change directory: hand it an absolute path.
    if (!peaks.empty()) l.peaks_file = std::filesystem::absolute(peaks).string();
    metrics::export_launch_env(l);
}

} // namespace ktune::cli
