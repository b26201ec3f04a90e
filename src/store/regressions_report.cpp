// The regressions report as JSON (schema ktune.regressions) and as text.
#include "ktune/store/regressions.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ktune::store {

std::string regressions_json(const regressions_report& r) {
    nlohmann::ordered_json j;
    j["schema"] = "ktune.regressions";
    j["version"] = "1.0.0";
    j["db"] = r.db;
    j["baseline"] = r.baseline;
    j["candidate"] = r.candidate;
    auto& m = j["matrix"] = nlohmann::ordered_json::array();
    for (const auto& c : r.matrix)
        m.push_back({{"toolkit", c.toolkit},
                     {"driver", c.driver},
                     {"baseline_runs", c.baseline_runs},
                     {"candidate_runs", c.candidate_runs}});
    j["environment_differences"] = r.environment_differences;
    auto& ks = j["kernels"] = nlohmann::ordered_json::array();
    for (const auto& k : r.kernels) {
        const auto& d = k.overall;
        nlohmann::ordered_json o;
        o["kernel"] = d.name;
        o["launch"] = d.shape;
        o["verdict"] = std::string(guard::to_string(d.result));
        o["cause"] = std::string(guard::to_string(d.why));
        o["attributed_to"] = k.attributed_to.empty() ? nlohmann::ordered_json()
                                                     : nlohmann::ordered_json(k.attributed_to);
        o["n_baseline"] = d.n_base;
        o["n_candidate"] = d.n_cand;
        o["baseline_median_ns"] = d.base_median;
        o["candidate_median_ns"] = d.cand_median;
        o["rel"] = d.rel;
        o["rel_lo"] = d.rel_lo;
        o["rel_hi"] = d.rel_hi;
        o["q_value"] = d.q_value;
        auto& cells = o["cells"] = nlohmann::ordered_json::array();
        for (const auto& c : k.cells)
            cells.push_back({{"toolkit", c.toolkit},
                             {"driver", c.driver},
                             {"verdict", std::string(guard::to_string(c.result))},
                             {"rel", c.rel}});
        ks.push_back(std::move(o));
    }
    j["exit_code"] = r.exit_code();
    return j.dump(2);
}

std::string format_regressions(const regressions_report& r) {
    std::string out = fmt::format("regressions {} -> {} in {}\n", r.baseline, r.candidate, r.db);
    out += "environments (toolkit x driver: baseline runs / candidate runs):\n";
    for (const auto& c : r.matrix)
        out += fmt::format("  toolkit {:<6} driver {:<12} {:>4} / {:<4}\n",
                           c.toolkit.empty() ? "?" : c.toolkit, c.driver.empty() ? "?" : c.driver,
                           c.baseline_runs, c.candidate_runs);
    for (const auto& d : r.environment_differences)
        out += "  note: " + d + "\n";
    for (const auto& k : r.kernels) {
        const auto& d = k.overall;
        out += fmt::format("{:<12} {:+6.1f}% [{:+.1f}, {:+.1f}] q={:.3g}  {} {}",
                           guard::to_string(d.result), 100 * d.rel, 100 * d.rel_lo, 100 * d.rel_hi,
                           d.q_value, d.name, d.shape);
        if (!k.attributed_to.empty()) out += "  (" + k.attributed_to + ")";
        out += "\n";
    }
    if (r.kernels.empty()) out += "no kernel in common\n";
    return out;
}

} // namespace ktune::store
