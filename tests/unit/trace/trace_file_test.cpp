// .ktrace writer/reader: round trips, size per record, damage and version handling.
#include "catch.hpp"
#include "trace_collector.hpp"

#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

using namespace ktune;
using namespace ktune::trace;

namespace {

std::string temp_path(const char* name) {
    return (std::filesystem::temp_directory_path() /
            (std::string("ktune_file_") + std::to_string(::getpid()) + "_" + name))
        .string();
}

using all = ktune::test::trace_collector;

trace_environment sample_env() {
    trace_environment e;
    e.ktune_version = "0.1.0";
    e.host = "node7";
    e.command_line = {"python3", "train.py", "--bf16"};
    e.pid = 4242;
    e.start_unix_ns = 1795000000000000000;
    e.start_trace_ns = 123456789;
    e.cupti_version = 130001;
    e.toolkit_version = 13000;
    e.driver_api_version = 13000;
    e.driver_version = "580.159.04";
    e.nvtx_link = "callback";
    e.gpus = {{0, "NVIDIA H200", "GPU-0123", 9, 0, 1980, 3201, 0}};
    return e;
}

// A realistic stream: a handful of kernels in a loop, back to back, small jitter.
std::vector<kernel_record> loop_kernels(std::size_t n, std::uint32_t names) {
    std::mt19937_64 rng(7);
    std::vector<kernel_record> ks(n);
    std::uint64_t t = 1'000'000'000;
    for (std::size_t i = 0; i < n; ++i) {
        auto& k = ks[i];
        k.name_id = static_cast<std::uint32_t>(i % names);
        k.start_ns = t + rng() % 500;
        k.end_ns = k.start_ns + 2000 + 1000 * k.name_id + rng() % 200;
        t = k.end_ns + 1500;
        k.device = 0, k.context = 1, k.stream = 7;
        k.correlation = static_cast<std::uint32_t>(100 + 3 * i);
        k.grid = {static_cast<std::uint32_t>(64 << k.name_id), 1, 1};
        k.block = {256, 1, 1};
        k.registers = 32 + 8 * k.name_id;
        k.static_smem = 1024 * k.name_id;
    }
    return ks;
}

} // namespace

TEST_CASE("trace environment JSON round trip") {
    const auto e = sample_env();
    CHECK(environment_from_json(to_json(e)) == e);
    CHECK(environment_from_json(to_json(trace_environment{})) == trace_environment{});
    CHECK_THROWS_AS(environment_from_json("{not json"), ktune::error);
}

TEST_CASE("every record kind round-trips through a .ktrace file") {
    const auto path = temp_path("roundtrip.ktrace");
    const auto ks = loop_kernels(1000, 5);
    memcpy_record mc;
    mc.start_ns = 5, mc.end_ns = 9, mc.bytes = 1ull << 40, mc.copy_kind = 2, mc.stream = 3;
    memset_record ms;
    ms.start_ns = 1, ms.end_ns = 2, ms.bytes = 77, ms.value = 0xff;
    sync_record sy;
    sy.start_ns = 10, sy.end_ns = 10000, sy.type = 3, sy.stream = 1;
    nvtx_record nv;
    nv.start_ns = 0, nv.end_ns = 0, nv.flags = flag_no_timestamp, nv.name_id = 5;
    kernel_record odd; // end before start, huge ids: zig-zag must survive
    odd.start_ns = ~0ull - 5, odd.end_ns = 3, odd.graph_node_id = ~0ull, odd.name_id = 1;
    trace_counters counters;
    counters.kernels = 1001;
    counters.dropped_by_cupti = 3;
    {
        trace_writer w(path, sample_env());
        for (std::uint32_t i = 0; i < 5; ++i)
            CHECK(w.intern("_Z6kernelILi" + std::to_string(i) + "EEvv") == i);
        CHECK(w.intern("step") == 5);
        CHECK(w.intern("_Z6kernelILi0EEvv") == 0);
        w.write(std::span(ks));
        w.write(std::span(&odd, 1));
        w.write(std::span(&mc, 1));
        w.write(std::span(&ms, 1));
        w.write(std::span(&sy, 1));
        w.write(std::span(&nv, 1));
        w.finish(sample_env(), counters);
    }
    trace_reader r(path);
    CHECK(r.environment() == sample_env());
    all v;
    const auto st = r.read(v);
    CHECK(st.complete);
    CHECK(st.counters == counters);
    REQUIRE(v.kernels.size() == 1001);
    CHECK(std::equal(ks.begin(), ks.end(), v.kernels.begin()));
    CHECK(v.kernels.back() == odd);
    CHECK(v.memcpys == std::vector{mc});
    CHECK(v.memsets == std::vector{ms});
    CHECK(v.syncs == std::vector{sy});
    CHECK(v.nvtx == std::vector{nv});
    CHECK(r.strings().size() == 6);
    CHECK(r.string(2).demangled == "void kernel<2>()");
    CHECK(r.string(5).demangled == "step");
    CHECK(r.string(99).mangled == "<unknown name>");
    std::filesystem::remove(path);
}

TEST_CASE("a kernel record takes well under 48 bytes on disk") {
    const auto path = temp_path("size.ktrace");
    const std::size_t n = 200000;
    {
        trace_writer w(path, sample_env());
        for (std::uint32_t i = 0; i < 8; ++i)
            w.intern("_Z1kILi" + std::to_string(i) + "EEvv");
        const auto ks = loop_kernels(n, 8);
        w.write(std::span(ks));
        w.finish(sample_env(), {});
    }
    const double per_record =
        static_cast<double>(std::filesystem::file_size(path)) / static_cast<double>(n);
    INFO("bytes per kernel record: " << per_record);
    CHECK(per_record <= 16.0);
    std::filesystem::remove(path);
}

TEST_CASE("a truncated trace reads up to the damage and says so") {
    const auto path = temp_path("full.ktrace");
    const auto cut = temp_path("cut.ktrace");
    {
        trace_writer w(path, sample_env());
        w.intern("_Z1kv");
        const auto ks = loop_kernels(3 * 65536, 1); // three blocks
        w.write(std::span(ks));
        w.finish(sample_env(), {});
    }
    const auto size = std::filesystem::file_size(path);
    std::filesystem::copy_file(path, cut, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::resize_file(cut, size * 3 / 4);
    trace_reader r(cut);
    all v;
    const auto st = r.read(v);
    CHECK_FALSE(st.complete);
    CHECK(st.damage.find("truncated") != std::string::npos);
    CHECK(v.kernels.size() == 2 * 65536); // the two whole blocks before the cut
    CHECK(st.counters.kernels == 2 * 65536);

    // Cut exactly between chunks: no footer, still says so.
    std::filesystem::resize_file(cut, st.bytes_read);
    trace_reader r2(cut);
    all v2;
    const auto st2 = r2.read(v2);
    CHECK_FALSE(st2.complete);
    CHECK(st2.damage.find("without a footer") != std::string::npos);
    CHECK(v2.kernels.size() == 2 * 65536);
    std::filesystem::remove(path);
    std::filesystem::remove(cut);
}

TEST_CASE("a corrupt block is reported, not misread") {
    const auto path = temp_path("corrupt.ktrace");
    {
        trace_writer w(path, sample_env());
        w.intern("_Z1kv");
        const auto ks = loop_kernels(1000, 1);
        w.write(std::span(ks));
        w.finish(sample_env(), {});
    }
    const auto size = std::filesystem::file_size(path);
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(size / 2));
        const char junk[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        f.write(junk, sizeof junk);
    }
    trace_reader r(path);
    all v;
    const auto st = r.read(v);
    CHECK_FALSE(st.complete);
    CHECK_FALSE(st.damage.empty());
    std::filesystem::remove(path);
}

TEST_CASE("unknown major version and non-trace files are clear errors") {
    const auto path = temp_path("v9.ktrace");
    {
        trace_writer w(path, sample_env());
        w.finish(sample_env(), {});
    }
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(8);
        const std::uint16_t major = 9;
        f.write(reinterpret_cast<const char*>(&major), 2);
    }
    try {
        trace_reader r(path);
        FAIL("expected an error");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == error_kind::input);
        CHECK(std::string(e.what()).find("format 9.") != std::string::npos);
    }
    {
        std::ofstream f(path, std::ios::trunc);
        f << "hello";
    }
    CHECK_THROWS_AS(trace_reader(path), ktune::error);
    CHECK_THROWS_AS(trace_reader(temp_path("missing.ktrace")), ktune::error);
    std::filesystem::remove(path);
}

TEST_CASE("demangle") {
    CHECK(demangle("_Z4axpyfPKfPfi") == "axpy(float, float const*, float*, int)");
    CHECK(demangle("not_mangled") == "not_mangled");
    CHECK(demangle("_Zbroken") == "_Zbroken");
    CHECK(demangle("") == "");
}
