// NVRTC compilation, the cubin cache and the compile pool, on the CPU.
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/core/error.hpp"

#include <filesystem>
#include <unistd.h>

using namespace ktune::compile;
namespace fs = std::filesystem;

namespace {
const char* const good = R"(extern "C" __global__ void k(float* p) { p[threadIdx.x] *= 2.f; }
template <int N> __global__ void t(float* p) { p[threadIdx.x] += N; }
)";

fs::path temp_dir(const char* name) {
    auto d = fs::temp_directory_path() / (std::string(name) + std::to_string(getpid()));
    fs::remove_all(d);
    return d;
}
} // namespace

TEST_CASE("name expressions give the lowered name of a template instance") {
    const auto r = nvrtc_compile({good, "t<7>", "sm_90", {}});
    CHECK(r.ok);
    CHECK(r.lowered_name.find("_Z") == 0); // mangled
    CHECK(nvrtc_version() >= 12000);
}

TEST_CASE("a compile error carries NVRTC's log") {
    try {
        (void)nvrtc_compile(
            {"extern \"C\" __global__ void k() { undeclared_thing(); }", "k", "sm_90", {}});
        FAIL("expected a compile error");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::nvrtc);
        CHECK(std::string(e.what()).find("undeclared_thing") != std::string::npos);
    }
    const auto r = compile_cached({"__global__ void k() { nope(); }", "k", "sm_90", {}}, nullptr);
    CHECK_FALSE(r.ok);
    CHECK(r.log.find("nope") != std::string::npos);
}

TEST_CASE("sm_90a compiles arch-specific code") {
    const char* src = R"(extern "C" __global__ void k(float* p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
        p[0] = 1.f;
#else
        undeclared_without_sm90a();
#endif
    })";
    CHECK(nvrtc_compile({src, "k", "sm_90a", {}}).ok);
    CHECK_FALSE(compile_cached({src, "k", "sm_90", {}}, nullptr).ok);
}

TEST_CASE("the cubin cache keys on source, options and arch, and hits the second time") {
    const auto dir = temp_dir("ktune_cubin_test");
    cubin_cache cache(dir);
    const compile_request a{good, "k", "sm_90", {}};
    compile_request b = a;
    b.options.push_back("-DX=1");
    compile_request c = a;
    c.arch = "sm_80";
    CHECK(cubin_cache::key(a) != cubin_cache::key(b));
    CHECK(cubin_cache::key(a) != cubin_cache::key(c));
    CHECK(cubin_cache::key(a) == cubin_cache::key(compile_request(a)));
    CHECK_FALSE(cache.get(a));
    const auto first = compile_cached(a, &cache);
    REQUIRE(first.ok);
    CHECK_FALSE(first.cache_hit);
    CHECK(fs::exists(first.cubin_path));
    const auto second = compile_cached(a, &cache);
    CHECK(second.cache_hit);
    CHECK(second.cubin == first.cubin);
    CHECK(second.lowered_name == "k");
    fs::remove_all(dir);
}

TEST_CASE("the compile pool compiles many requests, failures come back as logs") {
    compile_pool pool(2);
    CHECK(pool.threads() == 2);
    std::vector<std::future<compile_result>> fs_;
    for (int i = 0; i < 6; ++i)
        fs_.push_back(
            pool.submit({std::string(good) + "// variant " + std::to_string(i), "k", "sm_90", {}}));
    fs_.push_back(pool.submit({"broken(", "k", "sm_90", {}}));
    for (int i = 0; i < 6; ++i)
        CHECK(fs_[static_cast<std::size_t>(i)].get().ok);
    const auto bad = fs_.back().get();
    CHECK_FALSE(bad.ok);
    CHECK_FALSE(bad.log.empty());
}
