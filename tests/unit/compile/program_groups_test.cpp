// Requests that differ only in their name expression (a user kernel's template instantiations)
// share one NVRTC program: compile_batch compiles them as one copy of their source, and
// program_groups puts them together in the cut of a search batch.
#include "catch.hpp"

#include "ktune/compile/compile.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace ktune::compile;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir(const char* name) {
    auto d = fs::temp_directory_path() / (std::string(name) + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

/// A user kernel as the tuner asks for it: an #include, a define, a template name.
compile_request instantiation(const fs::path& dir, const std::string& name,
                              const std::string& define = "-DSCALE=2") {
    return {"#include \"scale.cuh\"\n"
            "template <int B> __global__ void k(float* p) {\n"
            "    static_assert(B > 0, \"B must be positive\");\n"
            "    p[blockIdx.x * B + threadIdx.x] *= scale();\n"
            "}\n",
            name,
            "sm_90",
            {define, "-I" + dir.string()}};
}

fs::path with_header(const char* name) {
    auto dir = temp_dir(name);
    std::ofstream(dir / "scale.cuh") << "__device__ inline float scale() { return SCALE; }\n";
    return dir;
}
} // namespace

TEST_CASE("instantiations of one kernel share a program, #include and all") {
    const auto dir = with_header("ktune_shared_program");
    const std::vector<compile_request> rs{instantiation(dir, "k<32>"), instantiation(dir, "k<64>")};
    const auto out = compile_batch(rs, nullptr);
    REQUIRE(out.size() == 2);
    for (const auto& r : out) {
        INFO(r.log);
        CHECK(r.ok);
    }
    CHECK(out[0].cubin == out[1].cubin); // one program
    CHECK(out[0].lowered_name != out[1].lowered_name);
    // Lowered names are those of a compile alone (no namespace): one cache entry serves both.
    CHECK(out[1].lowered_name == nvrtc_compile(rs[1]).lowered_name);
    fs::remove_all(dir);
}

TEST_CASE("a shared program's kernels are cached per request; a later single lookup hits") {
    const auto dir = with_header("ktune_shared_cache");
    cubin_cache cache(dir / "cubins");
    const std::vector<compile_request> rs{instantiation(dir, "k<32>"),
                                          instantiation(dir, "k<128>")};
    const auto out = compile_batch(rs, &cache);
    REQUIRE(out[1].ok);
    const auto hit = compile_cached(rs[1], &cache);
    CHECK(hit.cache_hit);
    CHECK(hit.lowered_name == out[1].lowered_name);
    CHECK(hit.cubin == out[1].cubin);
    fs::remove_all(dir);
}

TEST_CASE("a failing instantiation fails alone with its own log") {
    const auto dir = with_header("ktune_shared_fail");
    const std::vector<compile_request> rs{instantiation(dir, "k<32>"), instantiation(dir, "k<0>"),
                                          instantiation(dir, "k<256>")};
    const auto out = compile_batch(rs, nullptr);
    CHECK(out[0].ok);
    CHECK_FALSE(out[1].ok);
    CHECK(out[1].log.find("B must be positive") != std::string::npos);
    CHECK(out[2].ok);
    CHECK(out[0].cubin != out[2].cubin); // compiled alone after the shared program failed
    fs::remove_all(dir);
}

TEST_CASE("program_groups puts requests of one program together, the rest in order") {
    const fs::path d = "/nowhere";
    const std::vector<compile_request> rs{
        instantiation(d, "k<32>", "-DSCALE=1"), instantiation(d, "k<32>", "-DSCALE=2"),
        instantiation(d, "k<64>", "-DSCALE=1"), instantiation(d, "k<64>", "-DSCALE=3"),
        instantiation(d, "k<64>", "-DSCALE=2")};
    using groups = std::vector<std::vector<std::size_t>>;
    CHECK(program_groups(rs, 2) == groups{{0, 2}, {1, 4}, {3}});
    CHECK(program_groups(rs, 1) == groups{{0}, {1}, {2}, {3}, {4}});
    CHECK(program_groups(rs, 0) == groups{{0}, {1}, {2}, {3}, {4}});
}

TEST_CASE("program_groups: a group beyond per_program leaves its remainder to the rest") {
    const fs::path d = "/nowhere";
    const std::vector<compile_request> rs{
        instantiation(d, "k<32>"), instantiation(d, "k<64>"), instantiation(d, "k<128>"),
        instantiation(d, "k<32>", "-DSCALE=5"), instantiation(d, "k<32>", "-DSCALE=6")};
    using groups = std::vector<std::vector<std::size_t>>;
    // 2 and the two singles 3, 4 are cut in order, two per program, as built-in ops are.
    CHECK(program_groups(rs, 2) == groups{{0, 1}, {2, 3}, {4}});
    CHECK(program_groups(rs, 3) == groups{{0, 1, 2}, {3, 4}});
}

TEST_CASE("program_groups keeps built-in candidates (each its own source) in consecutive pairs") {
    std::vector<compile_request> rs;
    rs.reserve(5);
    for (int i = 0; i < 5; ++i)
        rs.push_back({"// " + std::to_string(i), "ktune_op_kernel", "sm_90", {}});
    using groups = std::vector<std::vector<std::size_t>>;
    CHECK(program_groups(rs, 2) == groups{{0, 1}, {2, 3}, {4}});
}
