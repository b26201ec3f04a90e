// The SQLite store end to end: ingest (idempotent, one transaction, object copy), backlog
// ranking and tune commands, schema versions, and the JSON documents against golden files.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/store/backlog.hpp"
#include "ktune/store/ingest.hpp"
#include "ktune/store/regressions.hpp"
#include "ktune/trace/trace_file.hpp"
#include "store/sql_seam.hpp"
#include "synthetic_trace.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace ktune;
using namespace ktune::store;
using ktune::store::test::write_trace;
namespace fs = std::filesystem;

namespace {

struct temp_dir {
    fs::path path;
    temp_dir() {
        path = fs::temp_directory_path() /
               ("ktune_store_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    static int& counter() {
        static int n = 0;
        return n;
    }
    [[nodiscard]] std::string file(const std::string& name) const { return (path / name).string(); }
};

std::int64_t count_rows(const std::string& db, const std::string& table) {
    auto c = detail::open_sqlite(db);
    auto s = c->prepare("SELECT COUNT(*) FROM " + table);
    s->step();
    return s->column_int(0);
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void check_golden(const std::string& got, const std::string& name) {
    const std::string path = std::string(KTUNE_TEST_DATA_DIR) + "/store/" + name;
    if (std::getenv("KTUNE_UPDATE_GOLDEN")) std::ofstream(path) << got;
    INFO("golden " << path << " (KTUNE_UPDATE_GOLDEN=1 rewrites it)");
    CHECK(got == slurp(path));
}

} // namespace

TEST_CASE("ingest stores a run once: re-ingesting changes nothing") {
    temp_dir d;
    const auto trace = write_trace(d.file("a.ktrace"), "node1");
    auto db = open_store("sqlite:" + d.file("k.db"));
    const auto r1 = ingest_trace(db, trace, {.build = "v1"});
    CHECK_FALSE(r1.already_stored);
    CHECK(r1.groups == 4); // gemm at two grids, softmax, ktune_op_kernel
    CHECK(r1.run.kernels == 80);
    CHECK(r1.run.gpu == "NVIDIA H200");
    CHECK(r1.run.toolkit == "13.0");
    CHECK(r1.run.id.size() == 64);
    // The raw trace is in the object directory under its hash, byte for byte.
    const auto object = (fs::path(d.file("objects")) / r1.run.object).string();
    CHECK(slurp(object) == slurp(trace));

    const auto before = count_rows(d.file("k.db"), "kernel_aggregates");
    const auto r2 = ingest_trace(db, trace, {.build = "v2"});
    CHECK(r2.already_stored);
    CHECK(r2.run.id == r1.run.id);
    CHECK(count_rows(d.file("k.db"), "runs") == 1);
    CHECK(count_rows(d.file("k.db"), "kernel_aggregates") == before);
    CHECK(db.runs().at(0).build == "v1"); // the first ingest's build stays

    // A digest whose run is already stored is refused as a whole (the concurrent-ingester case).
    auto digest = digest_trace(trace, {.build = "v3"});
    CHECK_FALSE(db.add_run(digest));
    CHECK(count_rows(d.file("k.db"), "kernel_aggregates") == before);
}

TEST_CASE("a trace cut short is stored with what it holds, and says so") {
    temp_dir d;
    const auto whole = slurp(write_trace(d.file("a.ktrace"), "node1"));
    std::ofstream(d.file("cut.ktrace"), std::ios::binary) << whole.substr(0, whole.size() - 40);
    auto db = open_store("sqlite:" + d.file("k.db"));
    const auto r = ingest_trace(db, d.file("cut.ktrace"));
    CHECK_FALSE(r.already_stored);
    CHECK_FALSE(r.run.complete);
    CHECK(r.note.find("trace damaged") != std::string::npos);
    CHECK_FALSE(db.runs().at(0).complete);
}

TEST_CASE("ktune bench results files are stored once, entry by entry") {
    temp_dir d;
    auto db = open_store("sqlite:" + d.file("k.db"));
    const std::string results = std::string(KTUNE_TEST_DATA_DIR) + "/guard/base.json";
    const auto r1 = ingest_trace(db, results, {.build = "v1"});
    CHECK(r1.kind == "bench");
    CHECK_FALSE(r1.already_stored);
    CHECK(r1.groups == 5);
    CHECK(db.bench_rows(r1.run.id) == 5);
    const auto r2 = ingest_trace(db, results);
    CHECK(r2.already_stored);
    CHECK(db.bench_rows(r1.run.id) == 5);
    CHECK(db.runs().empty()); // not a profiled run
    const auto j = nlohmann::json::parse(ingest_json({r1, r2}, "x"));
    CHECK(j["traces"][0]["kind"] == "bench");
    CHECK(j["traces"][0]["entries"] == 5);
}

TEST_CASE("backlog ranks kernels by fleet time and names the tune command") {
    temp_dir d;
    auto db = open_store("sqlite:" + d.file("k.db"));
    ingest_trace(db, write_trace(d.file("a.ktrace"), "node1"), {.build = "v1"});
    ingest_trace(db, write_trace(d.file("b.ktrace"), "node2"), {.build = "v2"});
    const auto b = backlog(db);
    CHECK(b.runs == 2);
    REQUIRE(b.rows.size() == 3);
    CHECK(b.rows[0].kernel == "gemm(float const*, float const*, float*)");
    CHECK(b.rows[0].count == 60);
    CHECK(b.rows[0].runs == 2);
    const double total = 2 * (30 * 100000 + 435 + 40 * 20000 + 780 + 10 * 5000);
    CHECK(b.rows[0].share == Approx(2 * (30 * 100000.0 + 435) / total));
    CHECK(b.rows[0].p50_ns == Approx(100014).epsilon(0.005));
    CHECK(b.rows[0].tune.op.empty());
    CHECK(b.rows[1].tune.op == "softmax");
    CHECK(b.rows[1].tune.dtype == "bf16");
    CHECK(b.rows[1].tune.command.empty()); // PyTorch's kernel: the shape is not in the trace
    CHECK(b.rows[2].kernel == "ktune_op_kernel");
    CHECK(b.rows[2].tune.command == "ktune tune softmax --shape 4096x1024 --dtype bf16");
    CHECK(b.rows[2].savable_ns < 0); // no metrics, no roof
    CHECK(backlog(db, {.filter = {.build = "v2"}}).rows.at(0).count == 30);
    CHECK(backlog(db, {.filter = {.gpu = "NVIDIA A100"}}).rows.empty());
    CHECK(backlog(db, {.limit = 1}).rows.size() == 1);
}

TEST_CASE("schema: versioned, a newer database is refused, bad URLs say what to do") {
    temp_dir d;
    const auto path = d.file("k.db");
    CHECK(open_store(path).version() == schema_version);
    CHECK(open_store(path).version() == schema_version); // reopening migrates nothing
    {
        auto c = detail::open_sqlite(path);
        c->exec("INSERT INTO schema_version (version) VALUES (99)");
    }
    try {
        open_store("sqlite:" + path);
        FAIL("a newer schema was accepted");
    } catch (const error& e) {
        CHECK(e.kind() == error_kind::unsupported);
    }
    CHECK_THROWS_AS(open_store("mysql://x"), error);
    CHECK_THROWS_AS(open_store("sqlite:"), error);
    temp_dir e;
    auto db = open_store(e.file("k.db"));
    std::ofstream(e.file("not.ktrace")) << "hello";
    try {
        ingest_trace(db, e.file("not.ktrace"));
        FAIL("a non-trace was ingested");
    } catch (const error& err) {
        CHECK(err.kind() == error_kind::input);
    }
}

TEST_CASE("the default database lives under the user's data directory") {
    ::setenv("XDG_DATA_HOME", "/tmp/xdg_ktune", 1);
    CHECK(default_db_url() == "sqlite:/tmp/xdg_ktune/ktune/ktune.db");
    ::unsetenv("XDG_DATA_HOME");
    ::setenv("HOME", "/home/u", 1);
    CHECK(default_db_url() == "sqlite:/home/u/.local/share/ktune/ktune.db");
}

TEST_CASE("tunable kernels: ktune's own op from its command, PyTorch's by name") {
    const auto own =
        match_tunable("ktune_op_kernel", {"python3 x.py", "/usr/bin/ktune tune layernorm --shape "
                                                          "8192x4096 --budget 50"});
    CHECK(own.command == "ktune tune layernorm --shape 8192x4096");
    CHECK(match_tunable("ktune_op_kernel", {"python3 x.py"}).command.empty());
    const auto ln = match_tunable(
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int)",
        {});
    CHECK(ln.op == "layernorm");
    CHECK(ln.dtype == "f32");
    CHECK(match_tunable("sm90_xmma_gemm_bf16bf16", {}).op.empty());
}

TEST_CASE("ingest and backlog JSON of the bundled traces match the golden files") {
    temp_dir d;
    auto db = open_store("sqlite:" + d.file("k.db"));
    std::vector<ingest_result> results;
    for (const auto* name : {"transformer_layer_h200.ktrace", "transformer_layer_nvtx_h200.ktrace"})
        results.push_back(ingest_trace(db, std::string(KTUNE_EXAMPLES_DATA_DIR) + "/" + name,
                                       {.build = "example"}));
    // Recorded with --metrics: its roofline verdicts give the backlog classes and % of roof.
    results.push_back(ingest_trace(
        db, std::string(KTUNE_TEST_DATA_DIR) + "/metrics/h200_transformer_layer.metrics.ktrace",
        {.build = "example"}));
    CHECK(results.back().verdicts == 10);
    results.push_back(
        ingest_trace(db, std::string(KTUNE_EXAMPLES_DATA_DIR) + "/transformer_layer_h200.ktrace"));
    for (auto& r : results)
        r.path = fs::path(r.path).filename().string();
    auto ij = nlohmann::json::parse(ingest_json(results, "sqlite:k.db"));
    CHECK(ij["stored"] == 3);
    CHECK(ij["already_stored"] == 1);
    check_golden(ingest_json(results, "sqlite:k.db") + "\n", "ingest.json");
    auto b = backlog(db, {.limit = 5});
    b.db = "sqlite:k.db";
    REQUIRE(b.rows.size() == 5);
    CHECK(b.rows[0].bound == "compute");
    CHECK(b.rows[0].savable_ns ==
          Approx((1 - b.rows[0].pct_of_roof / 100) * static_cast<double>(b.rows[0].total_ns)));
    CHECK(b.rows[3].tune.op == "layernorm");
    check_golden(backlog_json(b) + "\n", "backlog.json");
    CHECK(nlohmann::json::parse(backlog_json(b))["kernels"].size() == 5);
}

TEST_CASE("regressions: a slower kernel is found and blamed on the code or the environment") {
    temp_dir d;
    auto db = open_store("sqlite:" + d.file("k.db"));
    int n = 0;
    auto add = [&](const std::string& build, std::uint64_t slow, const std::string& driver) {
        const auto path = d.file("r" + std::to_string(n) + ".ktrace");
        write_trace(path, "node" + std::to_string(n++), slow, driver);
        ingest_trace(db, path, {.build = build});
    };
    for (int i = 0; i < 3; ++i)
        add("v1", 0, "580.159.04");
    for (int i = 0; i < 3; ++i)
        add("v2", 20000, "580.159.04"); // gemm 20 % slower on the same driver: the code
    const auto r = regressions(db, {.baseline = "v1", .candidate = "v2"});
    REQUIRE(r.matrix.size() == 1);
    CHECK(r.matrix[0].baseline_runs == 3);
    CHECK(r.matrix[0].candidate_runs == 3);
    REQUIRE_FALSE(r.kernels.empty());
    CHECK(r.kernels[0].overall.name == "gemm(float const*, float const*, float*)");
    CHECK(r.kernels[0].overall.result == guard::verdict::slower);
    CHECK(r.kernels[0].attributed_to == "code");
    CHECK(r.exit_code() == 1);
    for (const auto& k : r.kernels)
        if (k.overall.name != r.kernels[0].overall.name)
            CHECK(k.overall.result != guard::verdict::slower);

    // v3: as fast as v1 where the driver is the same, slower only on a new driver.
    for (int i = 0; i < 3; ++i)
        add("v3", 0, "580.159.04");
    for (int i = 0; i < 3; ++i)
        add("v3", 40000, "590.10");
    const auto e = regressions(db, {.baseline = "v1", .candidate = "v3"});
    CHECK(e.matrix.size() == 2);
    CHECK(e.environment_differences.size() == 1);
    int gemm_keys = 0;
    for (const auto& k : e.kernels) {
        if (k.overall.result == guard::verdict::slower) CHECK(k.attributed_to == "environment");
        if (k.overall.name != "gemm(float const*, float const*, float*)") continue;
        ++gemm_keys; // inside the shared environment the gemm did not change
        REQUIRE(k.cells.size() == 1);
        CHECK(k.cells[0].driver == "580.159.04");
        CHECK(k.cells[0].result == guard::verdict::same);
    }
    CHECK(gemm_keys == 2);
    CHECK(e.exit_code() != 1);
    CHECK(nlohmann::json::parse(regressions_json(e))["schema"] == "ktune.regressions");
    CHECK_THROWS_AS(regressions(db, {.baseline = "v1", .candidate = "nope"}), error);
}
