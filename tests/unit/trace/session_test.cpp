// The whole pipeline without a GPU: synthetic CUPTI records → buffer-completed → collector →
// writer thread → .ktrace → reader.
#include "catch.hpp"
#include "fake_cupti.hpp"
#include "trace/collector.hpp"
#include "trace_collector.hpp"

#include "ktune/trace/session.hpp"
#include "ktune/trace/trace_file.hpp"

#include <filesystem>

using namespace ktune;
using namespace ktune::trace;

namespace {

std::string temp_path(const char* name) {
    return (std::filesystem::temp_directory_path() /
            (std::string("ktune_session_") + std::to_string(::getpid()) + "_" + name))
        .string();
}

session_options opts(const std::string& path, double delay_s = 0) {
    session_options o;
    o.output = path;
    o.delay_s = delay_s;
    return o;
}

using collected = ktune::test::trace_collector;

// CUPTI hands one pointer per function; distinct arrays model two kernels.
const char k_axpy[] = "_Z4axpyfPKfPfi";
const char k_gemm[] = "_Z4gemmILi128EEvPKfS1_Pf";

} // namespace

TEST_CASE("session records every kind of synthetic CUPTI record through the real path") {
    const auto path = temp_path("all.ktrace");
    auto fake_owner = std::make_unique<test::fake_cupti>();
    auto* fake = fake_owner.get();
    fake->dropped_per_buffer = 2;
    session s({.output = path, .sync = true, .command_line = {"./app", "--x"}},
              std::move(fake_owner));
    REQUIRE(s.start());
    CHECK(s.state() == session_state::recording);
    CHECK(fake->enabled.size() == 5); // NVTX comes through ktune's own NVTX hooks, not MARKER
    CHECK(fake->enabled.front() == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);

    fake->add(test::make_kernel(k_axpy, 3000, 3500, 11));
    fake->add(test::make_kernel(k_gemm, 1000, 2000, 10));
    auto graph_kernel = test::make_kernel(k_axpy, 4000, 4100, 12);
    graph_kernel.graphId = 5;
    graph_kernel.graphNodeId = 77;
    graph_kernel.clusterX = 2, graph_kernel.clusterY = 1, graph_kernel.clusterZ = 1;
    fake->add(graph_kernel);
    fake->add(test::make_kernel(k_axpy, 0, 0, 13)); // timestamps not collected
    CUpti_ActivityMemcpy6 mc{};
    mc.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    mc.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    mc.bytes = 4096, mc.start = 500, mc.end = 900, mc.correlationId = 9;
    fake->add(mc);
    CUpti_ActivityMemset4 ms{};
    ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    ms.bytes = 64, ms.start = 950, ms.end = 960, ms.value = 0;
    fake->add(ms);
    CUpti_ActivitySynchronization2 sy{};
    sy.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    sy.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    sy.start = 4200, sy.end = 4300;
    fake->add(sy);
    CUpti_ActivityMarker2 m1{};
    m1.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m1.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
    m1.id = 1, m1.timestamp = 800, m1.name = "step", m1.domain = nullptr;
    fake->add(m1);
    CUpti_ActivityMarker2 m2{};
    m2.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m2.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
    m2.id = 1, m2.timestamp = 4400;
    fake->add(m2);
    CUpti_Activity unknown{};
    unknown.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    fake->add(unknown);
    fake->deliver();
    s.stop();
    REQUIRE(s.save());
    CHECK(s.state() == session_state::saved);

    trace_reader r(path);
    collected c;
    const auto st = r.read(c);
    REQUIRE(st.complete);
    CHECK(st.damage.empty());
    CHECK(st.counters.kernels == 4);
    CHECK(st.counters.zero_timestamps == 1);
    CHECK(st.counters.dropped_by_cupti == 2);
    CHECK(st.counters.unknown_records == 1);
    CHECK(st.counters.nvtx_ranges == 1);
    REQUIRE(c.kernels.size() == 4);
    // The writer sorts each block by start; the untimed record comes first.
    CHECK_FALSE(c.kernels[0].timed());
    CHECK(c.kernels[0].duration_ns() == 0);
    CHECK(c.kernels[1].start_ns == 1000);
    CHECK(c.kernels[1].correlation == 10);
    CHECK(r.string(c.kernels[1].name_id).mangled == k_gemm);
    CHECK(r.string(c.kernels[1].name_id).demangled ==
          "void gemm<128>(float const*, float const*, float*)");
    CHECK(r.string(c.kernels[2].name_id).demangled == "axpy(float, float const*, float*, int)");
    CHECK(c.kernels[2].grid == dim3_u{128, 1, 1});
    CHECK(c.kernels[2].block == dim3_u{256, 1, 1});
    CHECK(c.kernels[2].registers == 32);
    CHECK(c.kernels[2].static_smem == 1024);
    CHECK(c.kernels[2].stream == 7);
    CHECK(c.kernels[3].graph_id == 5);
    CHECK(c.kernels[3].graph_node_id == 77);
    CHECK(c.kernels[3].cluster == dim3_u{2, 1, 1});
    CHECK(c.kernels[2].name_id == c.kernels[3].name_id); // interned once
    REQUIRE(c.memcpys.size() == 1);
    CHECK(c.memcpys[0].bytes == 4096);
    CHECK(c.memcpys[0].copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
    CHECK(c.memcpys[0].duration_ns() == 400);
    REQUIRE(c.memsets.size() == 1);
    CHECK(c.memsets[0].bytes == 64);
    REQUIRE(c.syncs.size() == 1);
    CHECK(c.syncs[0].type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE);
    REQUIRE(c.nvtx.size() == 1);
    CHECK(r.string(c.nvtx[0].name_id).mangled == "step");
    CHECK(c.nvtx[0].duration_ns() == 3600);
    CHECK(r.environment().command_line == std::vector<std::string>{"./app", "--x"});
    CHECK(r.environment().cupti_version == CUPTI_API_VERSION);
    CHECK(r.environment().start_trace_ns == 1000);
    std::filesystem::remove(path);
}

TEST_CASE("graph-level tracing: one record per graph launch, named, flagged, in the environment") {
    const auto path = temp_path("graph.ktrace");
    auto fake_owner = std::make_unique<test::fake_cupti>();
    auto* fake = fake_owner.get();
    session s(opts(path), std::move(fake_owner));
    REQUIRE(s.start());
    CHECK(fake->kind_on(CUPTI_ACTIVITY_KIND_GRAPH_TRACE));
    fake->add(test::make_kernel(k_axpy, 100, 200, 1)); // a kernel launched outside graphs
    for (std::uint32_t i = 0; i < 3; ++i) {
        CUpti_ActivityGraphTrace2 g{};
        g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
        g.correlationId = 10 + i;
        g.start = 1000 + 1000 * i, g.end = 1900 + 1000 * i;
        g.graphId = i == 2 ? 9 : 4;
        g.streamId = 7;
        fake->add(g);
    }
    fake->deliver();
    s.stop();
    CHECK_FALSE(fake->kind_on(CUPTI_ACTIVITY_KIND_GRAPH_TRACE));
    REQUIRE(s.save());

    trace_reader r(path);
    collected c;
    REQUIRE(r.read(c).complete);
    CHECK(r.environment().graph_trace == "graph");
    REQUIRE(c.kernels.size() == 4);
    CHECK_FALSE(c.kernels[0].flags & flag_graph_launch);
    for (std::size_t i = 1; i < 4; ++i) {
        CHECK(c.kernels[i].flags & flag_graph_launch);
        CHECK(c.kernels[i].duration_ns() == 900);
        CHECK(c.kernels[i].stream == 7);
        CHECK(c.kernels[i].correlation == 9 + i);
        CHECK(c.kernels[i].grid == dim3_u{0, 0, 0});
    }
    CHECK(r.string(c.kernels[1].name_id).demangled == "CUDA graph 4");
    CHECK(c.kernels[1].name_id == c.kernels[2].name_id); // interned once per graph
    CHECK(r.string(c.kernels[3].name_id).demangled == "CUDA graph 9");
    std::filesystem::remove(path);
}

TEST_CASE("graph tracing by node on request, and where CUPTI cannot trace graphs whole") {
    for (const bool unsupported : {false, true}) {
        const auto path = temp_path("graph_node.ktrace");
        auto fake_owner = std::make_unique<test::fake_cupti>();
        auto* fake = fake_owner.get();
        if (unsupported) fake->unsupported = {CUPTI_ACTIVITY_KIND_GRAPH_TRACE};
        auto o = opts(path);
        o.graph_level = unsupported;
        session s(o, std::move(fake_owner));
        REQUIRE(s.start());
        CHECK_FALSE(fake->kind_on(CUPTI_ACTIVITY_KIND_GRAPH_TRACE));
        CHECK(fake->kind_on(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
        s.stop();
        REQUIRE(s.save());
        trace_reader r(path);
        collected c;
        REQUIRE(r.read(c).complete);
        CHECK(r.environment().graph_trace == "node");
        std::filesystem::remove(path);
    }
}

TEST_CASE("kernel timestamps from the hardware event system where CUPTI offers it, and said so") {
    for (const bool supported : {false, true}) {
        const auto path = temp_path("hw_trace.ktrace");
        auto fake_owner = std::make_unique<test::fake_cupti>();
        fake_owner->hw_trace_supported = supported;
        session s(opts(path), std::move(fake_owner));
        REQUIRE(s.start());
        s.stop();
        REQUIRE(s.save());
        trace_reader r(path);
        CHECK(r.environment().kernel_timestamps ==
              (supported ? "hardware_events" : "instrumented"));
        std::filesystem::remove(path);
    }
}

TEST_CASE("session refuses an unknown CUPTI version with a clear message") {
    auto fake = std::make_unique<test::fake_cupti>();
    fake->version = 990000;
    session s(opts(temp_path("unknown.ktrace")), std::move(fake));
    CHECK_FALSE(s.start());
    CHECK(s.state() == session_state::failed);
    CHECK(s.message().find("990000") != std::string::npos);
    CHECK(s.message().find("unprofiled") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(temp_path("unknown.ktrace")));
    s.stop();
    CHECK_FALSE(s.save()); // idempotent, no crash
}

TEST_CASE("session says which CUPTI client is already active") {
    auto fake = std::make_unique<test::fake_cupti>();
    fake->subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    fake->holder = "CUPTI for Nsight Systems";
    session s(opts(temp_path("busy.ktrace")), std::move(fake));
    CHECK_FALSE(s.start());
    CHECK(s.message().find("another CUPTI client is active (CUPTI for Nsight Systems)") !=
          std::string::npos);
}

TEST_CASE("session with a delay enables nothing until the delay passes, and stop ends it") {
    const auto path = temp_path("delay.ktrace");
    auto fake_owner = std::make_unique<test::fake_cupti>();
    auto* fake = fake_owner.get();
    session s(opts(path, 3600), std::move(fake_owner));
    REQUIRE(s.start());
    CHECK(fake->enabled.empty());
    s.stop(); // interrupts the wait at once
    REQUIRE(s.save());
    trace_reader r(path);
    collected c;
    CHECK(r.read(c).counters.kernels == 0);
    std::filesystem::remove(path);
}

namespace {
trace::detail::collector* g_collector = nullptr;
void CUPTIAPI test_requested(std::uint8_t** b, std::size_t* s, std::size_t* m) {
    g_collector->buffer_requested(b, s, m);
}
void CUPTIAPI test_completed(CUcontext c, std::uint32_t st, std::uint8_t* b, std::size_t s,
                             std::size_t v) {
    g_collector->buffer_completed(c, st, b, s, v);
}
} // namespace

TEST_CASE("collector drops and counts records when the writer queue is full, never blocks") {
    const auto path = temp_path("drop.ktrace");
    test::fake_cupti fake;
    trace::detail::collector_options o;
    o.buffer_bytes = 1 << 16;
    o.block_records = 2;
    o.max_queued_blocks = 0; // every hand-over finds the queue full
    {
        trace::detail::collector col(fake, *trace::detail::find_decoder(CUPTI_API_VERSION),
                                     std::make_unique<trace_writer>(path, trace_environment{}), o);
        g_collector = &col;
        fake.register_callbacks(test_requested, test_completed);
        for (std::uint32_t i = 0; i < 3; ++i)
            fake.add(test::make_kernel(k_axpy, 10 * i + 10, 10 * i + 15, i));
        fake.deliver();
        CHECK(col.counters().dropped_by_ktune == 3);
        fake.add(test::make_kernel(k_gemm, 100, 200, 9));
        fake.deliver();
        std::string err;
        REQUIRE(col.finish(trace_environment{}, err));
        g_collector = nullptr;
    }
    trace_reader r(path);
    collected c;
    const auto st = r.read(c);
    REQUIRE(st.complete);
    CHECK(st.counters.kernels == 4);
    CHECK(st.counters.dropped_by_ktune == 4);
    CHECK(st.counters.dropped() == 4);
    CHECK(c.kernels.empty());
    std::filesystem::remove(path);
}
