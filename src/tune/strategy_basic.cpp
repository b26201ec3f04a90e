// Exhaustive and random search, and the table of built-in strategies.
#include "tune/strategies.hpp"
#include "tune/strategy_util.hpp"
#include "tune/surrogate.hpp"

#include <limits>

namespace ktune::tune::detail {
namespace {

// Every valid config in enumeration order: the reference, and the right choice for tiny spaces.
class exhaustive final : public searcher {
public:
    std::string_view name() const noexcept override { return "exhaustive"; }

private:
    void on_init() override { next_ = 0; }
    void do_propose(std::size_t n, std::vector<point>& out) override {
        const auto total = search_space().valid_count();
        for (; n > 0 && next_ < total; --n)
            out.push_back(search_space().unrank(next_++));
    }
    std::size_t default_batch() const noexcept override { return 16; }
    std::size_t live_batch_cap() const noexcept override {
        return std::numeric_limits<std::size_t>::max();
    }
    std::uint64_t next_ = 0;
};

// Uniform sampling of valid configs without replacement: the baseline every other strategy
// must beat, (N+1)/(K+1) evaluations on average to hit one of K good configs among N.
class random_search final : public searcher {
public:
    std::string_view name() const noexcept override { return "random"; }

private:
    void do_propose(std::size_t n, std::vector<point>& out) override {
        unseen_sampler_.draw(search_space(), random(), n, out,
                             [this](const point& p) { return proposed(p); });
    }
    std::size_t default_batch() const noexcept override { return 16; }
    std::size_t live_batch_cap() const noexcept override {
        return std::numeric_limits<std::size_t>::max();
    }
    unseen_sampler unseen_sampler_;
};

} // namespace

std::unique_ptr<searcher> make_exhaustive() {
    return std::make_unique<exhaustive>();
}
std::unique_ptr<searcher> make_random() {
    return std::make_unique<random_search>();
}

std::vector<std::pair<strategy_info, factory>> builtin_strategies() {
    std::vector<std::pair<strategy_info, factory>> v{
        {{"exhaustive", "every valid config in order"}, make_exhaustive},
        {{"random", "uniform sampling of valid configs without replacement"}, make_random},
        {{"genetic", "evolutionary: tournament selection, uniform crossover, neighbour mutation"},
         make_genetic},
        {{"annealing", "simulated annealing over neighbourhoods with restarts"}, make_annealing},
        {{"auto", "default: a bandit over incumbent local search, genetic offspring and "
                  "uniform samples; uniform samples take over when it stalls"},
         make_auto},
        {{"portfolio", "auto without the surrogate screening (no XGBoost needed)"},
         [] { return make_portfolio("portfolio", false); }},
        {{"tpe", "space-filling design, then tree-structured Parzen estimator proposals"},
         make_tpe},
    };
    // Listed by the build, not by loading XGBoost: the registry is built at every start-up.
    if (surrogate_compiled())
        v.push_back({{"model", "XGBoost surrogate ensemble, lower-confidence-bound acquisition"},
                     make_model});
    if (surrogate_compiled())
        v.push_back(
            {{"hybrid", "XGBoost-screened genetic offspring + incumbent refinement"}, make_hybrid});
    return v;
}

} // namespace ktune::tune::detail
