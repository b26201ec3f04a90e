// The timed loop of one candidate (DESIGN.md's protocol): warm-up, then batches of event-timed
// launches, each after an L2 flush outside its events, until the stopping rule is met.
#include "ktune/core/check.hpp"
#include "ktune/measure/sample_stats.hpp"
#include "ktune/measure/stopping.hpp"
#include "measure/gpu_runner_impl.hpp"

#include <algorithm>

namespace ktune::measure {
namespace {
constexpr int batch = 8;
constexpr int per_set = 2 * batch + 2; // begin/end per launch, then the batch's begin/end
} // namespace

std::optional<fault> gpu_runner::impl::time(const problem_state& s, const module& cand,
                                            const candidate_request& r, candidate_result& out) {
    const auto g = geometry_of(s, r);
    // In-place kernels start every launch from the checked inputs, restored outside the
    // timed window (before the L2 flush, so the copy leaves nothing useful in L2).
    const bool restore_each = r.policy.restore_in_place;
    if (timing_events.size() < 2 * per_set) timing_events.resize(2 * per_set);
    const auto event = [&](int set, int i) { return timing_events[set * per_set + i].get(); };
    // One batch into event set `set`; the warm-up rides in the first batch's span (it is
    // GPU work) but outside every sample's events.
    const auto enqueue = [&](int set, bool warmup) {
        KTUNE_CUDA_CALL(cudaEventRecord(event(set, 2 * batch), stream.get()));
        for (int i = 0; warmup && i < r.policy.warmup; ++i) {
            if (restore_each) restore(s);
            launch_op(s, cand, g, false);
        }
        for (int i = 0; i < batch; ++i) {
            if (restore_each) restore(s);
            // Flush L2 outside the timed window so every launch reads from DRAM and starts
            // with no dirty lines of earlier work to write back.
            if (r.policy.flush_l2) flush->enqueue(stream.get());
            KTUNE_CUDA_CALL(cudaEventRecord(event(set, 2 * i), stream.get()));
            launch_op(s, cand, g, false);
            KTUNE_CUDA_CALL(cudaEventRecord(event(set, 2 * i + 1), stream.get()));
        }
        KTUNE_CUDA_CALL(cudaEventRecord(event(set, 2 * batch + 1), stream.get()));
    };
    const auto collect = [&](int set) -> std::optional<fault> {
        if (const cudaError_t e = cudaEventSynchronize(event(set, 2 * batch + 1)); e != cudaSuccess)
            return fault{run_status::launch_error, cudaGetErrorString(e), true};
        for (int i = 0; i < batch; ++i)
            out.samples_ms.push_back(ms_between(event(set, 2 * i), event(set, 2 * i + 1)));
        out.gpu_busy_ms += ms_between(event(set, 2 * batch), event(set, 2 * batch + 1));
        return std::nullopt;
    };
    const auto t0 = std::chrono::steady_clock::now();
    int cur = 0;
    enqueue(cur, true);
    for (;;) {
        // The next batch is queued before this one is read only when the stopping rule cannot
        // be met without it (fewer than min_samples after this batch): the GPU then never
        // waits for the host, and no launch is timed that the rule would not have asked for.
        const bool certain =
            static_cast<int>(out.samples_ms.size()) + 2 * batch <= r.policy.min_samples;
        if (certain) enqueue(cur ^ 1, false);
        if (auto f = collect(cur)) return f;
        cur ^= 1;
        if (certain) continue;
        const double el =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        if (should_stop(out.samples_ms, r.policy, el).stop) break;
        enqueue(cur, false);
    }
    const auto sum = summarize(out.samples_ms);
    out.median_ms = sum.median;
    out.ci_lo_ms = sum.median_ci.lo;
    out.ci_hi_ms = sum.median_ci.hi;
    // NVML queries cost milliseconds: refreshed at most every 250 ms, which still catches
    // a clock step or throttling within a few candidates.
    const auto now = std::chrono::steady_clock::now();
    if (now - clocks_at > std::chrono::milliseconds(250)) {
        clocks = read_clocks(dev);
        clocks_at = now;
    }
    if (clocks) {
        out.clocks = *clocks;
        out.clocks_known = true;
    }
    return std::nullopt;
}

} // namespace ktune::measure
