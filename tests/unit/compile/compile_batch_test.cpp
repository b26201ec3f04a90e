// Several candidates in one NVRTC program (compile_batch), on the CPU: the same macro and
// kernel names in every candidate, one cubin, per-candidate cache entries, per-candidate logs.
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/tune/tuner.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace ktune::compile;
namespace fs = std::filesystem;

namespace {
// What generated candidates look like: constants as macros, a C-linkage kernel of fixed name.
compile_request candidate(int block) {
    const std::string src = "#define BLOCK " + std::to_string(block) + R"(
typedef float T;
constexpr int TWICE = BLOCK * 2;
extern "C" __global__ void __launch_bounds__(BLOCK) ktune_op_kernel(T* p) {
    p[threadIdx.x] *= (T)TWICE;
}
)";
    return {src, "ktune_op_kernel", "sm_90", {}};
}
fs::path temp_dir(const char* name) {
    auto d = fs::temp_directory_path() / (std::string(name) + std::to_string(getpid()));
    fs::remove_all(d);
    return d;
}
} // namespace

TEST_CASE("one program compiles candidates that define the same names") {
    const std::vector<compile_request> rs{candidate(64), candidate(128), candidate(256)};
    const auto out = compile_batch(rs, nullptr);
    REQUIRE(out.size() == 3);
    for (const auto& r : out) {
        INFO(r.log);
        CHECK(r.ok);
        CHECK(r.lowered_name.find("ktune_op_kernel") != std::string::npos);
        CHECK(r.lowered_name.find("_Z") == 0); // a namespace member now
        CHECK(r.cubin == out[0].cubin);        // one cubin holds the batch
        CHECK(r.compile_ms > 0);
    }
    CHECK(out[0].lowered_name != out[1].lowered_name);
    CHECK(out[1].lowered_name != out[2].lowered_name);
    // A candidate's kernel name does not depend on its batch: a cache shared by processes that
    // batch differently never pairs a name with a cubin lacking that kernel.
    const auto other = compile_batch({candidate(256), candidate(1024)}, nullptr);
    CHECK(other[0].lowered_name == out[2].lowered_name);
}

TEST_CASE("batch results are cached per candidate; a later single lookup hits") {
    const auto dir = temp_dir("ktune_batch_cache");
    cubin_cache cache(dir);
    const std::vector<compile_request> rs{candidate(32), candidate(96)};
    const auto out = compile_batch(rs, &cache);
    REQUIRE(out[0].ok);
    REQUIRE(out[1].ok);
    const auto hit = compile_cached(rs[1], &cache);
    CHECK(hit.cache_hit);
    CHECK(hit.lowered_name == out[1].lowered_name);
    CHECK(hit.cubin == out[1].cubin);
    CHECK(fs::exists(out[0].cubin_path));
    const auto again = compile_batch(rs, &cache);
    CHECK(again[0].cache_hit);
    CHECK(again[1].cache_hit);
    fs::remove_all(dir);
}

TEST_CASE("a broken candidate fails alone with its own log; the others compile") {
    auto bad = candidate(64);
    bad.source += "extern \"C\" __global__ void other() { undefined_here(); }\n";
    const std::vector<compile_request> rs{candidate(64), bad, candidate(512)};
    const auto out = compile_batch(rs, nullptr);
    CHECK(out[0].ok);
    CHECK_FALSE(out[1].ok);
    CHECK(out[1].log.find("undefined_here") != std::string::npos);
    CHECK(out[2].ok);
    CHECK(out[0].lowered_name == "ktune_op_kernel"); // compiled alone after the fallback
}

TEST_CASE("a source with an #include is compiled on its own") {
    const auto dir = temp_dir("ktune_batch_include");
    fs::create_directories(dir);
    std::ofstream(dir / "kt_scale.h") << "#define KT_SCALE 3\n";
    auto inc = candidate(64), plain = candidate(128);
    inc.source = "#include \"kt_scale.h\"\n" + inc.source;
    inc.options = plain.options = {"-I" + dir.string()};
    const std::vector<compile_request> rs{inc, plain};
    const auto out = compile_batch(rs, nullptr);
    INFO(out[0].log);
    CHECK(out[0].ok);
    CHECK(out[0].lowered_name == "ktune_op_kernel"); // not wrapped in a namespace
    CHECK(out[1].ok);
    fs::remove_all(dir);
}

TEST_CASE("the pool takes a batch and answers each request") {
    compile_pool pool(2);
    auto fs_ = pool.submit_batch({candidate(64), candidate(128)});
    REQUIRE(fs_.size() == 2);
    const auto a = fs_[0].get(), b = fs_[1].get();
    CHECK(a.ok);
    CHECK(b.ok);
    CHECK(a.lowered_name != b.lowered_name);
}

TEST_CASE("PyTorch timing without a usable interpreter says what to do") {
    ktune::tune::tune_request rq;
    rq.op = "softmax";
    rq.prob = {{64, 64}, ktune::ops::dtype::f32};
    ::setenv("KTUNE_PYTHON", "/nonexistent/python3", 1);
    const auto t = ktune::tune::time_torch_equivalent(rq);
    ::unsetenv("KTUNE_PYTHON");
    CHECK_FALSE(t.ok);
    CHECK(t.message.find("KTUNE_PYTHON") != std::string::npos);
}

TEST_CASE("every built-in op's candidates share programs (no silent fallback)") {
    for (const ktune::ops::op* o : ktune::ops::all_ops()) {
        const ktune::ops::problem p{{256, 1024}, ktune::ops::dtype::bf16};
        const auto cs = o->enumerate(p);
        REQUIRE(cs.size() >= 2);
        const std::vector<compile_request> rs{
            {o->source(cs.front(), p), std::string(ktune::ops::kernel_name), "sm_90", {}},
            {o->source(cs.back(), p), std::string(ktune::ops::kernel_name), "sm_90", {}}};
        const auto out = compile_batch(rs, nullptr);
        for (const auto& r : out) {
            INFO(o->name() << ": " << r.log);
            CHECK(r.ok);
            CHECK(r.lowered_name.find("ktune_b") != std::string::npos);
        }
    }
}

TEST_CASE("a single compile and a batch storing the same key never leave a cubin without its "
          "kernel") {
    // The tuner compiles the op's default config alone while the first batch (which may hold
    // the same config) compiles: both store one key, with different lowered names (plain vs
    // namespaced). Each result's cubin file must still hold its own kernel afterwards.
    const auto dir = temp_dir("ktune_batch_race");
    const cubin_cache cache(dir);
    const std::vector<compile_request> rs{candidate(64), candidate(128)};
    const auto batched = compile_batch(rs, &cache);
    REQUIRE(batched[0].ok);
    const auto single = nvrtc_compile(rs[0]);
    REQUIRE(single.ok);
    REQUIRE(single.lowered_name != batched[0].lowered_name);
    cache.put(rs[0], single); // the concurrent single compile lands second
    const auto slurp = [](const fs::path& p) {
        std::ifstream f(p, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(f), {});
    };
    CHECK(slurp(batched[0].cubin_path).find(batched[0].lowered_name) != std::string::npos);
    const auto hit = cache.get(rs[0]);
    REQUIRE(hit);
    CHECK(hit->lowered_name == single.lowered_name);
    CHECK(slurp(hit->cubin_path).find(hit->lowered_name) != std::string::npos);
    fs::remove_all(dir);
}
