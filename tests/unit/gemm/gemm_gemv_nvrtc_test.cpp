// ktune's GEMV (docs/perf/gemm.md#gemv-decode) compiles with NVRTC for the arches it serves in
// both forms, every row count it takes, its three input types and every epilogue (no GPU needed).
#include "catch.hpp"

#include "gemm/gemv.hpp"
#include "ktune/compile/compile.hpp"

using namespace ktune::gemm;
using namespace ktune::gemm::detail;

TEST_CASE("the GEMV compiles for sm_80, sm_89 and sm_90 in each form, row count, type and "
          "epilogue") {
    struct form_case {
        gemv_config c;
        int rows;
        dtype t;
        epilogue e;
        const char* arch;
    };
    for (const form_case& f :
         {form_case{{2, 2, 8}, 1, dtype::bf16, epilogue::none, "sm_90"},
          form_case{{1, 4, 8}, 4, dtype::bf16, epilogue::bias, "sm_90"},
          form_case{{1, 1, 2}, 8, dtype::fp16, epilogue::gelu_bias, "sm_80"},
          form_case{{2, 8, 16}, 3, dtype::fp16, epilogue::relu_bias, "sm_89"},
          form_case{{2, 4, 4}, 2, dtype::bf16, epilogue::gelu_bias, "sm_86"},
          form_case{{2, 1, 8}, 1, dtype::fp8_e4m3, epilogue::none, "sm_90"},
          form_case{{1, 2, 16}, 5, dtype::fp8_e4m3, epilogue::bias, "sm_89"}}) {
        const problem p{f.rows, 4096, 4096, f.t, layout::tn, f.e};
        INFO(gemv_name(f.c) << " " << describe(p) << " " << f.arch);
        REQUIRE(gemv_rejects(f.c, p, gemv_device{90, 132}).empty());
        ktune::compile::compile_request req;
        req.source = gemv_source(f.c, f.rows, kernel_form_of(p));
        req.name_expression = gemv_kernel_name;
        req.arch = f.arch;
        const auto r = ktune::compile::nvrtc_compile(req);
        INFO(r.log);
        CHECK(r.ok);
        CHECK(r.lowered_name == gemv_kernel_name);
    }
}
