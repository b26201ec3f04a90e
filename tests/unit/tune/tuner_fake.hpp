#pragma once
// A scripted candidate_evaluator for the tune loop's CPU tests: each config's time comes from a
// table (the search's and the confirmation round's can differ), each GPU runs a fixed factor
// slower than GPU 0, and a GPU can be set to die at its n-th candidate.
#include "ktune/core/error.hpp"
#include "tune/tuner_loop.hpp"

#include <map>
#include <string>
#include <vector>

namespace ktune::tune::test {

struct fake_gpu {
    int ordinal = 0;
    double factor = 1.0; ///< its times are this many times GPU 0's
    int dies_after = -1; ///< throws error{cuda} at this candidate (-1: never)
    int measured = 0;    ///< candidates it timed (search and confirmation)
};

class fake_evaluator final : public detail::candidate_evaluator {
public:
    /// Search-time median of a config (by config string); missing: 1.0 ms.
    std::map<std::string, double> search_ms;
    /// Confirmation-round median; missing: search_ms's.
    std::map<std::string, double> confirm_ms;
    /// Configs that fail the check (wrong_result).
    std::vector<std::string> wrong;
    std::vector<fake_gpu> gpus{fake_gpu{}};
    std::size_t batch_n = 4;
    int remeasured = 0; ///< remeasure() calls
    std::vector<std::string> measured_order;
    std::vector<std::size_t> started; ///< each start()'s candidate count

    [[nodiscard]] std::size_t batch_size() const override { return batch_n; }

    struct fake_batch final : batch {
        std::vector<candidate_record> recs;
    };
    std::unique_ptr<batch> start(std::vector<candidate_record> cands) override {
        auto b = std::make_unique<fake_batch>();
        started.push_back(cands.size());
        b->recs = std::move(cands);
        return b;
    }
    void measure(batch& base, const std::function<void(candidate_record)>& done) override {
        for (auto& rec : static_cast<fake_batch&>(base).recs) {
            fake_gpu& g = gpus[next_++ % gpus.size()]; // spread like the real one
            time(rec, g, search_ms, 12);
            measured_order.push_back(rec.cfg.to_string());
            done(std::move(rec));
        }
    }
    std::vector<candidate_record> remeasure(const config& c,
                                            const measure::measure_policy& p) override {
        ++remeasured;
        std::vector<candidate_record> out;
        for (auto& g : gpus) {
            candidate_record rec;
            rec.cfg = c;
            time(rec, g, confirm_ms.empty() ? search_ms : confirm_ms,
                 static_cast<std::size_t>(p.min_samples));
            out.push_back(std::move(rec));
        }
        return out;
    }

private:
    void time(candidate_record& rec, fake_gpu& g, const std::map<std::string, double>& table,
              std::size_t n) {
        if (g.dies_after >= 0 && g.measured >= g.dies_after)
            throw error(error_kind::cuda, "fake GPU " + std::to_string(g.ordinal) + " lost");
        ++g.measured;
        rec.gpu = g.ordinal;
        const std::string key = rec.cfg.to_string();
        if (std::find(wrong.begin(), wrong.end(), key) != wrong.end()) {
            rec.status = eval_status::wrong_result;
            return;
        }
        auto it = table.find(key);
        if (it == table.end()) it = search_ms.find(key);
        const double ms = (it == search_ms.end() ? 1.0 : it->second) * g.factor;
        rec.status = eval_status::ok;
        rec.run.samples_ms.clear();
        // Tight, deterministic spread (±0.1 %): distinct medians 1 % apart do not tie.
        for (std::size_t i = 0; i < n; ++i)
            rec.run.samples_ms.push_back(ms * (1.0 + 0.001 * (static_cast<double>(i % 5) - 2) / 2));
        rec.run.median_ms = ms;
        rec.run.ci_lo_ms = ms * 0.999;
        rec.run.ci_hi_ms = ms * 1.001;
        rec.run.gpu_busy_ms = ms * static_cast<double>(n);
    }
    std::size_t next_ = 0;
};

} // namespace ktune::tune::test
