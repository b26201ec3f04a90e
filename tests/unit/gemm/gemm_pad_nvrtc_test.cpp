// The padded-K form's copy kernel compiles with NVRTC for every architecture the GEMM runs on
// (no GPU needed): a kernel that fails to compile would send every padded GEMM to the slow
// cudaMemcpy2DAsync fallback without a word (docs/perf/gemm.md#padded-k).
#include "catch.hpp"

#include "gemm/pad.hpp"
#include "ktune/compile/compile.hpp"

TEST_CASE("the padded-K copy kernel compiles for sm_80, sm_89 and sm_90") {
    for (const char* arch : {"sm_80", "sm_89", "sm_90"}) {
        ktune::compile::compile_request req;
        req.source = std::string(ktune::gemm::detail::pad_kernel_source());
        req.name_expression = "ktune_pad_k";
        req.arch = arch;
        const auto r = ktune::compile::nvrtc_compile(req);
        INFO(arch << ": " << r.log);
        CHECK(r.ok);
        CHECK(r.lowered_name == "ktune_pad_k");
        CHECK(!r.cubin.empty());
    }
}
