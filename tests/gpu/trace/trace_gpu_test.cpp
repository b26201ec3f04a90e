// The real CUPTI path on a GPU: record a known launch sequence in-process and compare.
#include "catch.hpp"
#include "known_launches.hpp"
#include "trace_collector.hpp"

#include "ktune/trace/session.hpp"
#include "ktune/trace/trace_file.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <unistd.h>

using namespace ktune::trace;

namespace {

using collected = ktune::test::trace_collector;

// graph_level: graph launches whole (the default: one record per launch), else node by node.
void check_known_sequence(bool graph_level) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("ktune_gpu_" + std::to_string(getpid()) + ".ktrace"))
                                 .string();
    session_options o;
    o.output = path;
    o.sync = true; // off by default (launch overhead); this test checks the records
    o.graph_level = graph_level;
    session s(o);
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(s.start());
    const auto t1 = std::chrono::steady_clock::now();
    const known_sequence seq = run_known_sequence();
    REQUIRE(seq.ok);
    s.stop();
    REQUIRE(s.save());
    std::printf("session start %.2f ms\n",
                std::chrono::duration<double, std::milli>(t1 - t0).count());

    trace_reader r(path);
    collected c;
    const auto st = r.read(c);
    REQUIRE(st.complete);
    CHECK(st.counters.dropped() == 0);
    CHECK(st.counters.zero_timestamps == 0);
    REQUIRE(r.environment().gpus.size() == 1);
    CHECK(!r.environment().gpus[0].name.empty());
    CHECK(r.environment().gpus[0].uuid.rfind("GPU-", 0) == 0);
    CHECK(r.environment().driver_api_version > 0);
    CHECK(r.environment().graph_trace == (graph_level ? "graph" : "node"));
    std::printf("kernel timestamps: %s\n", r.environment().kernel_timestamps.c_str());

    const auto name = [&](const kernel_record& k) { return r.string(k.name_id).demangled; };
    std::vector<kernel_record> ks = c.kernels;
    std::sort(ks.begin(), ks.end(),
              [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    const std::size_t expected = static_cast<std::size_t>(
        seq.alpha + seq.beta + (graph_level ? 1 : seq.graph_nodes) * seq.replays);
    REQUIRE(ks.size() == expected);
    for (int i = 0; i < seq.alpha; ++i) {
        INFO("kernel " << i << ": " << name(ks[i]));
        CHECK(name(ks[i]).find("ktune_test_alpha") != std::string::npos);
        CHECK(ks[i].block == dim3_u{256, 1, 1});
        CHECK(ks[i].grid == dim3_u{256, 1, 1});
        CHECK(ks[i].graph_id == 0);
    }
    for (int i = seq.alpha; i < seq.alpha + seq.beta; ++i) {
        INFO("kernel " << i << ": " << name(ks[i]));
        CHECK(name(ks[i]).find("ktune_test_beta<3>") != std::string::npos);
        CHECK(ks[i].block == dim3_u{128, 1, 1});
        CHECK(ks[i].dynamic_smem == 512);
    }
    // Launch order = start order = correlation order on one stream; no overlap.
    for (std::size_t i = 1; i < static_cast<std::size_t>(seq.alpha + seq.beta); ++i) {
        CHECK(ks[i].correlation > ks[i - 1].correlation);
        CHECK(ks[i].start_ns >= ks[i - 1].end_ns);
        CHECK(ks[i].stream == ks[0].stream);
        CHECK(ks[i].duration_ns() > 0);
    }
    // Every graph kernel is attributed: graph id set, one node id per captured kernel; or, graph
    // by graph, one record per launch, in launch order, each after the kernels before it.
    std::set<std::uint64_t> nodes;
    std::set<std::uint32_t> graphs;
    for (std::size_t i = static_cast<std::size_t>(seq.alpha + seq.beta); i < ks.size(); ++i) {
        INFO("kernel " << i << ": " << name(ks[i]));
        CHECK(ks[i].graph_id != 0);
        graphs.insert(ks[i].graph_id);
        if (graph_level) {
            CHECK(ks[i].flags & flag_graph_launch);
            CHECK(name(ks[i]) == "CUDA graph " + std::to_string(ks[i].graph_id));
            CHECK(ks[i].duration_ns() > 0);
            CHECK(ks[i].start_ns >= ks[i - 1].end_ns);
            CHECK(ks[i].correlation > ks[i - 1].correlation);
            continue;
        }
        CHECK(name(ks[i]).find("ktune_test_graph_node") != std::string::npos);
        CHECK_FALSE(ks[i].flags & flag_graph_launch);
        nodes.insert(ks[i].graph_node_id);
    }
    CHECK(nodes.size() == static_cast<std::size_t>(graph_level ? 0 : seq.graph_nodes));
    CHECK(graphs.size() == 1);
    REQUIRE(c.memcpys.size() == 1);
    CHECK(c.memcpys[0].bytes == seq.copy_bytes);
    CHECK(c.memcpys[0].copy_kind == 1); // HtoD
    REQUIRE(c.memsets.size() == 1);
    CHECK(c.memsets[0].bytes == seq.memset_bytes);
    CHECK(c.syncs.size() >= 2); // the two stream synchronisations
    std::filesystem::remove(path);
}

} // namespace

TEST_CASE("CUPTI records match a known launch sequence: counts, names, order, graph nodes") {
    check_known_sequence(false);
}

TEST_CASE("CUPTI records match a known launch sequence with graph launches traced whole") {
    check_known_sequence(true);
}
