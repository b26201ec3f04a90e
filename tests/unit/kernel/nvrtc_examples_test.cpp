// The example kernels compile through NVRTC (no GPU): the default config and a few configs
// drawn from each valid space, so the space and the source agree beyond the default.
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/kernel/check.hpp"

#include <filesystem>
#include <random>

using namespace ktune::kernel;
namespace fs = std::filesystem;

TEST_CASE("each example's default config and three random valid configs compile for sm_90") {
    const fs::path dir = fs::path(KTUNE_EXAMPLES_DATA_DIR).parent_path() / "kernels";
    const auto l = device_limits::for_arch("sm_90");
    std::mt19937 rng(20261125); // fixed: the same configs every run
    for (const char* name :
         {"matmul/matmul", "reduction/reduction", "stencil/stencil",
          "decode_gemm_tc/decode_gemm_tc", "decode_gemm_tc/decode_gemm_tc_fp8"}) {
        const kernel_spec s = load_spec(dir / (std::string(name) + ".json"));
        const problem p = s.example_problem();
        const config_space cs = enumerate(s, p, l);
        std::vector<ktune::config> picks{default_config(s)};
        for (int i = 0; i < 3; ++i)
            picks.push_back(
                cs.at(std::uniform_int_distribution<std::size_t>(0, cs.size() - 1)(rng)));
        for (const auto& c : picks) {
            INFO(name << " " << c.to_string());
            const auto r = ktune::compile::nvrtc_compile(compile_request_for(s, c, p, l));
            CHECK(r.ok);
            CHECK(!r.cubin.empty());
            CHECK(!r.lowered_name.empty());
        }
    }
}

TEST_CASE("check_spec compiles the default and the reference kernel, and names a missing one") {
    const fs::path dir = fs::path(KTUNE_EXAMPLES_DATA_DIR).parent_path() / "kernels";
    const check_report r = check_spec(load_spec(dir / "stencil" / "stencil.json"), {});
    CHECK(r.compiled);
    CHECK(r.reference_lowered == "stencil2d_naive");
    const fs::path bad = fs::path(KTUNE_TEST_DATA_DIR) / "kernel" / "bad";
    try {
        (void)check_spec(load_spec(bad / "kernel_not_in_source.json"), {});
        FAIL("accepted a kernel name that is not in the source");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find("kernel_not_in_source.json:6:") != std::string::npos);
        CHECK(std::string(e.what()).find("'scale_missing<BLOCK>' is not in k.cu") !=
              std::string::npos);
    }
}
