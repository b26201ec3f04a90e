#include "tune/tuner_loop.hpp"

#include "ktune/cache/shared_tier.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/measure/sample_stats.hpp"
#include "ktune/tune/selection.hpp"
#include "tune/tuner_faults.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <set>

namespace ktune::tune::detail {
namespace {

observation observation_of(const candidate_record& rec, const space& sp) {
    observation ob;
    ob.where = sp.from_config(rec.cfg);
    ob.status = rec.status;
    if (rec.status == eval_status::ok) {
        ob.time = rec.run.median_ms;
        ob.samples = rec.run.samples_ms;
    }
    ob.cost_s = (rec.compile_ms + rec.run.worker_ms) / 1000.0;
    return ob;
}

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

bool passed(const candidate_record& c) {
    return c.status == eval_status::ok && c.injected == injected_fault::none;
}

} // namespace

cross_gpu_choice decide_across_gpus(const std::vector<std::vector<std::pair<int, double>>>& samples,
                                    const std::vector<point>& where, const space& sp) {
    std::set<int> gpu_set;
    for (const auto& f : samples)
        for (const auto& [g, t] : f)
            gpu_set.insert(g);
    cross_gpu_choice out;
    if (gpu_set.empty()) return out;
    const int first = *gpu_set.begin();
    // Each finalist's median per GPU, then each GPU's factor against the first GPU.
    std::vector<std::map<int, double>> med(samples.size());
    for (std::size_t f = 0; f < samples.size(); ++f) {
        std::map<int, std::vector<double>> by_gpu;
        for (const auto& [g, t] : samples[f])
            by_gpu[g].push_back(t);
        for (auto& [g, v] : by_gpu)
            med[f][g] = median_of(std::move(v));
    }
    std::map<int, double> factor;
    for (int g : gpu_set) {
        std::vector<double> ratios;
        for (const auto& m : med)
            if (m.count(g) && m.count(first) && m.at(first) > 0)
                ratios.push_back(m.at(g) / m.at(first));
        factor[g] = ratios.empty() ? 1.0 : median_of(std::move(ratios));
    }
    std::vector<observation> obs(samples.size());
    out.pooled.resize(samples.size());
    for (std::size_t f = 0; f < samples.size(); ++f) {
        for (const auto& [g, t] : samples[f])
            out.pooled[f].push_back(t / factor[g]);
        obs[f].where = where[f];
        obs[f].status = out.pooled[f].empty() ? eval_status::launch_error : eval_status::ok;
        obs[f].time = median_of(out.pooled[f]);
        obs[f].samples = out.pooled[f];
    }
    if (const auto sel = select_best(obs, sp)) {
        out.best = sel->best;
        out.tied = sel->tied.size();
    }
    return out;
}

std::size_t confirm(tune_report& rep, candidate_evaluator& ev, const space& sp, std::size_t best,
                    const measure::measure_policy& base, double band) {
    const double best_ms = rep.candidates[best].run.median_ms;
    std::vector<std::size_t> leaders;
    for (std::size_t i = 0; i < rep.candidates.size(); ++i)
        if (passed(rep.candidates[i]) && rep.candidates[i].run.median_ms <= best_ms * band)
            leaders.push_back(i);
    std::sort(leaders.begin(), leaders.end(), [&](std::size_t a, std::size_t b) {
        return rep.candidates[a].run.median_ms < rep.candidates[b].run.median_ms;
    });
    if (leaders.size() > 4) leaders.resize(4);
    // One GPU and one leader: nothing to decide. Several GPUs: even a lone leader is timed on
    // each, so the entry records every GPU's median.
    if (leaders.size() < 2 && rep.gpus.size() < 2) return best;
    if (leaders.empty()) return best;
    measure::measure_policy p = base;
    p.min_samples = std::max(base.min_samples, 24);
    std::vector<std::vector<std::pair<int, double>>> samples(leaders.size());
    for (std::size_t k = 0; k < leaders.size(); ++k) {
        const auto& c = rep.candidates[leaders[k]];
        for (double t : c.run.samples_ms)
            samples[k].emplace_back(c.gpu, t);
    }
    for (int round = 0; round < 2; ++round)
        for (std::size_t k = 0; k < leaders.size(); ++k)
            for (const candidate_record& again : ev.remeasure(rep.candidates[leaders[k]].cfg, p)) {
                rep.gpu_busy_s += again.run.gpu_busy_ms / 1000;
                rep.confirm_busy_s += again.run.gpu_busy_ms / 1000;
                if (again.status != eval_status::ok) continue;
                for (double t : again.run.samples_ms)
                    samples[k].emplace_back(again.gpu, t);
            }
    std::vector<point> where;
    where.reserve(leaders.size());
    for (std::size_t i : leaders)
        where.push_back(sp.from_config(rep.candidates[i].cfg));
    const cross_gpu_choice choice = decide_across_gpus(samples, where, sp);
    for (std::size_t k = 0; k < leaders.size(); ++k) {
        auto& c = rep.candidates[leaders[k]];
        c.run.samples_ms = choice.pooled[k];
        const auto sum = measure::summarize(c.run.samples_ms);
        c.run.median_ms = sum.median;
        c.run.ci_lo_ms = sum.median_ci.lo;
        c.run.ci_hi_ms = sum.median_ci.hi;
        std::map<int, std::vector<double>> by_gpu;
        for (const auto& [g, t] : samples[k])
            by_gpu[g].push_back(t);
        c.per_gpu.clear();
        for (auto& [g, v] : by_gpu)
            c.per_gpu.push_back({g, median_of(v), v.size()});
    }
    rep.tied = choice.tied;
    return leaders[choice.best];
}

bool run_search(const tune_request& rq, const space& sp, const config& default_cfg,
                candidate_evaluator& ev, tune_report& rep, const tune_progress& progress) {
    auto searcher = make_searcher(rq.strategy);
    search_options so;
    // The built-in spaces hold a few hundred configs: by default measure up to 256 of them, which
    // is all of most, so independent tunes agree (docs/perf/tune.md: 6-8 of 10 at 64-128).
    so.budget = std::min<std::size_t>(rq.budget ? rq.budget : 256, sp.valid_count());
    so.seed = rq.seed;
    // A learning strategy proposes at most its cap a GPU (searcher::live_batch_cap): larger
    // batches, seen a batch late, cost it evaluations; the compile pool still overlaps them.
    const std::size_t gpus = std::max<std::size_t>(1, rq.gpus.size());
    const std::size_t cap = searcher->live_batch_cap();
    so.batch = rq.batch > 0             ? rq.batch
               : cap >= ev.batch_size() ? ev.batch_size()
                                        : std::min(ev.batch_size(), cap * gpus);
    // A stream keeps one candidate a compile thread in flight, at most 2 x the cap a GPU (the
    // results a batch of 8 compiled ahead left pending): on the 16-core H200 machine twice the
    // candidates a second of 8 in flight for 1.13x the evaluations (docs/perf/search.md#streaming).
    const bool streaming = rq.stream && cap != std::numeric_limits<std::size_t>::max();
    if (streaming && rq.batch == 0)
        so.batch = std::min(std::max<std::size_t>(1, ev.batch_size() / 2), 2 * cap * gpus);
    rep.pipeline = streaming ? "stream" : rq.compile_ahead ? "ahead" : "lockstep";
    rep.in_flight = so.batch;
    const auto began = rep.began == std::chrono::steady_clock::time_point{}
                           ? std::chrono::steady_clock::now()
                           : rep.began;
    const auto since_began = [&began] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    };
    const auto records_of = [&](const std::vector<point>& pts) {
        std::vector<candidate_record> recs(pts.size());
        for (std::size_t i = 0; i < pts.size(); ++i) {
            recs[i].cfg = sp.to_config(pts[i]);
            recs[i].injected = choose_fault(recs[i].cfg, rq.fault_injection, rq.seed);
        }
        return recs;
    };
    const auto start = [&](const std::vector<point>& pts) {
        std::unique_ptr<candidate_evaluator::batch> b;
        if (pts.empty()) return b;
        return ev.start(records_of(pts));
    };
    const auto record = [&](candidate_record r, std::vector<observation>& obs) {
        obs.push_back(observation_of(r, sp));
        rep.gpu_busy_s += r.run.gpu_busy_ms / 1000.0;
        rep.compile_s += r.compile_ms / 1000.0;
        r.done_s = since_began();
        rep.candidates.push_back(std::move(r));
        if (progress) progress(rep, rep.candidates.size(), so.budget);
    };
    // The default config first: the baseline of the speed-up, measured like every candidate;
    // the first batch compiles meanwhile (queued behind it).
    candidate_record dflt;
    dflt.cfg = default_cfg;
    auto base_batch = ev.start({dflt});
    searcher->init(sp, so);
    auto cur = start(searcher->propose());
    ev.measure(*base_batch, [&](candidate_record r) {
        r.done_s = since_began();
        rep.baseline = std::move(r);
    });
    ev.after_baseline(rep);
    // A learning strategy streams (docs/perf/search.md#streaming): a batch waits for its
    // slowest compile, and the matmul example's compiles run 0.2-2 s on the H200 machine.
    if (streaming) {
        ev.stream(
            so.batch, std::move(cur),
            [&](std::size_t n) {
                return searcher->done() ? std::vector<candidate_record>{}
                                        : records_of(searcher->propose(n));
            },
            [&](candidate_record r) {
                std::vector<observation> obs;
                record(std::move(r), obs);
                searcher->observe(obs);
            });
        cur.reset();
    }
    // Compile-ahead: the next batch is proposed and compiling while this one is measured (the
    // strategy decides one batch behind its newest results).
    while (cur) {
        std::unique_ptr<candidate_evaluator::batch> next;
        if (rq.compile_ahead && !searcher->done()) next = start(searcher->propose());
        std::vector<observation> obs;
        ev.measure(*cur, [&](candidate_record r) { record(std::move(r), obs); });
        searcher->observe(obs);
        if (!rq.compile_ahead && !searcher->done()) next = start(searcher->propose());
        cur = std::move(next);
    }
    // The decision reads rep.candidates, the one list (the searcher's history holds the same
    // observations in the same order).
    std::vector<observation> history;
    for (const auto& c : rep.candidates)
        history.push_back(observation_of(c, sp));
    const auto sel = select_best(history, sp);
    const bool default_ok = passed(rep.baseline);
    if (!sel && !default_ok) return false; // nothing passed: the caller reports every status
    if (sel) {
        rep.winner_index = sel->best;
        rep.tied = sel->tied.size();
    }
    // The default config competes too: a small budget can miss the basin the default sits in,
    // and a tune must never hand back something slower than the untuned op (seen on the H200:
    // softmax bf16 8192x8192, budget 64, winner 64 % of copy BW vs the default's 91 %). It joins
    // the candidates when it is within the confirmation band of the best, so the interleaved
    // re-measurement decides.
    const bool searched_default =
        std::any_of(rep.candidates.begin(), rep.candidates.end(),
                    [&](const candidate_record& c) { return c.cfg == rep.baseline.cfg; });
    if (default_ok && !searched_default &&
        (!sel ||
         rep.baseline.run.median_ms <= rep.candidates[rep.winner_index].run.median_ms * 1.03)) {
        const bool faster =
            !sel || rep.baseline.run.median_ms < rep.candidates[rep.winner_index].run.median_ms;
        rep.candidates.push_back(rep.baseline);
        rep.default_joined = true;
        if (faster) rep.winner_index = rep.candidates.size() - 1;
        if (!sel) rep.tied = 1;
    }
    // Several GPUs: a wider band, since the search's medians came from different GPUs (same
    // kind, up to a few % apart) before the confirmation round puts them on one scale.
    const double band = rep.gpus.size() > 1 ? 1.05 : 1.03;
    const auto before = std::chrono::steady_clock::now();
    rep.winner_index = confirm(rep, ev, sp, rep.winner_index, rq.policy, band);
    rep.confirm_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
    return true;
}

void file_winner(tune_report& rep, const tune_request& rq, const cache::cache_key& key,
                 const device_info& dev, const std::filesystem::path& cache_path) {
    const candidate_record& w = rep.candidates[rep.winner_index];
    const cache::measurement m{w.run.median_ms * 1000.0, w.run.ci_lo_ms * 1000.0,
                               w.run.ci_hi_ms * 1000.0,
                               static_cast<std::int64_t>(w.run.samples_ms.size())};
    rep.winner = {key, w.cfg, m, cache::provenance::current(dev)};
    if (w.run.clocks_known) {
        rep.winner.origin.sm_mhz = w.run.clocks.sm_mhz;
        rep.winner.origin.memory_mhz = w.run.clocks.memory_mhz;
    }
    if (!rq.write_cache) return;
    if (!rq.shared_cache.empty()) {
        cache::shared_tier_options so;
        so.url = rq.shared_cache;
        cache::shared_tier tier(so);
        cache::store_through(cache_path, tier, std::span(&rep.winner, 1));
    } else {
        cache::store(cache_path, rep.winner);
    }
}

} // namespace ktune::tune::detail
