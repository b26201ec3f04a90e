// Simulated annealing over the adjacent-config neighbourhood, with restarts.
#include "tune/strategies.hpp"
#include "tune/strategy_util.hpp"

#include <algorithm>
#include <cmath>

namespace ktune::tune::detail {
namespace {

// Simulated annealing: a walk through adjacent configs that accepts a slower one with
// probability exp(-(relative slowdown) / T), T cooling geometrically; after a run of
// non-improving steps it restarts from a fresh random config, since tuning spaces have many
// separate basins (e.g. one per shared-memory on/off choice).
class annealing final : public searcher {
public:
    std::string_view name() const noexcept override { return "annealing"; }

private:
    void on_init() override {
        has_current_ = false;
        stale_ = 0;
        temperature_ = 1.0;
        sampler_ = {};
        best_time_ = 0;
    }
    void do_propose(std::size_t n, std::vector<point>& out) override {
        const auto& s = search_space();
        const auto not_proposed = [this](const point& p) { return proposed(p); };
        if (!has_current_ || stale_ > 30) {
            has_current_ = false;
            stale_ = 0;
            sampler_.draw(s, random(), 1, out, not_proposed);
            return;
        }
        for (std::size_t k = 0; k < n; ++k) {
            auto nb = s.neighbours(current_, neighbourhood::adjacent);
            std::erase_if(nb, [&](const point& p) {
                return proposed(p) || std::find(out.begin(), out.end(), p) != out.end();
            });
            if (nb.empty()) nb = s.neighbours(current_, neighbourhood::hamming);
            std::erase_if(nb, [&](const point& p) {
                return proposed(p) || std::find(out.begin(), out.end(), p) != out.end();
            });
            if (nb.empty()) { // a fully explored basin: restart
                has_current_ = false;
                sampler_.draw(s, random(), 1, out, not_proposed);
                return;
            }
            out.push_back(nb[random().below(nb.size())]);
        }
    }
    void on_observe(const observation& o) override {
        temperature_ = std::max(0.002, temperature_ * 0.97);
        if (!o.ok()) {
            ++stale_;
            return;
        }
        if (best_time_ == 0 || o.time < best_time_) {
            best_time_ = o.time;
            stale_ = 0;
        } else {
            ++stale_;
        }
        if (!has_current_) {
            current_ = o.where;
            current_time_ = o.time;
            has_current_ = true;
            temperature_ = 0.2;
            return;
        }
        const double slowdown = o.time / current_time_ - 1.0;
        if (slowdown <= 0 || random().uniform() < std::exp(-slowdown / temperature_)) {
            current_ = o.where;
            current_time_ = o.time;
        }
    }

    point current_;
    double current_time_ = 0;
    double best_time_ = 0;
    double temperature_ = 1.0;
    bool has_current_ = false;
    int stale_ = 0;
    unseen_sampler sampler_;
};

} // namespace

std::unique_ptr<searcher> make_annealing() {
    return std::make_unique<annealing>();
}

} // namespace ktune::tune::detail
