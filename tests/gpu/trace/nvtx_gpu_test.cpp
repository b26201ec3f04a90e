// NVTX attribution on a GPU: kernels carry the range open on the launching thread, through
// ktune's NVTX hooks and the session's link mode (CUPTI launch callbacks by default;
// KTUNE_NVTX_LINK=locked_map|external_correlation|window runs the same test another way).
// NVTX's static injection point (InitializeInjectionNvtx2_fnptr, a strong symbol here) hands
// this process's NVTX calls to ktune, as NVTX_INJECTION64_PATH does under `ktune profile`.
#include "catch.hpp"
#include "nvtx_launches.hpp"
#include "trace_collector.hpp"

#include "ktune/analysis/aggregate.hpp"
#include "ktune/trace/session.hpp"
#include "ktune/trace/trace_file.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <unistd.h>

namespace {
int nvtx_init(const void* (*get_export_table)(std::uint32_t)) {
    return ktune::trace::install_nvtx_injection(reinterpret_cast<const void*>(get_export_table));
}
} // namespace

extern "C" {
int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(std::uint32_t)) = nvtx_init;
}

using namespace ktune::trace;

TEST_CASE("kernels launched inside NVTX ranges carry them (push/pop, nested, graphs, domains)") {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("ktune_gpu_nvtx_" + std::to_string(getpid()) + ".ktrace"))
                                 .string();
    session_options o;
    o.output = path;
    session s(o);
    REQUIRE(s.start());
    REQUIRE(run_nvtx_sequence());
    s.stop();
    REQUIRE(s.save());

    trace_reader r(path);
    ktune::test::trace_collector c;
    REQUIRE(r.read(c).complete);
    std::map<std::string, int> by_path;
    for (const auto& k : c.kernels)
        ++by_path[k.nvtx_path ? r.string(k.nvtx_path - 1).mangled : "-"];
    for (const auto& [p, n] : by_path)
        std::printf("nvtx path %-12s %d kernels\n", p.c_str(), n);
    CHECK(by_path["outer"] == 3);
    // 2 launches + 2 replays of a 2-node graph, each replay one record (graph-level tracing)
    CHECK(by_path["outer/inner"] == 2 + 2);
    int graph_launches_in_inner = 0;
    for (const auto& k : c.kernels)
        if ((k.flags & flag_graph_launch) && k.nvtx_path &&
            r.string(k.nvtx_path - 1).mangled == "outer/inner")
            ++graph_launches_in_inner;
    CHECK(graph_launches_in_inner == 2);
    CHECK(by_path["dom"] == 1);
    CHECK(by_path["-"] == 1);
    CHECK(c.nvtx.size() == 3);

    const auto rows = ktune::analysis::aggregate({path}, ktune::analysis::group_by::nvtx);
    CHECK_FALSE(rows.nvtx_host_time);
    std::filesystem::remove(path);
}
