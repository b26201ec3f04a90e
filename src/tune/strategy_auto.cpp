// `auto`: a portfolio of three proposal rules under a bandit that moves the budget to whichever
// rule is improving the search right now.
//
// No single strategy wins on every recorded space (docs/perf/search.md): a genetic search
// recombines good axis values from separate basins (gemm, convolution_A100), greedy local search
// finishes a basin in a few steps when the last percent is one axis step away (dedispersion,
// pnpoly's tile size), and uniform sampling is the only rule that cannot get stuck. So `auto`
// runs all three and lets the observations decide:
//   - local: an unmeasured neighbour of the incumbent, adjacent values of ordered axes first
//     (performance is locally smooth along tile and block sizes), then the two ends of an
//     ordered axis (optima often sit at a range's end: the largest tile, the smallest block),
//     then any other value of an enumeration; a config whose neighbourhood is measured is a
//     local optimum and the next-best config takes its place;
//   - genetic: a child of two tournament-selected configs among the best observed (uniform
//     crossover, neighbour mutation), repaired into the valid set;
//   - random: a uniform unseen valid config.
// The bandit's arms: each rule plain (`portfolio`); for `auto`, local and genetic plain and all
// three with XGBoost screening (of several candidates the rule would accept, the one the
// surrogate ranks best), because the model helps on some spaces and misleads on others (a
// slow-on-average switch that holds the optimum). `auto` has no plain random arm: uniform draws
// almost never beat the best on a sparse space, and the screened random arm, the design and the
// stall hedge still sample the whole space (dropping it took the dev corpus' geometric mean from
// 0.229 to 0.212, docs/perf/search.md#auto-restarts). Each arm keeps a discounted success rate (a
// success = the proposal beat the epoch's best) with a uniform prior; the next arm is drawn with
// probability proportional to it, with a floor so that none starves. The first few configs of an
// epoch are a space-filling design (of 32 uniform valid draws, the one farthest from those
// measured: each axis' range is covered, which a uniform draw of 8 often misses on 3-valued
// switches). Invalid configs never reach the budget (the base class drops them) and nothing is
// measured twice. Two stall rules (stalled() below): when the best of the current epoch stops
// improving for a thirty-second of the budget (at least 32 evaluations), the search restarts in a
// new region (restart()); when the best of the whole search stops improving for a quarter of the
// budget, uniform draws take over progressively. Every constant is a fraction of the budget or a
// property of the space, chosen on the dev corpus only; none is fitted to a particular recording.
#include "tune/strategies.hpp"
#include "tune/strategy_tpe.hpp"
#include "tune/strategy_util.hpp"
#include "tune/surrogate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

namespace ktune::tune::detail {
namespace {

enum arm : std::uint8_t { local_arm, genetic_arm, random_arm, tpe_arm };
constexpr std::size_t rule_count = 4;
/// Arm k < rule_count: rule k plain; k ≥ rule_count: rule k − rule_count screened by the model
/// (TPE is not: it ranks its own candidates).
constexpr std::size_t arm_count = 2 * rule_count - 1;

class portfolio final : public searcher {
public:
    portfolio(std::string_view name, bool screen, bool tpe_only)
        : name_(name), screen_(screen), tpe_only_(tpe_only) {}
    std::string_view name() const noexcept override { return name_; }

private:
    static constexpr std::size_t population = 16;
    static constexpr double discount = 0.9; ///< old successes fade: progress moves
    static constexpr double floor = 0.1;    ///< each rule keeps ≥ this share of the draws

    void on_init() override {
        ok_.clear();
        sampler_ = {};
        origin_.clear();
        exhausted_.clear();
        for (auto& w : wins_)
            w = 1.0; // Beta(1, 1)-like prior: every rule starts at a 50 % success rate
        for (auto& p : pulls_)
            p = 2.0;
        best_time_ = 0;
        since_best_ = 0;
        global_best_ = 0;
        since_global_ = 0;
        epoch_start_ = 0;
        fitted_at_ = 0;
        failed_.clear();
        // TPE as a fourth arm of auto helped the six target spaces and hurt the held-out set
        // (docs/perf/search.md), so it runs only as the `tpe` strategy.
        active_.clear();
        if (tpe_only_)
            active_.push_back(tpe_arm);
        else
            for (std::size_t k = 0; k < (screen_ ? arm_count : rule_count); ++k)
                if (k != tpe_arm && (k != random_arm || !screen_)) active_.push_back(k);
        const std::size_t axes = search_space().axes().size();
        // A small space-filling design: enough to find a basin to climb and parents to breed,
        // little enough that most of the budget goes to the adaptive rules.
        initial_ = std::clamp<std::size_t>(options().budget / 40, 4, 8);
        initial_ = std::max<std::size_t>(initial_, std::min<std::size_t>(axes, 10));
        // Restart after a thirty-second of the budget without progress in the epoch (a quarter
        // left the dev corpus' stalled spaces stuck at 1.05-1.2x for most of the budget; a
        // sixteenth gave multimodal spaces, stencil and synth_wide, too few epochs at budget
        // 1000: docs/perf/search.md#auto-v6), but never before 32 evaluations: at budget 100 a
        // 16-evaluation epoch restarted before the climb was done (pnpoly_RTX_3090 at 100: 89.5
        // against random's 85).
        restart_after_ = std::max<std::size_t>(32, options().budget / 32);
        patience_ = std::max<std::size_t>(16, options().budget / 4);
    }

    void on_observe(const observation& o) override {
        bool improved = false;
        if (o.ok()) {
            improved = best_time_ == 0 || o.time < best_time_;
            if (improved) best_time_ = o.time;
        }
        since_best_ = improved ? 0 : since_best_ + 1;
        const bool global = o.ok() && (global_best_ == 0 || o.time < global_best_);
        if (global) global_best_ = o.time;
        since_global_ = global ? 0 : since_global_ + 1;
        if (o.ok()) {
            auto it = std::lower_bound(ok_.begin(), ok_.end(), o.time,
                                       [](const auto& e, double t) { return e.first < t; });
            ok_.insert(it, {o.time, o.where});
        } else {
            failed_.push_back(o.where);
        }
        const auto it = origin_.find(search_space().code(o.where));
        if (it == origin_.end()) return;
        const std::size_t a = it->second;
        origin_.erase(it);
        for (std::size_t k = 0; k < arm_count; ++k) { // discount all: shares track the present
            wins_[k] *= discount;
            pulls_[k] *= discount;
        }
        pulls_[a] += 1.0;
        wins_[a] += improved ? 1.0 : 0.0;
    }

    // A restart: the rules breed and climb only from what the new epoch measures, starting
    // from a fresh space-filling design that lands away from every config measured so far; the
    // model keeps the whole history, so screening still knows the regions already seen. A
    // multimodal space (the dev stencil spaces: the rules settle at 1.0509x in one basin while
    // the optimum sits in another) gets a second basin to climb instead of uniform draws.
    void restart() {
        epoch_start_ = history().size();
        ok_.clear();
        exhausted_.clear();
        best_time_ = 0;
        since_best_ = 0;
        for (auto& w : wins_)
            w = 1.0;
        for (auto& p : pulls_)
            p = 2.0;
    }

    // Stall detection. Restarts (above) when the epoch stalls; and the hedge against a space
    // whose structure misleads every rule, restarts included: after `patience_` (a quarter of
    // the budget) evaluations without a new best of the whole search, uniform draws take over
    // progressively (their probability grows linearly to 1 over the next patience_
    // evaluations) until one of them improves on the best. A stalled search then samples like
    // random search from the configs still unseen. Restarts alone, without this hedge, lost to
    // random search on the needle and deceptive unit-test spaces (tests/unit/tune/replay_test.cpp).
    // TPE (`tpe`) does not restart: its densities need the whole history.
    bool stalled() {
        if (!tpe_only_ && since_best_ > restart_after_) restart();
        if (since_global_ <= patience_) return false;
        const double p =
            static_cast<double>(since_global_ - patience_) / static_cast<double>(patience_);
        return random().uniform() < p;
    }

    std::size_t choose() {
        const auto arms = static_cast<double>(active_.size());
        const double fl = floor * 3.0 / arms; // 10 % per rule when there were three
        std::array<double, arm_count> share{};
        double total = 0;
        for (auto k : active_)
            total += share[k] = wins_[k] / pulls_[k];
        for (auto k : active_)
            share[k] = fl + (1 - fl * arms) * share[k] / total;
        double u = random().uniform();
        for (auto k : active_) {
            if (u < share[k]) return k;
            u -= share[k];
        }
        return random_arm;
    }

    // Surrogate screening: of several candidates a rule would accept, measure the one the model
    // ranks best (lower confidence bound). Refit every few observations: a fit costs
    // milliseconds, an evaluation on a GPU costs seconds, but replays run thousands of searches.
    std::size_t screen(const std::vector<point>& cand) {
        if (!screen_ || !use_model_ || cand.size() < 2 || ok_.size() < 4)
            return random().below(cand.size());
        const auto& s = search_space();
        const auto& h = history();
        if (h.size() >= fitted_at_ + std::max<std::size_t>(4, h.size() / 16)) {
            double worst = 0;
            for (const auto& o : h)
                if (o.ok()) worst = std::max(worst, std::log(o.time));
            std::vector<float> x, y;
            for (const auto& o : h) {
                auto f = features(s, o.where);
                x.insert(x.end(), f.begin(), f.end());
                y.push_back(static_cast<float>(o.ok() ? std::log(o.time) : worst + std::log(2.0)));
            }
            model_.fit(x, y, s.axes().size(), options().seed + h.size());
            fitted_at_ = h.size();
        }
        std::vector<float> x, mean, spread;
        for (const auto& p : cand) {
            auto f = features(s, p);
            x.insert(x.end(), f.begin(), f.end());
        }
        model_.predict(x, s.axes().size(), mean, spread);
        std::size_t pick = 0;
        for (std::size_t i = 1; i < cand.size(); ++i)
            if (mean[i] - 0.5f * spread[i] < mean[pick] - 0.5f * spread[pick]) pick = i;
        return pick;
    }

    bool taken(const point& p, const std::vector<point>& out) const {
        return proposed(p) || std::find(out.begin(), out.end(), p) != out.end();
    }

    // The best unmeasured neighbour rule: walk the ranked configs, skipping local optima. One
    // candidate per axis (an adjacent value first, else an end of an ordered axis, else any other
    // value of an enumeration), so an axis with 30 values does not crowd out a 3-valued switch
    // that holds the next gain. Mid-range values of an ordered axis are not neighbours: proving a
    // local optimum over every value cost Σ (values − 1) evaluations per incumbent (28 on
    // convolution, 45 on pnpoly), spent on values that smoothness says are no better than the
    // adjacent ones; they stay reachable through mutation, screened draws and restarts
    // (docs/perf/search.md#auto-v6).
    bool propose_local(std::vector<point>& out) {
        const auto& s = search_space();
        const auto mid_range = [&s](const point& c, const point& p) {
            for (std::size_t a = 0; a < c.size(); ++a)
                if (p[a] != c[a])
                    return s.axes()[a].ordered() && p[a] != 0 &&
                           p[a] + 1 != s.axes()[a].values.size();
            return false;
        };
        for (std::size_t i = 0; i < ok_.size() && i < population; ++i) {
            const point& c = ok_[i].second;
            const std::uint64_t code = s.code(c);
            if (exhausted_.count(code)) continue;
            std::vector<point> cand;
            for (auto kind : {neighbourhood::adjacent, neighbourhood::hamming}) {
                auto nb = s.neighbours(c, kind);
                std::erase_if(nb, [&](const point& p) {
                    return taken(p, out) || (kind == neighbourhood::hamming && mid_range(c, p));
                });
                for (std::size_t a = 0; a < c.size(); ++a) {
                    const auto on_axis = [&](const point& p) { return p[a] != c[a]; };
                    if (std::any_of(cand.begin(), cand.end(), on_axis)) continue;
                    std::vector<point> group;
                    std::copy_if(nb.begin(), nb.end(), std::back_inserter(group), on_axis);
                    if (!group.empty()) cand.push_back(group[random().below(group.size())]);
                }
            }
            if (!cand.empty()) {
                out.push_back(cand[screen(cand)]);
                return true;
            }
            exhausted_.insert(code);
        }
        return false;
    }

    const point& tournament() {
        const std::size_t n = std::min(population, ok_.size());
        return ok_[std::min(random().below(n), random().below(n))].second;
    }

    bool propose_genetic(std::vector<point>& out) {
        const auto& s = search_space();
        if (ok_.size() < 2) return false;
        const std::size_t axes = s.axes().size();
        std::vector<point> cand;
        const std::size_t want = screen_ && use_model_ ? 24 : 1;
        for (int attempt = 0; attempt < 64 && cand.size() < want; ++attempt) {
            const point& a = tournament();
            const point& b = tournament();
            point child = a;
            for (std::size_t i = 0; i < axes; ++i)
                if (random().below(2)) child[i] = b[i];
            if (child == a || child == b || random().uniform() < 0.5)
                child = mutate(s, child, random(), 1.0 / static_cast<double>(axes));
            child = repair(s, std::move(child), random());
            if (!taken(child, out) && std::find(cand.begin(), cand.end(), child) == cand.end())
                cand.push_back(std::move(child));
        }
        if (cand.empty()) return false;
        out.push_back(std::move(cand[screen(cand)]));
        return true;
    }

    /// The first proposals of an epoch are its space-filling design.
    bool in_design(const std::vector<point>& out) const {
        return history().size() - epoch_start_ + out.size() < initial_;
    }

    void do_propose(std::size_t n, std::vector<point>& out) override {
        const auto& s = search_space();
        const auto seen = [this](const point& p) { return proposed(p); };
        for (std::size_t k = 0; k < n; ++k) {
            const std::size_t before = out.size();
            const std::size_t pick =
                in_design(out) || ok_.empty() || stalled() ? std::size_t{random_arm} : choose();
            use_model_ = pick >= rule_count;
            auto a = static_cast<arm>(use_model_ ? pick - rule_count : pick);
            if (a == tpe_arm) {
                if (auto p = propose_tpe(s, ok_, failed_, random(),
                                         [&](const point& q) { return taken(q, out); }))
                    out.push_back(std::move(*p));
                else
                    a = local_arm;
            }
            if (a == local_arm && !propose_local(out)) a = genetic_arm;
            if (a == genetic_arm && !propose_genetic(out)) a = random_arm;
            if (a == random_arm) {
                std::vector<point> cand;
                const bool design = in_design(out);
                sampler_.draw(s, random(),
                              design                                     ? 32
                              : screen_ && use_model_ && ok_.size() >= 4 ? 16
                                                                         : 1,
                              cand, seen);
                if (design && !cand.empty()) {
                    std::vector<point> measured = out;
                    for (const auto& o : history())
                        measured.push_back(o.where);
                    if (!measured.empty()) std::swap(cand[0], cand[farthest(s, cand, measured)]);
                    cand.resize(1);
                }
                if (!cand.empty()) out.push_back(std::move(cand[screen(cand)]));
                // unseen_sampler hands out each listed config once: unpicked ones are lost to it,
                // but stay reachable through the other rules and the next fresh draw.
            }
            if (out.size() == before) return; // nothing left anywhere: the base ends the search
            origin_[s.code(out.back())] =
                static_cast<std::uint8_t>(a + (use_model_ && a != tpe_arm ? rule_count : 0));
        }
    }

    std::vector<std::pair<double, point>> ok_;               ///< ok observations sorted by time
    std::unordered_map<std::uint64_t, std::uint8_t> origin_; ///< config → arm that proposed it
    bool use_model_ = false;
    std::unordered_set<std::uint64_t> exhausted_;
    std::array<double, arm_count> wins_{}, pulls_{};
    std::vector<std::size_t> active_; ///< arms in play (screened ones need XGBoost)
    std::vector<point> failed_;       ///< failed configs: TPE counts them as "rest"
    double best_time_ = 0;            ///< best of the current epoch
    std::size_t since_best_ = 0;      ///< observations since the epoch's best improved
    double global_best_ = 0;          ///< best of the whole search
    std::size_t since_global_ = 0;    ///< observations since that improved
    std::size_t epoch_start_ = 0;     ///< history size at the last restart
    std::size_t restart_after_ = 0;   ///< epoch stall threshold: budget / 32, ≥ 32
    std::size_t patience_ = 0;        ///< hedge threshold: a quarter of the budget
    std::size_t initial_ = 0;
    std::size_t fitted_at_ = 0;
    unseen_sampler sampler_;
    std::string_view name_;
    bool screen_;
    bool tpe_only_;
    surrogate model_{3, 30, 6};
};

} // namespace

std::unique_ptr<searcher> make_portfolio(std::string_view name, bool screen) {
    return std::make_unique<portfolio>(name, screen && surrogate_available(), false);
}

std::unique_ptr<searcher> make_tpe() {
    return std::make_unique<portfolio>("tpe", false, true);
}

} // namespace ktune::tune::detail
