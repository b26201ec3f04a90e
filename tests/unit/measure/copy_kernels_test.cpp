// The copy roof's kernels compile with NVRTC for Hopper (no GPU needed), both entry points
// present in the one cubin that copy_bandwidth.cpp loads.
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "measure/copy_kernels.hpp"

TEST_CASE("the copy-roof kernels compile, both in one cubin") {
    const auto c = ktune::compile::nvrtc_compile(
        {ktune::measure::detail::copy_kernel_source, "ktune_copy16", "sm_90", {}});
    REQUIRE(c.ok);
    CHECK(c.lowered_name == "ktune_copy16");
    CHECK(c.cubin.find("ktune_copy16_stream") != std::string::npos);
}
