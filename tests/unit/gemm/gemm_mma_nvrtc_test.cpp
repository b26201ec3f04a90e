// ktune's mma.sync GEMM (docs/perf/gemm.md#mma-fallback) compiles with NVRTC for the arches it
// serves in every shape of config the rules accept (no GPU needed), and the rules refuse what the
// kernel cannot run before anything is compiled.
#include "catch.hpp"

#include "gemm/mma.hpp"
#include "ktune/compile/compile.hpp"

#include <set>

using namespace ktune::gemm;
using namespace ktune::gemm::detail;

namespace {
const mma_device a100{80, 108, 166912};

ktune::compile::compile_result compile_for(const std::string& source, const std::string& arch) {
    ktune::compile::compile_request req;
    req.source = source;
    req.name_expression = mma_kernel_name;
    req.arch = arch;
    return ktune::compile::nvrtc_compile(req);
}
} // namespace

TEST_CASE("the mma GEMM compiles for sm_80, sm_89 and sm_90 in each type and epilogue") {
    struct form_case {
        mma_config c;
        dtype t;
        epilogue e;
        const char* arch;
    };
    for (const form_case& f :
         {form_case{{128, 128, 32, 2, 2, 3}, dtype::bf16, epilogue::none, "sm_80"},
          form_case{{256, 128, 64, 4, 2, 3}, dtype::fp16, epilogue::gelu_bias, "sm_89"},
          form_case{{64, 32, 32, 1, 1, 2}, dtype::bf16, epilogue::relu_bias, "sm_90"},
          form_case{{128, 256, 32, 2, 4, 4}, dtype::bf16, epilogue::bias, "sm_86"}}) {
        const problem p{1000, 777, 520, f.t, layout::tn, f.e};
        INFO(mma_name(f.c) << " " << describe(p) << " " << f.arch);
        REQUIRE(mma_rejects(f.c, p, a100).empty());
        const std::string source = mma_source(f.c, kernel_form_of(p));
        CHECK(source.find(f.t == dtype::fp16 ? "#define IN_F16 1\n" : "#define IN_F16 0\n") !=
              std::string::npos);
        const auto r = compile_for(source, f.arch);
        INFO(r.log);
        CHECK(r.ok);
        CHECK(r.lowered_name == mma_kernel_name);
    }
}

TEST_CASE("the mma rules refuse configs and problems the kernel cannot run") {
    const problem p = parse_problem("4096x4096x4096", "bf16");
    CHECK(mma_rejects({128, 128, 32, 2, 2, 3}, p, a100).empty());
    CHECK(mma_rejects({96, 128, 32, 2, 2, 3}, p, a100).find("bm") != std::string::npos);
    CHECK(mma_rejects({128, 128, 48, 2, 2, 3}, p, a100).find("bk") != std::string::npos);
    CHECK(mma_rejects({64, 128, 32, 8, 2, 3}, p, a100).find("warps") != std::string::npos);
    CHECK(mma_rejects({64, 32, 32, 4, 4, 3}, p, a100).empty()); // 16 x 8 a warp: the smallest
    CHECK(mma_rejects({256, 256, 32, 2, 2, 3}, p, a100).find("accumulators") != std::string::npos);
    // 5 stages of 256 + 256 rows of 72 elements: 368,640 bytes.
    CHECK(mma_shared_bytes({256, 256, 64, 4, 4, 5}) == 5 * 512 * 72 * 2);
    CHECK(mma_rejects({256, 256, 64, 4, 4, 5}, p, a100).find("shared memory") != std::string::npos);
    CHECK(mma_rejects({128, 128, 32, 2, 2, 3}, p, {75, 40, 65536}).find("sm_80") !=
          std::string::npos);
    CHECK(
        mma_rejects({128, 128, 32, 2, 2, 3}, parse_problem("64x64x64", "fp8"), a100).find("fp8") !=
        std::string::npos);
    CHECK(mma_rejects({128, 128, 32, 2, 2, 3}, parse_problem("64x64x64", "bf16", "nn"), a100)
              .find("tn only") != std::string::npos);
    CHECK(mma_rejects({128, 128, 32, 2, 2, 3}, parse_problem("64x64x4093", "bf16"), a100)
              .find("multiple of 8") != std::string::npos);
    CHECK(mma_rejects({128, 128, 32, 2, 2, 3}, parse_problem("64x64x64", "fp16", "tn", "gelu_bias"),
                      a100)
              .empty());
}

TEST_CASE("the mma space: every knob, the rules, the prior's order") {
    CHECK(mma_grid().size() == 864);
    const problem p = parse_problem("4096x4096x4096", "bf16");
    const auto ranked = mma_ranked(p, a100);
    CHECK(ranked.size() > 100);
    CHECK(ranked.size() < mma_grid().size());
    std::set<std::string> names;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
        CHECK(mma_rejects(ranked[i], p, a100).empty());
        names.insert(mma_name(ranked[i]));
        if (i > 0) CHECK(mma_cost(ranked[i - 1], p, a100) <= mma_cost(ranked[i], p, a100));
    }
    CHECK(names.size() == ranked.size());
    // A large GEMM's best guess is a large tile over several warps with a ring of 3+.
    CHECK(ranked.front().bm * ranked.front().bn >= 128 * 128);
    CHECK(ranked.front().warps_m * ranked.front().warps_n >= 4);
    CHECK(ranked.front().stages >= 3);
}
