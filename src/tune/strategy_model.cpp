// Model-guided search and `auto`.
//
// model: after a small uniform initial design, every batch refits a surrogate (surrogate.hpp) on
// log(time) of all observations so far and measures the candidates with the lowest
// lower-confidence bound mean − κ·spread, drawn from a pool of fresh uniform samples plus the
// neighbourhoods of the best configs so far. Failed configs enter the model as slower than
// the slowest success, so it learns to avoid regions that do not compile or launch.
//
// auto: the same, plus one slot per batch for greedy local refinement (the not-yet-measured
// adjacent neighbour of the incumbent that the model likes best), because the last few
// percent usually sit one step away from a good config and a global model under-resolves them.
// Nothing here is fitted to particular recorded spaces: every knob is a fraction of the budget
// or of the space, chosen once for spaces of 10^3–10^5 configs.
#include "tune/strategies.hpp"
#include "tune/strategy_util.hpp"
#include "tune/surrogate.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_set>

namespace ktune::tune::detail {
namespace {

struct knobs {
    std::string_view name;
    bool local = false; ///< reserve a slot for the incumbent's neighbours
    bool breed = false; ///< add crossover/mutation children of the best configs to the pool
    double kappa = 1.0; ///< exploration weight of the acquisition rule
};

class model_guided final : public searcher {
public:
    explicit model_guided(knobs k) : k_(k) {}
    std::string_view name() const noexcept override { return k_.name; }

private:
    void on_init() override {
        sampler_ = {};
        const std::size_t budget = options().budget;
        // Enough uniform points to see each axis' main effect, few enough to leave the budget
        // to the model: ~2 per axis, 8 %, capped.
        initial_ = std::clamp<std::size_t>(budget / 12, 8, 24);
        initial_ = std::max<std::size_t>(
            initial_, std::min<std::size_t>(2 * search_space().axes().size(), 24));
        stall_ = 0;
    }
    // Small batches while the model learns most per observation; larger later, when refits
    // (cost grows with the history) change the ranking less.
    std::size_t default_batch() const noexcept override {
        return std::max<std::size_t>(4, history().size() / 25);
    }

    void do_propose(std::size_t n, std::vector<point>& out) override {
        const auto& s = search_space();
        const auto seen = [this](const point& p) { return proposed(p); };
        const auto& h = history();
        std::size_t ok = 0;
        for (const auto& o : h)
            ok += o.ok();
        if (h.size() < initial_ || ok < 3) {
            sampler_.draw(s, random(), n, out, seen);
            return;
        }
        fit();
        // Candidate pool: uniform samples (global) + neighbours of the best configs (local).
        std::vector<point> pool;
        std::unordered_set<std::uint64_t> in_pool;
        const auto add = [&](const point& p) {
            if (!proposed(p) && in_pool.insert(s.code(p)).second) pool.push_back(p);
        };
        const auto ranked = ranked_ok();
        for (std::size_t i = 0; i < ranked.size() && i < 8; ++i)
            for (auto& p : s.neighbours(h[ranked[i]].where,
                                        i < 2 ? neighbourhood::hamming : neighbourhood::adjacent))
                add(p);
        const std::size_t local_end = pool.size();
        if (k_.breed && ranked.size() >= 4) {
            // Children of the best configs: the model screens what a genetic algorithm would
            // have measured blindly.
            const std::size_t parents = std::min<std::size_t>(ranked.size(), 16);
            const std::size_t axes = s.axes().size();
            for (int c = 0; c < 400; ++c) {
                const point& a =
                    h[ranked[std::min(random().below(parents), random().below(parents))]].where;
                const point& b =
                    h[ranked[std::min(random().below(parents), random().below(parents))]].where;
                point child = a;
                for (std::size_t i = 0; i < axes; ++i)
                    if (random().below(2)) child[i] = b[i];
                if (child == a || child == b || random().below(2))
                    child = mutate(s, child, random(), 1.0 / static_cast<double>(axes));
                if (s.is_valid(child)) add(child);
            }
        }
        std::vector<point> fresh;
        sampler_draws(fresh, k_.breed ? 500 : 1500);
        for (auto& p : fresh)
            add(p);
        if (pool.empty()) return;

        std::vector<float> x;
        const std::size_t ncol = s.axes().size();
        x.reserve(pool.size() * ncol);
        for (const auto& p : pool) {
            auto f = features(s, p);
            x.insert(x.end(), f.begin(), f.end());
        }
        std::vector<float> mean, spread;
        model_.predict(x, ncol, mean, spread);
        std::vector<std::size_t> order(pool.size());
        std::iota(order.begin(), order.end(), 0);
        const auto acq = [&](std::size_t i) { return mean[i] - k_.kappa * spread[i]; };
        std::stable_sort(order.begin(), order.end(),
                         [&](auto a, auto b) { return acq(a) < acq(b); });

        std::vector<bool> taken(pool.size(), false);
        if (k_.local && !ranked.empty()) {
            // Greedy refinement: the incumbent's adjacent neighbours (pool entries made from
            // ranked[0] come first), the one the model predicts fastest.
            const auto incumbent_nb = s.neighbours(h[ranked[0]].where, neighbourhood::adjacent);
            std::size_t pick = pool.size();
            for (std::size_t i = 0; i < local_end; ++i)
                if (std::find(incumbent_nb.begin(), incumbent_nb.end(), pool[i]) !=
                        incumbent_nb.end() &&
                    (pick == pool.size() || mean[i] < mean[pick]))
                    pick = i;
            if (pick != pool.size()) {
                out.push_back(pool[pick]);
                taken[pick] = true;
            }
        }
        for (auto i : order) {
            if (out.size() >= n) break;
            if (!taken[i]) out.push_back(pool[i]);
        }
    }

    void sampler_draws(std::vector<point>& out, std::size_t n) {
        const auto& s = search_space();
        // Uniform draws, not deduplicated against the search (the pool filter does that), from
        // the searcher's own stream so runs stay deterministic.
        const auto total = s.valid_count();
        if (total <= n) {
            s.for_each_valid([&](const point& p) {
                out.push_back(p);
                return true;
            });
            return;
        }
        for (std::size_t i = 0; i < n; ++i)
            out.push_back(s.sample(random()));
    }

    std::vector<std::size_t> ranked_ok() const {
        std::vector<std::size_t> r;
        const auto& h = history();
        for (std::size_t i = 0; i < h.size(); ++i)
            if (h[i].ok()) r.push_back(i);
        std::stable_sort(r.begin(), r.end(), [&](auto a, auto b) { return h[a].time < h[b].time; });
        return r;
    }

    void fit() {
        const auto& s = search_space();
        const auto& h = history();
        double worst = -1e300;
        for (const auto& o : h)
            if (o.ok()) worst = std::max(worst, std::log(o.time));
        std::vector<float> x, y;
        const std::size_t ncol = s.axes().size();
        for (const auto& o : h) {
            auto f = features(s, o.where);
            x.insert(x.end(), f.begin(), f.end());
            // A failure is worse than every success (log 2 ≈ 2× the slowest).
            y.push_back(static_cast<float>(o.ok() ? std::log(o.time) : worst + std::log(2.0)));
        }
        model_.fit(x, y, ncol, options().seed + h.size());
    }

    knobs k_;
    surrogate model_{3, 30, 6};
    unseen_sampler sampler_;
    std::size_t initial_ = 0;
    std::size_t stall_ = 0;
};

} // namespace

std::unique_ptr<searcher> make_model() {
    if (!surrogate_compiled()) return nullptr;
    require_surrogate(); // a build with XGBoost on a machine without it: say which library
    return std::make_unique<model_guided>(knobs{"model", false, false, 1.0});
}

// The surrogate-screened hybrid, kept for `auto` once it beats the genetic search on held-out
// spaces (docs/perf/search.md: not yet; it also costs ~1 s of model fitting per run).
std::unique_ptr<searcher> make_hybrid() {
    if (!surrogate_available()) return make_genetic_named("hybrid");
    return std::make_unique<model_guided>(knobs{"hybrid", true, true, 0.5});
}

// auto: the bandit portfolio of local search, genetic offspring and uniform samples
// (strategy_auto.cpp; docs/perf/search.md has the comparison that chose it).
std::unique_ptr<searcher> make_auto() {
    return make_portfolio("auto", true);
}

} // namespace ktune::tune::detail
