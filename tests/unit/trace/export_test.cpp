// Exports: the chrome JSON parses and holds every timed record; CSV has one row per record.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/trace/export.hpp"
#include "ktune/trace/trace_file.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ktune;
using namespace ktune::trace;

namespace {

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("ktune_export_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

std::string small_trace() {
    const auto path = temp_path("in.ktrace");
    trace_environment env;
    env.start_trace_ns = 1000;
    env.gpus = {{0, "NVIDIA H200", "GPU-1", 9, 0, 0, 0, 0}};
    trace_writer w(path, env);
    const auto q = w.intern("_Z5quoteILi1EEvv"); // demangles to a name without quotes...
    const auto s = w.intern("range \"x\", y");   // ...and one that needs escaping
    kernel_record k;
    k.name_id = q, k.start_ns = 2000, k.end_ns = 3500, k.stream = 7;
    kernel_record u = k;
    u.flags = flag_no_timestamp;
    const kernel_record ks[] = {k, u};
    w.write(std::span(ks));
    memcpy_record m;
    m.start_ns = 1500, m.end_ns = 1900, m.bytes = 4096, m.copy_kind = 1, m.stream = 7;
    w.write(std::span(&m, 1));
    nvtx_record n;
    n.name_id = s, n.start_ns = 1000, n.end_ns = 4000;
    w.write(std::span(&n, 1));
    w.finish(env, {});
    return path;
}

} // namespace

TEST_CASE("chrome export is valid trace-event JSON with every timed record") {
    const auto in = small_trace();
    const auto out = temp_path("out.json");
    const auto s = export_trace(in, out, export_format::chrome);
    CHECK(s.records == 3); // the untimed kernel is not drawn
    CHECK(s.damage.empty());
    std::ifstream f(out);
    const auto j = nlohmann::json::parse(f);
    const auto& ev = j["traceEvents"];
    int kernels = 0, names = 0;
    for (const auto& e : ev) {
        if (e["ph"] == "X" && e["cat"] == "kernel") {
            ++kernels;
            CHECK(e["name"] == "void quote<1>()");
            CHECK(e["ts"].get<double>() == Approx(1.0));
            CHECK(e["dur"].get<double>() == Approx(1.5));
            CHECK(e["tid"] == 7);
        }
        if (e["ph"] == "X" && e["cat"] == "nvtx") CHECK(e["name"] == "range \"x\", y");
        if (e["ph"] == "M" && e["name"] == "process_name") {
            ++names;
            CHECK(e["args"]["name"] == "GPU 0 (NVIDIA H200)");
        }
    }
    CHECK(kernels == 1);
    CHECK(names == 1);
    CHECK(j["otherData"]["schema"] == "ktune.chrome_export");
    std::filesystem::remove(in);
    std::filesystem::remove(out);
}

TEST_CASE("csv export has a header and one row per record") {
    const auto in = small_trace();
    const auto out = temp_path("out.csv");
    CHECK(export_trace(in, out, export_format::csv).records == 4);
    std::ifstream f(out);
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(f, line))
        lines.push_back(line);
    REQUIRE(lines.size() == 5);
    CHECK(lines[0].rfind("kind,name,start_ns", 0) == 0);
    CHECK(lines[1].rfind("kernel,\"void quote<1>()\",2000,3500,1500,", 0) == 0);
    CHECK(lines[2].ends_with(",1,")); // the untimed kernel is flagged (no NVTX range after it)
    CHECK(lines[4].find("\"range \"\"x\"\", y\"") != std::string::npos);
    std::filesystem::remove(in);
    std::filesystem::remove(out);
}

TEST_CASE("export formats") {
    CHECK(parse_export_format("csv") == export_format::csv);
    try {
        parse_export_format("sqlite");
        FAIL("expected an error");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find("not supported yet") != std::string::npos);
    }
    CHECK_THROWS_AS(parse_export_format("xml"), ktune::error);
}
