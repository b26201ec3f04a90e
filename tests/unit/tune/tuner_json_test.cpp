// `ktune tune --json` pinned byte for byte (docs/formats.md, ktune.tune_op and
// ktune.tune_plan_result): a change to the report shows up here, not in users' scripts.
// After a deliberate change: KTUNE_UPDATE_GOLDEN=1 rewrites the golden files; review the diff.
#include "catch.hpp"
#include "ktune/tune/replay.hpp"
#include "ktune/tune/tuner_json.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

namespace kt = ktune::tune;

namespace {

void check_golden(const std::string& text, const std::string& name) {
    const std::string path = std::string(KTUNE_TEST_DATA_DIR "/tune/golden/") + name;
    if (std::getenv("KTUNE_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << text << "\n";
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream golden;
    golden << in.rdbuf();
    CHECK(text + "\n" == golden.str());
}

kt::candidate_record candidate(std::int64_t block, int gpu, double ms) {
    kt::candidate_record c;
    c.cfg.set("block", block);
    c.gpu = gpu;
    c.run.median_ms = ms;
    c.run.ci_lo_ms = ms * 0.99;
    c.run.ci_hi_ms = ms * 1.01;
    c.run.samples_ms.assign(24, ms);
    c.run.registers = 32;
    c.compile_ms = 40;
    return c;
}

/// A two-GPU tune: the winner re-timed on both GPUs.
kt::tune_report two_gpu_report(kt::tune_request& rq) {
    rq.op = "softmax";
    rq.prob = {{4096, 4096}, ktune::ops::dtype::bf16};
    kt::tune_report r;
    r.strategy = "auto";
    r.gpus = {0, 1};
    r.pipeline = "stream";
    r.in_flight = 16;
    r.candidates = {candidate(128, 0, 0.5), candidate(256, 1, 0.25)};
    r.candidates[1].per_gpu = {{0, 0.25, 48}, {1, 0.2575, 48}};
    r.winner_index = 1;
    r.tied = 1;
    r.baseline = candidate(128, -1, 0.5);
    r.bytes = 67108864;
    r.copy_gbs = 3000;
    r.wall_s = 1.5;
    r.gpu_busy_s = 0.75;
    r.setup_s = 0.25;
    r.workers_spawned = 2;
    r.setup_marks = {{"processes_started", 0.001}, {"baseline", 0.25}};
    r.winner.key = {"softmax", "v3", "bf16", {4096, 4096}, "sm_90", 13000, 580, 1};
    r.winner.cfg = r.candidates[1].cfg;
    r.winner.time = {250, 247.5, 252.5, 48};
    return r;
}

} // namespace

TEST_CASE("ktune.tune_op matches the golden file, per-GPU medians included") {
    kt::tune_request rq;
    const auto r = two_gpu_report(rq);
    const std::string text = kt::tune_report_json(r, rq);
    check_golden(text, "tune_op_golden.json");
    const auto j = nlohmann::json::parse(text);
    CHECK(j["winner"]["per_gpu"].size() == 2);
    CHECK(j["winner"]["per_gpu"][1]["median_us"].get<double>() == Approx(257.5));
    CHECK(j["gpus"] == nlohmann::json::array({0, 1}));
}

TEST_CASE("ktune.tune_plan_result matches the golden file: where each tune ran, moves, errors") {
    kt::tune_request rq;
    std::vector<kt::plan_outcome> outs(2);
    outs[0].ok = true;
    outs[0].report = two_gpu_report(rq);
    outs[0].gpu = 1;
    outs[0].moved = 1;
    outs[1].error = "input error: bad shape";
    outs[1].gpu = 0;
    const std::vector<kt::tune_request> rqs{rq, rq};
    const std::string text = kt::tune_plan_json(rqs, outs, {}, 2.5);
    check_golden(text, "tune_plan_result_golden.json");
    const auto j = nlohmann::json::parse(text);
    CHECK(j["tunes"][0]["moved"] == 1);
    CHECK(j["tunes"][1]["error"] == "input error: bad shape");
}

TEST_CASE("a tune's candidates recorded as a space replay back: times, failures, the optimum") {
    kt::tune_request rq;
    rq.kernel_spec = std::string(KTUNE_EXAMPLES_DATA_DIR) + "/../kernels/reduction/reduction.json";
    rq.kernel_problem = ktune::kernel::parse_problem("N=4096");
    kt::tune_report r;
    r.strategy = "exhaustive";
    const auto cfg = [](std::int64_t block, std::int64_t vec) {
        ktune::config c;
        c.set("BLOCK", block);
        c.set("VEC", vec);
        c.set("ITEMS", std::int64_t{1});
        c.set("BLOCKS_PER_SM", std::int64_t{4});
        return c;
    };
    for (auto [block, vec, ms] : {std::tuple{128, 1, 0.02}, {256, 2, 0.0125}, {512, 4, 0.0}}) {
        kt::candidate_record c;
        c.cfg = cfg(block, vec);
        c.run.median_ms = ms;
        c.run.samples_ms.assign(16, ms);
        c.compile_ms = 120;
        c.run.worker_ms = 3;
        if (ms == 0.0) c.status = kt::eval_status::wrong_result;
        r.candidates.push_back(c);
    }
    r.winner.origin.gpu_name = "NVIDIA H100 80GB HBM3";
    r.winner.key.arch = "sm_90";
    const std::string path =
        (std::filesystem::temp_directory_path() / "ktune_recorded_space_test.json").string();
    std::ofstream(path) << kt::recorded_space_json(r, rq);
    const auto rec = kt::load_recorded_space(path);
    CHECK(rec.kernel == "reduction");
    CHECK(rec.device == "NVIDIA H100 80GB HBM3");
    REQUIRE(rec.configs.size() == 3);
    CHECK(rec.optimum() == 0.0125);
    int failed = 0;
    for (const auto& c : rec.configs)
        failed += c.status != kt::eval_status::ok;
    CHECK(failed == 1);
    CHECK(rec.space.axes().size() == 4);
    std::filesystem::remove(path);
}
