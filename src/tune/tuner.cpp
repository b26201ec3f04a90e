#include "ktune/tune/tuner.hpp"

#include "ktune/cache/index.hpp"
#include "ktune/cache/shared_tier.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/measure/sample_stats.hpp"
#include "ktune/tune/selection.hpp"
#include "ktune/tune/space.hpp"
#include "ktune/worker/worker.hpp"
#include "tune/tuner_device.hpp"
#include "tune/tuner_eval.hpp"
#include "tune/tuner_faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>

namespace ktune::tune {
namespace {

using clock_type = std::chrono::steady_clock;
using detail::evaluator;

space op_space(const ops::op& o, const ops::problem& p) {
    std::vector<axis> axes;
    for (const auto& a : o.axes())
        axes.push_back(axis::list(a.name, a.values));
    space sp(std::move(axes));
    // The op's constraints see the whole config (and the shape): the valid set is enumerated
    // once (hundreds of configs) and the space restricted to it.
    std::vector<point> members;
    for (const config& c : o.enumerate(p))
        members.push_back(sp.from_config(c));
    if (members.empty())
        throw error(error_kind::unsupported,
                    fmt::format("op '{}' has no valid config for shape {} {}", o.name(),
                                ops::to_string(p.shape), ops::to_string(p.type)));
    sp.restrict_to(std::move(members));
    return sp;
}

/// The confirmation round: the search's leaders (medians within 3 % of the best, at most 4) are
/// timed again, interleaved, and their samples pooled, so the winner does not hinge on one
/// lucky run. Returns the index of the confirmed winner in rep.candidates.
std::size_t confirm(tune_report& rep, evaluator& ev, const space& sp, std::size_t best,
                    const measure::measure_policy& base, std::size_t& tied) {
    const double best_ms = rep.candidates[best].run.median_ms;
    std::vector<std::size_t> leaders;
    for (std::size_t i = 0; i < rep.candidates.size(); ++i) {
        const auto& c = rep.candidates[i];
        if (c.status == eval_status::ok && c.injected == injected_fault::none &&
            c.run.median_ms <= best_ms * 1.03)
            leaders.push_back(i);
    }
    std::sort(leaders.begin(), leaders.end(), [&](std::size_t a, std::size_t b) {
        return rep.candidates[a].run.median_ms < rep.candidates[b].run.median_ms;
    });
    if (leaders.size() > 4) leaders.resize(4);
    if (leaders.size() < 2) return best;
    measure::measure_policy p = base;
    p.min_samples = std::max(base.min_samples, 24);
    for (int round = 0; round < 2; ++round)
        for (std::size_t i : leaders) {
            auto& c = rep.candidates[i];
            const auto again = ev.remeasure(c.cfg, p);
            if (again.status != measure::run_status::ok) continue;
            c.run.samples_ms.insert(c.run.samples_ms.end(), again.samples_ms.begin(),
                                    again.samples_ms.end());
            rep.gpu_busy_s += again.gpu_busy_ms / 1000;
            rep.confirm_busy_s += again.gpu_busy_ms / 1000;
        }
    std::vector<observation> obs;
    for (std::size_t i : leaders) {
        auto& c = rep.candidates[i];
        const auto sum = measure::summarize(c.run.samples_ms);
        c.run.median_ms = sum.median;
        c.run.ci_lo_ms = sum.median_ci.lo;
        c.run.ci_hi_ms = sum.median_ci.hi;
        observation o;
        o.where = sp.from_config(c.cfg);
        o.time = sum.median;
        o.samples = c.run.samples_ms;
        obs.push_back(std::move(o));
    }
    const auto sel = select_best(obs, sp);
    tied = sel->tied.size();
    return leaders[sel->best];
}

cache::measurement to_measurement(const measure::candidate_result& r) {
    return {r.median_ms * 1000.0, r.ci_lo_ms * 1000.0, r.ci_hi_ms * 1000.0,
            static_cast<std::int64_t>(r.samples_ms.size())};
}

} // namespace

namespace {
/// rq's key on the device `q` found (what environment::current() derives, from a query made).
cache::cache_key key_for(const tune_request& rq, const ops::op& o, const device_query& q) {
    if (q.devices.empty())
        throw error(error_kind::no_device,
                    fmt::format("no CUDA GPU for a cache key: {}", q.no_device_reason));
    cache::environment env;
    env.arch = q.devices.front().arch();
    env.toolkit = q.versions.runtime;
    env.driver_major = q.versions.driver_major();
    const ops::shape2d b = o.bucket(rq.prob.shape);
    return {std::string(o.name()),
            fmt::format("v{}", o.version()),
            std::string(ops::to_string(rq.prob.type)),
            {b.rows, b.cols},
            env.arch,
            env.toolkit,
            env.driver_major,
            env.protocol};
}

/// Whether the index holds any entry this tune's key could match, judged without the device
/// (op, version, dtype, bucket, protocol): when none does, the tune is a certain miss and the
/// worker can start before this process's own CUDA start-up.
bool may_hit(const cache::cache_index& idx, const tune_request& rq, const ops::op& o) {
    const std::string version = fmt::format("v{}", o.version());
    const std::string dtype(ops::to_string(rq.prob.type));
    const ops::shape2d b = o.bucket(rq.prob.shape);
    const std::vector<std::int64_t> bucket{b.rows, b.cols};
    return std::any_of(idx.entries().begin(), idx.entries().end(), [&](const cache::entry& e) {
        return e.key.op == o.name() && e.key.op_version == version && e.key.dtype == dtype &&
               e.key.bucket == bucket && e.key.protocol == cache::current_protocol;
    });
}
} // namespace

namespace {
std::unique_ptr<cache::shared_tier> shared_tier_for(const tune_request& rq) {
    if (rq.shared_cache.empty()) return nullptr;
    cache::shared_tier_options so;
    so.url = rq.shared_cache;
    return std::make_unique<cache::shared_tier>(so);
}

// The exact entry for `key`: from the file, else from the shared tier (then stored in the file).
std::optional<cache::entry> exact_hit(const tune_request& rq, const cache::cache_index& idx,
                                      const std::filesystem::path& file,
                                      const cache::cache_key& key) {
    const cache::prepared_key pk(key);
    if (const cache::entry* e = idx.find(pk)) return *e;
    const auto shared = shared_tier_for(rq);
    if (!shared) return std::nullopt;
    auto r = cache::lookup_through(file, idx, *shared, pk);
    if (r.tier == cache::lookup_tier::exact && r.hit) return r.hit;
    return std::nullopt;
}
} // namespace

cache::cache_key tune_key(const tune_request& rq) {
    return key_for(rq, ops::find_op(rq.op), detail::device_query_cached());
}

std::optional<tune_report> cached_tune(const tune_request& rq) {
    if (!rq.read_cache) return std::nullopt;
    const ops::op& o = ops::find_op(rq.op);
    const auto file = rq.cache_file.empty() ? cache::default_cache_path() : rq.cache_file;
    const auto idx = cache::cache_index::load(file);
    auto e = exact_hit(rq, idx, file, key_for(rq, o, detail::device_query_cached()));
    if (!e) return std::nullopt;
    tune_report rep;
    rep.cache_hit = true;
    rep.winner = std::move(*e);
    rep.strategy = rq.strategy;
    rep.bytes = o.bytes(rq.prob);
    return rep;
}

namespace {
tune_report run_tune(const tune_request& rq, const tune_progress& progress,
                     detail::runtime* shared);
}

tune_report tune_op(const tune_request& rq, const tune_progress& progress) {
    return run_tune(rq, progress, nullptr);
}

tune_session::tune_session(const tune_request& setup)
    : rt_(std::make_unique<detail::runtime>(setup)) {}
tune_session::~tune_session() = default;

tune_report tune_session::tune(const tune_request& rq, const tune_progress& progress) {
    return run_tune(rq, progress, rt_.get());
}

namespace {
tune_report run_tune(const tune_request& rq, const tune_progress& progress,
                     detail::runtime* shared) {
    const auto t0 = clock_type::now();
    const ops::op& o = ops::find_op(rq.op);
    tune_report rep;
    rep.strategy = rq.strategy;
    rep.bytes = o.bytes(rq.prob);
    const auto cache_path = rq.cache_file.empty() ? cache::default_cache_path() : rq.cache_file;
    const auto since_t0 = [&t0] {
        return std::chrono::duration<double>(clock_type::now() - t0).count();
    };
    const auto mark = [&](const char* what) { rep.setup_marks.emplace_back(what, since_t0()); };
    std::optional<cache::cache_index> idx;
    if (rq.read_cache) idx = cache::cache_index::load(cache_path);
    // The worker (GPU context) and the compile pool start first, so their set-up overlaps this
    // process's own CUDA start-up (the device query the cache key needs) and everything until
    // the baseline; only a tune the cache might answer queries the device first (a hit then
    // never starts a worker).
    std::optional<evaluator> evo;
    const auto start_processes = [&] {
        evo.emplace(rq, o, shared);
        mark("processes_started");
    };
    if (rq.early_worker && (!idx || !may_hit(*idx, rq, o))) start_processes();
    // From this boot's record when there is one: this process then starts no driver client
    // of its own beside the worker's (cuInit, NVML).
    bool recorded = false;
    std::filesystem::path record;
    const auto q =
        rq.device_record ? detail::device_query_cached(&recorded, &record) : query_devices();
    const cache::cache_key key = key_for(rq, o, q);
    mark(recorded ? "device_record" : "device_query");
    if (idx)
        if (auto e = exact_hit(rq, *idx, cache_path, key)) {
            rep.cache_hit = true;
            rep.winner = std::move(*e);
            rep.wall_s = since_t0();
            return rep;
        }
    if (!evo) start_processes();
    evaluator& ev = *evo;
    const device_info& dev = q.devices.front();
    ev.set_arch(dev.arch());
    ev.precompile(o.reference_source(rq.prob));
    // From the per-device file when it is fresh: this process then needs no CUDA context.
    rep.copy_gbs = copy_gbs_for(dev, q.versions.driver, &rep.copy_gbs_cached);
    mark("copy_gbs");

    const space sp = op_space(o, rq.prob);
    auto searcher = make_searcher(rq.strategy);
    search_options so;
    // The built-in spaces hold a few hundred configs: by default measure up to 256 of them, which
    // is all of most, so independent tunes agree (docs/perf/tune.md: 6-8 of 10 at 64-128).
    so.budget = std::min<std::size_t>(rq.budget ? rq.budget : 256, sp.valid_count());
    so.seed = rq.seed;
    // Two candidates per compile thread and batch, compiled as one NVRTC program per thread
    // (compile_batch: NVRTC's fixed cost per program paid once for the two).
    so.batch = 2 * ev.compile_threads();
    const std::size_t per_program = std::max<std::size_t>(1, rq.candidates_per_program);

    struct batch_work {
        std::vector<point> points;
        std::vector<config> cfgs;
        std::vector<injected_fault> faults;
        std::vector<std::future<compile::compile_result>> futures;
    };
    const auto start = [&](std::vector<point> pts) {
        batch_work b;
        b.points = std::move(pts);
        for (const auto& p : b.points) {
            b.cfgs.push_back(sp.to_config(p));
            b.faults.push_back(detail::choose_fault(b.cfgs.back(), rq.fault_injection, rq.seed));
        }
        b.futures = ev.submit_all(b.cfgs, b.faults, per_program);
        return b;
    };
    // Compiled candidates are queued to the worker as they arrive, up to two in flight, so it
    // goes from one candidate to the next without waiting for this process.
    const auto measure_batch = [&](batch_work& b) {
        const std::size_t n = b.points.size();
        std::vector<candidate_record> recs(n);
        std::vector<bool> done(n, false);
        std::vector<observation> obs;
        // Records go to the report in batch order as soon as they are complete (progress).
        const auto emit = [&] {
            while (obs.size() < n && done[obs.size()]) {
                candidate_record& rec = recs[obs.size()];
                observation ob;
                ob.where = b.points[obs.size()];
                ob.status = rec.status;
                if (rec.status == eval_status::ok) {
                    ob.time = rec.run.median_ms;
                    ob.samples = rec.run.samples_ms;
                }
                ob.cost_s = (rec.compile_ms + rec.run.worker_ms) / 1000.0;
                obs.push_back(std::move(ob));
                rep.gpu_busy_s += rec.run.gpu_busy_ms / 1000.0;
                rep.compile_s += rec.compile_ms / 1000.0;
                rep.candidates.push_back(std::move(rec));
                if (progress) progress(rep, rep.candidates.size(), so.budget);
            }
        };
        std::deque<std::size_t> queued;
        const auto receive_oldest = [&] {
            ev.receive(recs[queued.front()]);
            done[queued.front()] = true;
            queued.pop_front();
            emit();
        };
        for (std::size_t i = 0; i < n; ++i) {
            measure::candidate_request r;
            recs[i] = ev.compiled(b.cfgs[i], b.faults[i], b.futures[i], r);
            if (recs[i].status == eval_status::compile_error) {
                done[i] = true;
                emit();
                continue;
            }
            while (queued.size() >= 2)
                receive_oldest();
            ev.send(r);
            queued.push_back(i);
        }
        while (!queued.empty())
            receive_oldest();
        return obs;
    };
    // Compile-ahead: the next batch is proposed and compiling while this one is measured (the
    // strategy decides one batch behind its newest results; every built-in strategy proposes
    // from what it has observed so far).
    // The default config first: the baseline of the speed-up, measured like every candidate;
    // the first batch compiles meanwhile (queued behind it).
    const config d = o.default_config(rq.prob);
    auto baseline_compile = ev.submit(d, injected_fault::none);
    searcher->init(sp, so);
    batch_work cur = start(searcher->propose());
    {
        measure::candidate_request r;
        rep.baseline = ev.compiled(d, injected_fault::none, baseline_compile, r);
        mark("baseline_compiled");
        if (rep.baseline.status != eval_status::compile_error) {
            ev.send(r);
            ev.receive(rep.baseline);
        }
    }
    rep.setup_s = since_t0();
    mark("baseline");
    // The record must describe the GPU the worker found; a stale one (a GPU swapped without a
    // reboot) is removed, and this tune's cubins may be for the wrong arch: stop here.
    if (recorded && !ev.worker_device().empty() && ev.worker_device() != dev.uuid) {
        std::error_code ec;
        std::filesystem::remove(record, ec);
        throw error(error_kind::unsupported,
                    fmt::format("the recorded GPU {} is not the worker's {} ({} removed): run the "
                                "tune again",
                                dev.uuid, ev.worker_device(), record.string()));
    }
    // The worker's milestones on this tune's timeline (steady_clock is one clock for both).
    const double t0_ms = std::chrono::duration<double, std::milli>(t0.time_since_epoch()).count();
    for (const auto& [what, at_ms] : ev.worker_marks())
        rep.setup_marks.emplace_back("worker:" + what, (at_ms - t0_ms) / 1000);
    while (!cur.points.empty()) {
        batch_work next;
        if (rq.compile_ahead && !searcher->done()) next = start(searcher->propose());
        searcher->observe(measure_batch(cur));
        if (!rq.compile_ahead && !searcher->done()) next = start(searcher->propose());
        cur = std::move(next);
    }
    rep.compile_wait_s = ev.compile_wait_s();
    rep.workers_spawned = ev.spawned();
    rep.worker_kept = ev.worker_kept();
    rep.keep_note = ev.keep_note();
    rep.compile_servers = ev.servers_started();
    rep.compile_server_failures = ev.server_failures();
    rep.worker_setup_s = ev.worker_setup_s();
    rep.wall_s = std::chrono::duration<double>(clock_type::now() - t0).count();

    const auto sel = select_best(searcher->history(), sp);
    const bool default_ok =
        rep.baseline.status == eval_status::ok && rep.baseline.injected == injected_fault::none;
    if (!sel && !default_ok) return rep; // nothing passed: the caller reports every status
    if (sel) {
        const config best = sp.to_config(searcher->history()[sel->best].where);
        for (std::size_t i = 0; i < rep.candidates.size(); ++i)
            if (rep.candidates[i].cfg == best) rep.winner_index = i;
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
    const auto before_confirm = clock_type::now();
    rep.winner_index = confirm(rep, ev, sp, rep.winner_index, rq.policy, rep.tied);
    rep.confirm_s = std::chrono::duration<double>(clock_type::now() - before_confirm).count();
    rep.worker_setup_s = ev.worker_setup_s();
    rep.wall_s = std::chrono::duration<double>(clock_type::now() - t0).count();
    const candidate_record& w = rep.candidates[rep.winner_index];
    rep.winner = {key, w.cfg, to_measurement(w.run), cache::provenance::current(dev)};
    if (w.run.clocks_known) {
        rep.winner.origin.sm_mhz = w.run.clocks.sm_mhz;
        rep.winner.origin.memory_mhz = w.run.clocks.memory_mhz;
    }
    if (rq.write_cache) {
        if (const auto tier = shared_tier_for(rq))
            cache::store_through(cache_path, *tier, std::span(&rep.winner, 1));
        else
            cache::store(cache_path, rep.winner);
    }
    return rep;
}

} // namespace

} // namespace ktune::tune
