// Replaying a recorded space: lookups as measurements, seeded runs, and their summary.
#include "ktune/tune/replay.hpp"

#include "ktune/core/error.hpp"
#include "ktune/tune/selection.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

namespace ktune::tune {

const recorded_config* recorded_space::find(const point& p) const {
    const std::uint64_t c = space.code(p);
    auto it = std::lower_bound(
        configs.begin(), configs.end(), c,
        [&](const recorded_config& r, std::uint64_t k) { return space.code(r.where) < k; });
    return it != configs.end() && it->where == p ? &*it : nullptr;
}

double recorded_space::optimum() const {
    double best = 0;
    for (const auto& c : configs)
        if (c.status == eval_status::ok && (best == 0 || c.time < best)) best = c.time;
    if (best == 0) throw error(error_kind::input, source + ": no recorded config ran successfully");
    return best;
}

std::size_t recorded_space::ok_count() const {
    return static_cast<std::size_t>(std::count_if(
        configs.begin(), configs.end(), [](auto& c) { return c.status == eval_status::ok; }));
}

std::size_t recorded_space::count_within(double factor) const {
    const double limit = optimum() * factor;
    return static_cast<std::size_t>(std::count_if(configs.begin(), configs.end(), [&](auto& c) {
        return c.status == eval_status::ok && c.time <= limit;
    }));
}

observation recorded_space::evaluate(const point& p, bool charge_compile_time) const {
    observation o;
    o.where = p;
    const recorded_config* r = find(p);
    if (!r) {
        o.status = eval_status::invalid;
        return o;
    }
    o.status = r->status;
    o.time = r->time;
    o.samples = r->samples;
    o.cost_s = (charge_compile_time ? r->compile_s : 0.0) + r->benchmark_s;
    return o;
}

replay_run replay_search(const recorded_space& rec, const replay_options& o) {
    auto s = make_searcher(o.strategy);
    search_options so;
    so.seed = o.seed;
    so.budget = o.budget ? o.budget : std::min<std::size_t>(rec.space.valid_count(), 1000);
    so.batch = o.batch;
    const double limit = rec.optimum() * o.target;
    replay_run run;
    run.seed = o.seed;
    const auto evaluate = [&](const std::vector<point>& batch) {
        std::vector<observation> out;
        out.reserve(batch.size());
        for (const auto& p : batch) {
            out.push_back(rec.evaluate(p, o.charge_compile_time));
            const auto& ob = out.back();
            ++run.evaluations;
            run.tuning_s += ob.cost_s;
            if (!ob.ok()) ++run.failures;
            if (ob.ok() && ob.time <= limit && !run.evals_to_target) {
                run.evals_to_target = run.evaluations;
                run.tuning_s_to_target = run.tuning_s;
            }
        }
        return out;
    };
    // The loop of run_search (compile-ahead: the next batch proposed before this one's results),
    // with an early end when only evaluations to target matter.
    s->init(rec.space, so);
    std::vector<point> cur = s->propose();
    if (o.stream) {
        // run_search's stream: `batch` in flight, the oldest result first, one proposal for
        // each result (a live stream's results come as compiles finish: nearly this order).
        std::deque<point> flight(cur.begin(), cur.end());
        const std::size_t window = flight.size();
        while (!flight.empty() && !(o.stop_at_target && run.evals_to_target)) {
            const point p = flight.front();
            flight.pop_front();
            s->observe(evaluate({p}));
            if (!s->done())
                for (auto& q : s->propose(window - flight.size()))
                    flight.push_back(std::move(q));
        }
        cur.clear();
    }
    while (!cur.empty() && !(o.stop_at_target && run.evals_to_target)) {
        std::vector<point> next;
        if (o.compile_ahead && !s->done()) next = s->propose();
        s->observe(evaluate(cur));
        if (!o.compile_ahead && !s->done()) next = s->propose();
        cur = std::move(next);
    }
    const auto& history = s->history();
    if (auto sel = select_best(history, rec.space)) {
        run.best = history[sel->best].where;
        run.best_time = history[sel->best].time;
        run.tied = sel->tied.size();
    }
    return run;
}

quartiles quartiles_of(std::vector<double> v) {
    if (v.empty()) throw error(error_kind::usage, "quartiles of an empty list");
    std::sort(v.begin(), v.end());
    const auto at = [&](double q) {
        const double h = (static_cast<double>(v.size()) - 1) * q;
        const auto lo = static_cast<std::size_t>(h);
        const std::size_t hi = std::min(lo + 1, v.size() - 1);
        return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
    };
    return {at(0.25), at(0.5), at(0.75)};
}

random_baseline random_first_hit(std::size_t m, std::size_t k, std::size_t budget) {
    const double miss = static_cast<double>(budget) + 1;
    if (k == 0 || m == 0) return {miss, miss};
    random_baseline b;
    b.mean = static_cast<double>(m + 1) / static_cast<double>(k + 1);
    // P(first hit > t) = prod_{i<t} (m-k-i)/(m-i); the median is the first t where that is
    // ≤ 1/2, or budget + 1 when more than half of the runs miss within the budget.
    double above = 1.0;
    b.median = miss;
    for (std::size_t t = 1; t <= budget; ++t) {
        const std::size_t i = t - 1;
        above *= i < m - k ? static_cast<double>(m - k - i) / static_cast<double>(m - i) : 0.0;
        if (above <= 0.5) {
            b.median = static_cast<double>(t);
            break;
        }
    }
    return b;
}

std::size_t replay_budget(const recorded_space& rec, const replay_options& o) {
    return o.budget
               ? o.budget
               : static_cast<std::size_t>(std::min<std::uint64_t>(rec.space.valid_count(), 1000));
}

replay_summary summarize(const recorded_space& rec, const replay_options& o,
                         const std::vector<replay_run>& runs) {
    replay_summary s;
    s.recorded = static_cast<std::size_t>(rec.space.valid_count());
    s.valid = rec.ok_count();
    s.within = rec.count_within(o.target);
    s.budget = replay_budget(rec, o);
    s.random = random_first_hit(s.recorded, s.within, s.budget);
    if (runs.empty()) return s;
    const double opt = rec.optimum();
    std::vector<double> evals, ratio;
    for (const auto& r : runs) {
        s.reached += r.evals_to_target.has_value();
        evals.push_back(r.evals_to_target ? static_cast<double>(*r.evals_to_target)
                                          : static_cast<double>(r.evaluations + 1));
        ratio.push_back(r.best_time > 0 ? r.best_time / opt : 0.0);
    }
    s.evals = quartiles_of(evals);
    s.best_ratio = quartiles_of(ratio);
    return s;
}

std::vector<replay_run>
replay_repeat(const recorded_space& rec, const replay_options& o, std::size_t repeats,
              unsigned threads, const std::function<void(std::size_t, std::size_t)>& progress) {
    std::vector<replay_run> runs(repeats);
    std::atomic<std::size_t> next{0}, finished{0};
    std::mutex report;
    std::exception_ptr failure;
    const auto worker = [&] {
        for (std::size_t r; (r = next++) < repeats;) {
            try {
                replay_options ro = o;
                ro.seed = rng::derive(o.seed, r);
                runs[r] = replay_search(rec, ro);
            } catch (...) {
                std::lock_guard lock(report);
                if (!failure) failure = std::current_exception();
                next = repeats;
            }
            const std::size_t f = ++finished;
            if (progress) {
                std::lock_guard lock(report);
                progress(f, repeats);
            }
        }
    };
    threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(repeats)));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(worker);
    worker();
    for (auto& t : pool)
        t.join();
    if (failure) std::rethrow_exception(failure);
    return runs;
}

} // namespace ktune::tune
