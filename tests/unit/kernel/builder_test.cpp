// Specs written from C++ (kernel_builder) and back to JSON (to_json): the same checks, the same
// space, and a spec that survives its own round trip.
#include "catch.hpp"

#include "ktune/kernel/builder.hpp"
#include "ktune/kernel/space.hpp"

#include <filesystem>

using namespace ktune::kernel;
namespace fs = std::filesystem;

namespace {
const fs::path good = fs::path(KTUNE_TEST_DATA_DIR) / "kernel" / "good";
const fs::path examples = fs::path(KTUNE_EXAMPLES_DATA_DIR).parent_path() / "kernels";

kernel_builder saxpy() {
    return kernel_builder("saxpy", "saxpy.cu", "saxpy<BLOCK>")
        .description("y = a * x + y")
        .dimension("N", 1000000)
        .param("BLOCK", {32, 64, 128, 256, 512, 1024, 2048}, 256)
        .param("ITEMS", {1, 2, 4, 8}, 2)
        .restriction("BLOCK * ITEMS <= 4096")
        .restriction("ITEMS <= 4 || BLOCK >= 128")
        .grid({"ceil_div(N, BLOCK * ITEMS)"})
        .block({"BLOCK"})
        .define("ITEMS", "ITEMS")
        .buffer("x", element_type::fp32, "N", input_generator::uniform, false)
        .buffer("y", element_type::fp32, "N", input_generator::ones, true)
        .scalar("n", element_type::int32, "N")
        .scalar("a", element_type::int32, "3")
        .tolerance(1e-6, 0)
        .model("12 * N", "2 * N")
        .bucket("N", "multiple:4096");
}
} // namespace

TEST_CASE("a builder spec is the JSON spec: same space, same geometry") {
    const kernel_spec built = saxpy().build(good / "built.json");
    const kernel_spec file = load_spec(good / "saxpy.json");
    const auto l = device_limits::for_arch("sm_90");
    const auto a = enumerate(built, built.example_problem(), l);
    const auto b = enumerate(file, file.example_problem(), l);
    CHECK(a.counts == b.counts);
    CHECK(a.configs() == b.configs());
    CHECK(launch_of(built, default_config(built), built.example_problem(), l) ==
          launch_of(file, default_config(file), file.example_problem(), l));
    CHECK(built.sources == file.sources);
}

TEST_CASE("a builder spec gets the reader's checks") {
    auto b = saxpy().restriction("BLOCKS > 1");
    try {
        (void)b.build(good / "built.json");
        FAIL("accepted an unknown name");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find((good / "built.json").string() + ":") == 0);
        CHECK(std::string(e.what()).find("unknown name 'BLOCKS'") != std::string::npos);
    }
}

TEST_CASE("to_json writes a spec that reads back to itself") {
    for (const fs::path& p :
         {good / "saxpy.json", examples / "matmul" / "matmul.json",
          examples / "reduction" / "reduction.json", examples / "stencil" / "stencil.json",
          examples / "decode_gemm_tc" / "decode_gemm_tc_fp8.json"}) {
        INFO(p.string());
        const kernel_spec s = load_spec(p);
        const std::string once = to_json(s);
        const kernel_spec back = parse_spec(once, p);
        CHECK(to_json(back) == once);
        const auto l = device_limits::for_arch("sm_90");
        CHECK(enumerate(back, back.example_problem(), l).configs() ==
              enumerate(s, s.example_problem(), l).configs());
        CHECK(back.correctness.reference.default_config == s.correctness.reference.default_config);
    }
}
