// The `--json` report of a replay (schema ktune.tune.replay, docs/formats.md#ktunetunereplay):
// library code so the CLI only prints it and a golden test pins it.
#include "ktune/tune/replay.hpp"

#include <nlohmann/json.hpp>

namespace ktune::tune {
namespace {

using ojson = nlohmann::ordered_json;

ojson quartiles_json(const quartiles& q) {
    return {{"q1", q.q1}, {"median", q.median}, {"q3", q.q3}, {"iqr", q.q3 - q.q1}};
}

ojson run_json(const recorded_space& rec, const replay_run& r) {
    ojson j{{"seed", r.seed},
            {"evals_to_target", nullptr},
            {"evaluations", r.evaluations},
            {"failures", r.failures},
            {"best_time_ms", r.best_time},
            {"best_config", rec.space.to_config(r.best).to_string()},
            {"tied_with_best", r.tied},
            {"tuning_time_s", r.tuning_s}};
    if (r.evals_to_target) {
        j["evals_to_target"] = *r.evals_to_target;
        j["tuning_time_to_target_s"] = r.tuning_s_to_target;
    }
    return j;
}

} // namespace

std::string replay_report_json(const recorded_space& rec, const replay_options& o,
                               const std::vector<replay_run>& runs) {
    const auto s = summarize(rec, o, runs);
    // Evaluations to target of every run, misses as budget + 1 (the value the quartiles use).
    ojson per_run = ojson::array();
    for (const auto& r : runs)
        per_run.push_back(r.evals_to_target ? *r.evals_to_target : r.evaluations + 1);
    ojson j{{"schema", "ktune.tune.replay"},
            {"version", "2.0.0"},
            {"space",
             {{"file", rec.source},
              {"format", rec.format},
              {"kernel", rec.kernel},
              {"device", rec.device},
              {"parameters", rec.space.axes().size()},
              {"cartesian", rec.space.cartesian_size()},
              {"recorded", s.recorded},
              {"valid", s.valid},
              {"failed", s.recorded - s.valid},
              {"optimum_ms", rec.optimum()},
              {"within_target", s.within}}},
            {"strategy", o.strategy},
            {"budget", s.budget},
            {"repeat", runs.size()},
            {"seed", o.seed},
            {"target", o.target}};
    ojson summary{
        {"reached", s.reached},
        {"evals_to_target", quartiles_json(s.evals)},
        {"evals_to_target_per_run", per_run},
        {"best_over_optimum", quartiles_json(s.best_ratio)},
        {"random",
         {{"draws_from", s.recorded}, {"median", s.random.median}, {"mean", s.random.mean}}},
        {"median_over_random_median", nullptr},
        {"median_over_random_mean", nullptr}};
    if (!runs.empty()) {
        summary["median_over_random_median"] = s.evals.median / s.random.median;
        summary["median_over_random_mean"] = s.evals.median / s.random.mean;
    }
    j["summary"] = std::move(summary);
    j["runs"] = ojson::array();
    for (const auto& r : runs)
        j["runs"].push_back(run_json(rec, r));
    return j.dump(2);
}

} // namespace ktune::tune
