// The worker's fill and compare kernels compile with NVRTC for Hopper (no GPU needed), the
// splitmix64 of ktune/core/rng.hpp spliced in as device code.
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "measure/utility_kernels.hpp"

#include <string>

TEST_CASE("the fill and compare kernels compile, with core's splitmix64 on the device") {
    const std::string src = ktune::measure::detail::utility_source;
    CHECK(src.find("ktune_splitmix64_at(") != std::string::npos);
    const auto c = ktune::compile::nvrtc_compile(
        {ktune::measure::detail::utility_source, "ktune_fill_fp32", "sm_90", {}});
    INFO(c.log);
    REQUIRE(c.ok);
    for (const char* k :
         {"ktune_fill_fp32", "ktune_fill_bf16", "ktune_compare_fp32", "ktune_compare_bf16"})
        CHECK(c.cubin.find(k) != std::string::npos);
}
