#pragma once
// The tune loop behind a seam: the baseline, the search, the default joining the finalists, the
// confirmation round and the filing of the winner, written against candidate_evaluator. The real
// evaluator (tuner_eval.hpp) compiles on the compile pool and times on one worker per GPU; unit
// tests drive the same loop with a scripted one, on the CPU.
//
// Units across this seam: kernel times in milliseconds (candidate_record::run, gpu_timing),
// durations of the tune in seconds; file_winner makes the cache's microseconds.
#include "ktune/tune/searcher.hpp"
#include "ktune/tune/space.hpp"
#include "ktune/tune/tuner.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

namespace ktune::tune::detail {

class candidate_evaluator {
public:
    /// Candidates started together (compiling) and measured together.
    struct batch {
        virtual ~batch() = default;
    };
    virtual ~candidate_evaluator() = default;
    candidate_evaluator() = default;
    candidate_evaluator(const candidate_evaluator&) = delete;
    candidate_evaluator& operator=(const candidate_evaluator&) = delete;

    /// Candidates the search proposes per batch.
    [[nodiscard]] virtual std::size_t batch_size() const = 0;
    /// Starts compiling the candidates (each record's cfg and injected fault are set).
    virtual std::unique_ptr<batch> start(std::vector<candidate_record> cands) = 0;
    /// Checks and times a started batch; `done` receives each record, in batch order, as soon
    /// as it and every earlier one are complete. Throws only when a GPU is lost (error kinds
    /// cuda, no_device or timeout), never for a candidate's own failure.
    virtual void measure(batch& b, const std::function<void(candidate_record)>& done) = 0;
    /// Streams candidates (docs/perf/search.md#streaming): `first` (started) and then what
    /// `next(n)` gives (up to n more; empty: no more), at most `window` in flight, each record
    /// to `done` as soon as it is measured, in the order they finish; `next` is asked again
    /// after each result. This default runs `next`'s answers as batches, one after the other.
    /// Throws as measure does.
    using next_candidates = std::function<std::vector<candidate_record>(std::size_t)>;
    virtual void stream(std::size_t window, std::unique_ptr<batch> first,
                        const next_candidates& next,
                        const std::function<void(candidate_record)>& done) {
        for (auto b = std::move(first); b;) {
            measure(*b, done);
            auto more = next(window);
            b = more.empty() ? nullptr : start(std::move(more));
        }
    }
    /// Times an already measured config again on every GPU of the tune: one record per GPU
    /// (gpu set; a failed re-measurement has a status other than ok).
    virtual std::vector<candidate_record> remeasure(const config& c,
                                                    const measure::measure_policy& p) = 0;
    /// After the baseline was measured: the real evaluator checks its workers' GPUs here.
    virtual void after_baseline(tune_report& rep) { (void)rep; }
    /// Worker, compile-server and wait statistics into the report.
    virtual void fill_stats(tune_report& rep) const { (void)rep; }
};

/// Baseline, search (compile-ahead as rq says), default joining and confirmation on `ev`:
/// fills rep.baseline, rep.candidates (the one list of records, in evaluation order),
/// rep.winner_index, rep.tied and rep.default_joined. Returns false when nothing passed.
bool run_search(const tune_request& rq, const space& sp, const config& default_cfg,
                candidate_evaluator& ev, tune_report& rep, const tune_progress& progress);

/// The confirmation round on rep.candidates: the leaders (medians within `band` of the best, at
/// most 4, the default among them once joined) timed again on every GPU, interleaved, and one
/// tie-aware decision over all GPUs' samples (decide_across_gpus). Returns the winner's index.
std::size_t confirm(tune_report& rep, candidate_evaluator& ev, const space& sp, std::size_t best,
                    const measure::measure_policy& base, double band);

/// One tie-aware decision over samples taken on several GPUs of one kind. GPUs of one kind
/// differ by a near-constant factor (clocks, thermals), so each GPU's samples are scaled by
/// that GPU's factor (the median over the finalists of median(finalist on this GPU) /
/// median(finalist on the first GPU)) before they are pooled per finalist; select_best then
/// decides on the pooled, scaled samples. `samples[f]` holds finalist f's (gpu, sample ms)
/// pairs; gpus lists the GPUs (the first is the scale every pooled time is expressed in).
/// Returns the pooled, scaled samples per finalist, for the caller's interval.
struct cross_gpu_choice {
    std::size_t best = 0;
    std::size_t tied = 0;
    std::vector<std::vector<double>> pooled;
};
cross_gpu_choice decide_across_gpus(const std::vector<std::vector<std::pair<int, double>>>& samples,
                                    const std::vector<point>& where, const space& sp);

/// The cache entry of rep's winner (milliseconds → the cache's microseconds, here only), filed
/// in `cache_path` (and rq.shared_cache) when rq.write_cache.
void file_winner(tune_report& rep, const tune_request& rq, const cache::cache_key& key,
                 const device_info& dev, const std::filesystem::path& cache_path);

} // namespace ktune::tune::detail
