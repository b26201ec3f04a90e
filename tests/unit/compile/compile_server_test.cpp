// The compile pool in processes mode, without a GPU (NVRTC runs on any machine): the server's
// wire format, the server itself over pipes, a server that never starts (the slot compiles
// in-process), one that dies or hangs mid-batch (that batch fails with the reason, the next one
// goes to a replacement), and real compile servers (ktune-worker, $KTUNE_TEST_COMPILE_SERVER).
#include "catch.hpp"

#include "compile/compile_wire.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <thread>
#include <unistd.h>

using namespace ktune::compile;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

fs::path fresh_dir(const char* tag) {
    const auto d = fs::temp_directory_path() / fmt::format("ktune-cs-{}-{}", tag, getpid());
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

compile_request kernel(int k) {
    // A distinct body per k, so every request has its own cache key.
    return {fmt::format("#define SCALE {}\nextern \"C\" __global__ void ktune_op_kernel(float* "
                        "x) {{ x[threadIdx.x] *= SCALE; }}\n",
                        k),
            "ktune_op_kernel",
            "sm_90",
            {}};
}

compile_request broken() {
    return {"extern \"C\" __global__ void ktune_op_kernel(float* x) { x[0] = undeclared; }",
            "ktune_op_kernel",
            "sm_90",
            {}};
}

std::vector<std::string> sh(const std::string& script) {
    return {"/bin/sh", "-c", script};
}

const std::string ready = "echo '{\"ready\":true}'";

} // namespace

TEST_CASE("the compile server's messages round-trip") {
    const std::vector<compile_request> rs{kernel(1), broken()};
    fs::path dir;
    CHECK(detail::decode_batch(detail::encode_batch(rs, "/tmp/c"), dir) == rs);
    CHECK(dir == "/tmp/c");
    compile_result a;
    a.ok = true;
    a.lowered_name = "ns::k";
    a.log = "warning: \"x\"\n";
    a.compile_ms = 12.5;
    a.cache_hit = true;
    a.cubin_path = "/tmp/c/abc.cubin";
    const auto back = detail::decode_results(detail::encode_results({a}));
    REQUIRE(back.size() == 1);
    CHECK(back[0].ok);
    CHECK(back[0].lowered_name == a.lowered_name);
    CHECK(back[0].log == a.log);
    CHECK(back[0].compile_ms == a.compile_ms);
    CHECK(back[0].cache_hit);
    CHECK(back[0].cubin_path == a.cubin_path);
    CHECK(detail::is_ready_line(detail::ready_line()));
    CHECK_FALSE(detail::is_ready_line("{\"results\":[]}"));
    CHECK_THROWS_AS(detail::decode_results("{\"results\":[{\"ok\":true}]}"), ktune::error);
}

TEST_CASE("compile_server_main compiles a batch into the cache and answers paths") {
    const auto dir = fresh_dir("server");
    int in[2], out[2];
    REQUIRE(::pipe(in) == 0);
    REQUIRE(::pipe(out) == 0);
    std::thread server([&] {
        compile_server_main(in[0], out[1]);
        ::close(out[1]);
    });
    const std::string batch =
        detail::encode_batch({kernel(2), kernel(3), broken()}, dir) + "\nnot json\n";
    REQUIRE(::write(in[1], batch.data(), batch.size()) == static_cast<ssize_t>(batch.size()));
    ::close(in[1]); // EOF after the two lines: the server returns
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;)
        got.append(buf, static_cast<std::size_t>(n));
    server.join();
    ::close(out[0]);
    ::close(in[0]);
    const auto l1 = got.find('\n'), l2 = got.find('\n', l1 + 1), l3 = got.find('\n', l2 + 1);
    REQUIRE(l3 != std::string::npos);
    CHECK(detail::is_ready_line(got.substr(0, l1)));
    const auto rs = detail::decode_results(got.substr(l1 + 1, l2 - l1 - 1));
    REQUIRE(rs.size() == 3);
    CHECK(rs[0].ok);
    CHECK(rs[1].ok);
    CHECK(fs::file_size(rs[0].cubin_path) > 0);
    CHECK(fs::file_size(rs[1].cubin_path) > 0);
    CHECK_FALSE(rs[2].ok);
    CHECK(rs[2].log.find("undeclared") != std::string::npos);
    // The same keys are now cache hits for an in-process lookup.
    const cubin_cache cache(dir);
    CHECK(cache.get(kernel(2)).has_value());
    // A malformed line fails, with the reason, and the server goes on.
    const auto bad = detail::decode_results(got.substr(l2 + 1, l3 - l2 - 1));
    REQUIRE(bad.size() == 1);
    CHECK_FALSE(bad[0].ok);
    CHECK(bad[0].log.find("compile server") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("a compile server that never starts: the slot compiles in-process") {
    const auto dir = fresh_dir("nostart");
    compile_pool_options o;
    o.workers = 1;
    o.server_command = sh("exit 3");
    compile_pool pool(o, cubin_cache(dir));
    const auto r = pool.submit(kernel(4)).get();
    CHECK(r.ok);
    CHECK_FALSE(r.cubin.empty());
    CHECK(pool.fallback_slots() == 1);
    CHECK(pool.server_failures() == 0);
    fs::remove_all(dir);
}

TEST_CASE("a compile server dying mid-batch: that batch fails, the next goes to a new server") {
    const auto dir = fresh_dir("dies");
    const auto flag = dir / "second";
    compile_pool_options o;
    o.workers = 1;
    // The first server dies on its batch (SIGKILL); the second answers every batch with a
    // failure naming itself, so where each batch went is visible.
    o.server_command = sh(fmt::format(
        "if [ -e {0} ]; then {1}; while read l; do echo "
        "'{{\"results\":[{{\"ok\":false,\"lowered\":\"\",\"log\":\"second\",\"ms\":0,\"hit\":"
        "false,\"path\":\"\"}},{{\"ok\":false,\"lowered\":\"\",\"log\":\"second\",\"ms\":0,"
        "\"hit\":false,\"path\":\"\"}}]}}'; done; else touch {0}; {1}; read l; kill -9 $$; fi",
        flag.string(), ready));
    compile_pool pool(o, cubin_cache(dir));
    auto first = pool.submit_batch({kernel(5), kernel(6)});
    for (auto& f : first) {
        const auto r = f.get();
        CHECK_FALSE(r.ok);
        INFO(r.log);
        CHECK(r.log.find("killed by signal 9") != std::string::npos);
    }
    auto second = pool.submit_batch({kernel(5), kernel(6)});
    for (auto& f : second)
        CHECK(f.get().log == "second");
    CHECK(pool.servers_started() == 2);
    CHECK(pool.server_failures() == 1);
    fs::remove_all(dir);
}

TEST_CASE("a compile server that hangs: the batch times out, the server is killed") {
    const auto dir = fresh_dir("hangs");
    compile_pool_options o;
    o.workers = 1;
    o.batch_timeout = 300ms;
    o.server_command = sh(ready + "; read l; sleep 30");
    compile_pool pool(o, cubin_cache(dir));
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = pool.submit(kernel(7)).get();
    CHECK(std::chrono::steady_clock::now() - t0 < 10s);
    CHECK_FALSE(r.ok);
    CHECK(r.log.find("no answer in time") != std::string::npos);
    CHECK(pool.server_failures() == 1);
    fs::remove_all(dir);
}

TEST_CASE("real compile servers give the same results as an in-process compile") {
    const char* exe = std::getenv("KTUNE_TEST_COMPILE_SERVER");
    REQUIRE(exe != nullptr); // set by tests/unit/compile.cmake: the ktune-worker executable
    const auto dir = fresh_dir("real");
    compile_pool_options o;
    o.workers = 2;
    o.server_command = {exe};
    std::vector<compile_result> rs;
    {
        compile_pool pool(o, cubin_cache(dir));
        auto fs1 = pool.submit_batch({kernel(8), kernel(9)});
        auto fs2 = pool.submit_batch({kernel(10), broken()});
        for (auto* v : {&fs1, &fs2})
            for (auto& f : *v)
                rs.push_back(f.get());
        // Servers start on a slot's first miss: one or both slots took the two batches.
        CHECK(pool.servers_started() >= 1);
        CHECK(pool.servers_started() <= 2);
        CHECK(pool.fallback_slots() == 0);
    }
    REQUIRE(rs.size() == 4);
    for (int i = 0; i < 3; ++i) {
        INFO(rs[static_cast<std::size_t>(i)].log);
        REQUIRE(rs[static_cast<std::size_t>(i)].ok);
        CHECK_FALSE(rs[static_cast<std::size_t>(i)].cubin.empty());
    }
    CHECK_FALSE(rs[3].ok); // the broken one keeps its own log, its batch-mate still compiled
    CHECK(rs[3].log.find("undeclared") != std::string::npos);
    // Served from the cache the servers wrote: same kernel name as they answered.
    const auto hit = compile_cached(kernel(8), nullptr);
    REQUIRE(hit.ok);
    const cubin_cache cache(dir);
    const auto cached = cache.get(kernel(8));
    REQUIRE(cached.has_value());
    CHECK(cached->lowered_name == rs[0].lowered_name);
    fs::remove_all(dir);
}

TEST_CASE("a pool whose requests are all in the cubin cache starts no compile server") {
    const auto dir = fresh_dir("lazy");
    {
        const cubin_cache cache(dir);
        REQUIRE(compile_cached(kernel(11), &cache).ok);
        REQUIRE(compile_cached(kernel(12), &cache).ok);
    }
    compile_pool_options o;
    o.workers = 2;
    // A server would fail the batch loudly: the answers must come from the cache.
    o.server_command = sh(ready + "; read l; kill -9 $$");
    compile_pool pool(o, cubin_cache(dir));
    auto fs1 = pool.submit_batch({kernel(11), kernel(12)});
    for (auto& f : fs1) {
        const auto r = f.get();
        INFO(r.log);
        CHECK(r.ok);
        CHECK(r.cache_hit);
        CHECK_FALSE(r.cubin_path.empty());
    }
    CHECK(pool.servers_started() == 0);
    // A miss in the same batch as a hit: the server is started and the batch goes to it.
    auto fs2 = pool.submit_batch({kernel(11), kernel(13)});
    for (auto& f : fs2)
        CHECK(f.get().log.find("killed by signal 9") != std::string::npos);
    CHECK(pool.servers_started() >= 1); // and the other slot starts its own after the miss
    fs::remove_all(dir);
}
