// The copy roof's kernels compile with NVRTC for Hopper (no GPU needed), every entry point
// present in the one cubin that copy_bandwidth.cpp loads.
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "measure/copy_kernels.hpp"

TEST_CASE("the copy-roof kernels compile, all in one cubin") {
    const auto c = ktune::compile::nvrtc_compile(
        {ktune::measure::detail::copy_kernel_source, "ktune_copy16", "sm_90", {}});
    REQUIRE(c.ok);
    CHECK(c.lowered_name == "ktune_copy16");
    for (const char* name : {"ktune_copy16_stream", "ktune_copy16_u4", "ktune_copy16_u4_stream",
                             "ktune_copy16_u8", "ktune_copy16_u8_stream"})
        CHECK(c.cubin.find(name) != std::string::npos);
}
