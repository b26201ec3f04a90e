// Results and suite files: JSON round trip, and malformed input rejected with file + JSON path.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/guard/results.hpp"
#include "ktune/guard/suite.hpp"

#include <cstdio>
#include <string>

using namespace ktune::guard;

namespace {
const std::string data = std::string(KTUNE_TEST_DATA_DIR) + "/guard/";

std::string error_of(const std::string& path) {
    try {
        (void)read_results(path);
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::input);
        return e.what();
    }
    FAIL("no error for " << path);
    return {};
}
} // namespace

TEST_CASE("results round-trip through JSON") {
    results r;
    r.suite = "nightly";
    r.created = "2026-11-21T05:00:00Z";
    r.ktune_version = "0.1.0";
    r.env.gpu = "NVIDIA H200";
    r.env.driver = "580.159.04";
    r.env.sm_clock_mhz = 1980;
    result_entry e;
    e.data.name = "gemm";
    e.data.shape = "4096x4096";
    e.data.unit = "ns";
    e.data.samples = {1.5, 2.25, 3.0};
    e.data.launches_per_run = 3;
    e.data.gpu_time_share = 0.25;
    r.entries.push_back(e);
    result_entry u;
    u.data.name = "softmax/f32";
    u.kind = "op";
    u.status = "unavailable";
    u.detail = "no op runtime in this build";
    r.entries.push_back(u);
    r.stale_winners.push_back({"softmax|f32|4096", "{\"block\":256}", "{\"block\":512}", 0.07});
    CHECK(parse_results(results_to_json(r), "mem") == r);
    const std::string path = "guard_results_roundtrip.json";
    write_results(r, path);
    CHECK(read_results(path) == r);
    std::remove(path.c_str());
    const auto s = to_series_set(r, "x");
    CHECK(s.items.size() == 1); // only status ok is comparable
}

TEST_CASE("malformed results are rejected naming file and JSON path") {
    CHECK(error_of(data + "bad_sample.json").find("entries[0].samples[1]") != std::string::npos);
    CHECK(error_of(data + "bad_version.json").find("2.0.0") != std::string::npos);
    CHECK(error_of(data + "bad_schema.json").find("ktune.cache") != std::string::npos);
    CHECK(error_of(data + "not_json.json").find("not_json.json:4:1") != std::string::npos);
    CHECK_THROWS_AS(read_results(data + "missing.json"), ktune::error);
    CHECK_THROWS_AS(parse_results(R"({"schema":"ktune.results","version":"1.0.0","entries":[
        {"name":"k","status":"ok","samples":[]}]})",
                                  "m"),
                    ktune::error);
    CHECK_THROWS_AS(parse_results(R"({"schema":"ktune.results","version":"1.0.0","entries":[
        {"name":"k","status":"weird","samples":[1]}]})",
                                  "m"),
                    ktune::error);
}

TEST_CASE("suite files parse, and bad ones say where") {
    const auto s = read_suite(data + "suite_commands.json");
    CHECK(s.name == "smoke");
    REQUIRE(s.commands.size() == 2);
    CHECK(s.commands[0].repeat == 10);
    CHECK(s.commands[1].repeat == 12);
    CHECK(s.commands[1].run == std::vector<std::string>{"sleep", "0.005"});
    const auto o = read_suite(data + "suite_ops.json");
    REQUIRE(o.ops.size() == 1);
    CHECK(o.ops[0].shapes.size() == 2);
    CHECK(o.ops[0].shapes[1] == std::vector<std::int64_t>{8192, 1024});
    REQUIRE(o.ops[0].configs.size() == 2);
    CHECK(o.ops[0].configs[0].kind == "cached");
    CHECK(o.ops[0].configs[1].label() == "default");
    const auto one = parse_suite(R"({"schema":"ktune.suite","version":"1.0.0","name":"x",
        "ops":[{"op":"rowsum","shapes":[[64,64]],"config":{"block":128,"vec":4}}]})",
                                 "m");
    REQUIRE(one.ops[0].configs.size() == 1);
    CHECK(one.ops[0].configs[0].kind == "explicit");
    CHECK(one.ops[0].configs[0].cfg.get<std::int64_t>("block") == 128);
    CHECK(one.ops[0].configs[0].label() == one.ops[0].configs[0].cfg.to_string());
    CHECK(parse_suite(R"({"schema":"ktune.suite","version":"1.0.0","name":"x",
        "ops":[{"op":"rowsum","shapes":[[64,64]]}]})",
                      "m")
              .ops[0]
              .configs == std::vector<op_config>{op_config{}});
    try {
        (void)parse_suite(R"({"schema":"ktune.suite","version":"1.0.0","name":"x",
            "ops":[{"op":"rowsum","shapes":[[64,64]],"config":["default","fastest"]}]})",
                          "m.json");
        FAIL("accepted config 'fastest'");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find("m.json: ops[0].config[1]: must be") != std::string::npos);
    }
    try {
        (void)read_suite(data + "suite_bad.json");
        FAIL("accepted repeat 0");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find("commands[0].repeat") != std::string::npos);
    }
    // A shape that is not an array (a fuzz finding: json's own exception escaped the reader).
    CHECK_THROWS_AS(parse_suite(R"({"schema":"ktune.suite","version":"1.0.0","name":"x",
        "ops":[{"op":"softmax","shapes":[[4096,4096],"default"]}]})",
                                "m"),
                    ktune::error);
    CHECK_THROWS_AS(parse_suite(R"({"schema":"ktune.suite","version":"1.0.0","name":"x"})", "m"),
                    ktune::error);
    CHECK_THROWS_AS(parse_suite(R"({"schema":"ktune.suite","version":"1.0.0","name":"x",
        "ops":[{"op":"softmax","shapes":[[0]]}]})",
                                "m"),
                    ktune::error);
}

TEST_CASE("running a suite: commands are timed, op entries need the runtime") {
    auto s = read_suite(data + "suite_commands.json");
    s.commands[1].repeat = 3;
    const auto r = run_suite(s, {});
    REQUIRE(r.entries.size() == 2);
    CHECK(r.entries[0].data.samples.size() == 10);
    CHECK(r.entries[1].data.samples.size() == 3);
    for (double t : r.entries[1].data.samples)
        CHECK(t >= 0.005); // sleep 0.005 takes >= 5 ms
    CHECK(r.entries[1].data.unit == "s");

    const auto ops = read_suite(data + "suite_ops.json");
    CHECK_THROWS_AS(run_suite(ops, {}), ktune::error);
    bench_options skip;
    skip.skip_unavailable = true;
    const auto partial = run_suite(ops, skip);
    REQUIRE(partial.entries.size() == 5);
    CHECK(partial.entries[1].status == "unavailable");
    CHECK(partial.entries[1].detail == skip.unavailable_reason);
    // With a runtime hook the op entries are measured through it, one key per config, and the
    // run's fingerprint takes the clocks under load (its idle reading varies run to run).
    bench_options hooked;
    hooked.hooks.time_op = [](const op_entry&, const std::vector<std::int64_t>& shape,
                              const op_config& c, int n) {
        op_timing t;
        t.samples.assign(static_cast<std::size_t>(n), double(shape[0]));
        t.config = c.kind == "cached" ? "block=256" : "block=128";
        t.config_source = c.kind;
        t.sm_clock_mhz = 1980;
        t.memory_clock_mhz = 2619;
        t.throttle_reasons = shape[0] == 8192 ? 4 : 0;
        return t;
    };
    const auto full = run_suite(ops, hooked);
    REQUIRE(full.entries.size() == 5);
    CHECK(full.entries[3].data.samples.size() == 30);
    CHECK(full.entries[3].data.shape == "8192x1024");
    CHECK(full.entries[3].data.name == "softmax/f32@cached");
    CHECK(full.entries[4].data.name == "softmax/f32@default");
    CHECK(full.entries[4].config == "block=128");
    CHECK(full.env.sm_clock_mhz == 1980);
    CHECK(full.env.throttle_reasons == 4);
    CHECK(full.entries[1].sm_clock_mhz == 1980);
    // Op fields survive the results file.
    CHECK(parse_results(results_to_json(full), "r") == full);
    // A measurement that throws fails its entry only; the rest is measured.
    bench_options broken = hooked;
    broken.hooks.time_op = [&](const op_entry& e, const std::vector<std::int64_t>& shape,
                               const op_config& c, int n) {
        if (c.kind == "cached" && shape[0] == 4096)
            throw ktune::error(ktune::error_kind::input, "softmax 4096x4096: not a valid config");
        return hooked.hooks.time_op(e, shape, c, n);
    };
    const auto part = run_suite(ops, broken);
    REQUIRE(part.entries.size() == 5);
    CHECK(part.entries[1].status == "failed");
    CHECK(part.entries[1].detail.find("not a valid config") != std::string::npos);
    CHECK(part.entries[2].status == "ok");
    CHECK(to_series_set(part, "p").items.size() == 4);

    command_entry bad{"false", {"false"}, 2, 0, 10};
    CHECK_THROWS_AS(time_command(bad), ktune::error);
    command_entry missing{"nope", {"/nonexistent/ktune-test-binary"}, 1, 0, 10};
    CHECK_THROWS_AS(time_command(missing), ktune::error);
    command_entry slow{"sleep", {"sleep", "5"}, 1, 0, 0.2};
    try {
        (void)time_command(slow);
        FAIL("no timeout");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::timeout);
    }
}
