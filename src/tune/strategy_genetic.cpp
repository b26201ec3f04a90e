// Evolutionary search: a steady-state genetic algorithm. The population is the best P configs
// observed so far (elitist, so a good config is never lost to noise of the search); each child
// comes from two tournament-selected parents by uniform crossover, then a mutation that mostly
// steps ordered axes to adjacent values (performance is locally smooth along tile sizes, block
// sizes, vector widths). Failures never enter the population, so the search drifts away from
// regions that do not compile or launch.
#include "tune/strategies.hpp"
#include "tune/strategy_util.hpp"

#include <algorithm>
#include <cmath>

namespace ktune::tune::detail {
namespace {

class genetic final : public searcher {
public:
    explicit genetic(std::string_view name) : name_(name) {}
    std::string_view name() const noexcept override { return name_; }

private:
    static constexpr std::size_t population = 20;

    void on_init() override {
        ok_.clear();
        sampler_ = {};
    }
    void on_observe(const observation& o) override {
        if (!o.ok()) return;
        // Keep the ok history sorted by time: the population is its prefix.
        auto it = std::lower_bound(ok_.begin(), ok_.end(), o.time,
                                   [](const auto& e, double t) { return e.first < t; });
        ok_.insert(it, {o.time, o.where});
    }
    const point& tournament() {
        const std::size_t n = std::min(population, ok_.size());
        const std::size_t a = random().below(n), b = random().below(n);
        return ok_[std::min(a, b)].second; // sorted: the lower index is the fitter
    }
    void do_propose(std::size_t n, std::vector<point>& out) override {
        const auto& s = search_space();
        if (ok_.size() < population / 2) { // too few survivors to breed from: explore
            sampler_.draw(s, random(), n, out, [this](const point& p) { return proposed(p); });
            return;
        }
        const std::size_t axes = s.axes().size();
        for (std::size_t k = 0; k < n; ++k) {
            point child;
            for (int attempt = 0; attempt < 16; ++attempt) {
                const point& a = tournament();
                const point& b = tournament();
                child = a;
                for (std::size_t i = 0; i < axes; ++i)
                    if (random().below(2)) child[i] = b[i];
                // Mutate always when the parents agree (crossover made a copy), else sometimes.
                if (child == a || child == b || random().uniform() < 0.5)
                    child = mutate(s, child, random(), 1.0 / static_cast<double>(axes));
                child = repair(s, std::move(child), random());
                if (!proposed(child) && std::find(out.begin(), out.end(), child) == out.end())
                    break;
            }
            if (proposed(child) || std::find(out.begin(), out.end(), child) != out.end())
                sampler_.draw(s, random(), 1, out, [this](const point& p) { return proposed(p); });
            else
                out.push_back(std::move(child));
        }
    }
    std::size_t default_batch() const noexcept override { return 4; }

    std::string_view name_;
    std::vector<std::pair<double, point>> ok_;
    unseen_sampler sampler_;
};

} // namespace

std::unique_ptr<searcher> make_genetic() {
    return std::make_unique<genetic>("genetic");
}
std::unique_ptr<searcher> make_genetic_named(std::string_view name) {
    return std::make_unique<genetic>(name);
}

} // namespace ktune::tune::detail
