// ktune's Hopper GEMM template (docs/perf/gemm.md#hopper-template) compiles with NVRTC for
// sm_90a in every shape of config the rules accept (no GPU needed), and the rules refuse what
// the kernel cannot run before anything is compiled.
#include "catch.hpp"

#include "gemm/sm90.hpp"
#include "ktune/compile/compile.hpp"

using namespace ktune::gemm;
using namespace ktune::gemm::detail;

namespace {
constexpr std::size_t h100_shared = 232448; // cudaDevAttrMaxSharedMemoryPerBlockOptin, sm_90

// The template's source through NVRTC for sm_90a, as sm90_kernel compiles it.
ktune::compile::compile_result compile_sm90a(const std::string& source) {
    ktune::compile::compile_request req;
    req.source = source;
    req.name_expression = sm90_kernel_name;
    req.arch = "sm_90a";
    return ktune::compile::nvrtc_compile(req);
}
} // namespace

TEST_CASE("the sm90 GEMM compiles for sm_90a: one and two consumers, narrow and wide tiles, "
          "clusters of one and two") {
    const problem p = parse_problem("4096x4096x4096", "bf16");
    for (const sm90_config c :
         {sm90_config{256, 4, 2, 8, 1}, sm90_config{128, 6, 2, 16, 1}, sm90_config{128, 4, 1, 1, 1},
          sm90_config{64, 8, 1, 8, 1}, sm90_config{256, 4, 2, 8, 2}, sm90_config{192, 4, 2, 8, 2},
          sm90_config{240, 4, 2, 8, 1, 4}, sm90_config{128, 4, 1, 8, 2, 1},
          sm90_config{256, 3, 2, 8, 1, 0, 1}, sm90_config{128, 4, 1, 8, 2, 0, 1},
          sm90_config{16, 16, 1, 8, 2, 0, 0, 1, 1}, sm90_config{128, 4, 2, 8, 2, 0, 1, 1, 1}}) {
        INFO(sm90_name(c));
        REQUIRE(sm90_rejects(c, p, h100_shared).empty());
        const auto r = compile_sm90a(sm90_source(c));
        INFO(r.log);
        CHECK(r.ok);
        CHECK(r.lowered_name == sm90_kernel_name);
        CHECK(!r.cubin.empty());
    }
}

TEST_CASE("the sm90 GEMM compiles for sm_90a with split-K and decode-narrow tiles") {
    const problem decode = parse_problem("16x4096x4096", "bf16");
    for (const sm90_config c :
         {sm90_config{8, 8, 1, 8, 1, 0, 0, 4}, sm90_config{16, 6, 2, 8, 1, 0, 0, 8},
          sm90_config{48, 4, 1, 1, 1, 0, 0, 16}, sm90_config{8, 4, 1, 8, 1}}) {
        INFO(sm90_name(c));
        REQUIRE(sm90_rejects(c, decode, h100_shared).empty());
        const auto r = compile_sm90a(sm90_source(c));
        INFO(r.log);
        CHECK(r.ok);
    }
    // A planted fault (the correctness gate's test) compiles too, into its own source.
    for (const sm90_fault f : {sm90_fault::skip_slab, sm90_fault::drop_tile})
        for (const sm90_config c :
             {sm90_config{8, 8, 1, 8, 1, 0, 0, 4}, sm90_config{256, 3, 2, 8, 1, 0, 1},
              sm90_config{240, 4, 2, 8, 1, 4}}) {
            INFO(sm90_name(c) << " " << to_string(f));
            const std::string source = sm90_source(c, {}, f);
            CHECK(source != sm90_source(c));
            CHECK(source.find("#define KTUNE_FAULT " + std::to_string(int(f)) + "\n") !=
                  std::string::npos);
            const auto r = compile_sm90a(source);
            INFO(r.log);
            CHECK(r.ok);
        }
    // The slices are an argument: configs that differ only in them share one compile.
    CHECK(sm90_source({8, 8, 1, 8, 1, 0, 0, 4}) == sm90_source({8, 8, 1, 8, 1, 0, 0, 12}));
}

TEST_CASE("the sm90 GEMM compiles for sm_90a for every type and epilogue of a tn problem") {
    // docs/perf/gemm.md#hopper-types: fp16 (fp16 D), fp8 e4m3 (k32 wgmma, 128-element slabs,
    // bf16 D), and the bias / relu / gelu epilogues in each epilogue form (direct store, deferred
    // parts, TMA store, split-K).
    struct form_case {
        dtype t;
        epilogue e;
        sm90_config c;
    };
    const sm90_config tma_store{256, 3, 2, 8, 1, 0, 1}, deferred{128, 4, 2, 8, 2, 4},
        direct{256, 4, 2, 8, 1}, split{16, 8, 1, 8, 1, 0, 0, 4};
    for (const form_case& f : {form_case{dtype::fp16, epilogue::none, tma_store},
                               form_case{dtype::fp16, epilogue::gelu_bias, deferred},
                               form_case{dtype::fp8_e4m3, epilogue::none, direct},
                               form_case{dtype::fp8_e4m3, epilogue::bias, split},
                               form_case{dtype::fp8_e4m3, epilogue::relu_bias, tma_store},
                               form_case{dtype::bf16, epilogue::bias, tma_store},
                               form_case{dtype::bf16, epilogue::gelu_bias, split},
                               form_case{dtype::bf16, epilogue::relu_bias, deferred}}) {
        const problem p{512, 4096, 4096, f.t, layout::tn, f.e};
        INFO(sm90_name(f.c) << " " << describe(p));
        REQUIRE(sm90_rejects(f.c, p, h100_shared).empty());
        const std::string source = sm90_source(f.c, kernel_form_of(p));
        CHECK(source.find(f.t == dtype::fp8_e4m3 ? "k32.f32.e4m3.e4m3"
                          : f.t == dtype::fp16   ? "k16.f32.f16.f16"
                                                 : "k16.f32.bf16.bf16") != std::string::npos);
        CHECK(source.find("#define EPILOGUE " + std::to_string(int(f.e)) + "\n") !=
              std::string::npos);
        const auto r = compile_sm90a(source);
        INFO(r.log);
        CHECK(r.ok);
    }
    // fp8's slab is 128 elements of K, so the slices a split may take count those.
    const problem fp8{16, 4096, 256, dtype::fp8_e4m3, layout::tn, epilogue::none};
    CHECK(sm90_bk(dtype::fp8_e4m3) == 128);
    CHECK(sm90_bk(dtype::fp16) == 64);
    CHECK(sm90_rejects({16, 8, 1, 8, 1, 0, 0, 2}, fp8, h100_shared).empty());
    CHECK(sm90_rejects({16, 8, 1, 8, 1, 0, 0, 3}, fp8, h100_shared).find("slabs") !=
          std::string::npos);
}

TEST_CASE("the sm90 source carries the config and a wgmma of its N") {
    const std::string s = sm90_source({192, 3, 2, 4, 2, 4});
    CHECK(s.find("#define EPI_PARTS 4\n") != std::string::npos);
    CHECK(s.find("#define TMA_STORE 0\n") != std::string::npos);
    CHECK(s.find("#define CLUSTER 2\n") != std::string::npos);
    CHECK(s.find("#define CLUSTER_B 0\n") != std::string::npos);
    CHECK(sm90_source({192, 3, 2, 4, 2, 4, 0, 1, 1}).find("#define CLUSTER_B 1\n") !=
          std::string::npos);
    CHECK(s.find("#define BM 128\n") != std::string::npos);
    CHECK(s.find("#define BN 192\n") != std::string::npos);
    CHECK(s.find("#define STAGES 3\n") != std::string::npos);
    CHECK(s.find("GROUP") == std::string::npos); // an argument: one compile for every group
    CHECK(sm90_source({192, 3, 2, 16, 2, 4}) == s);
    CHECK(s.find("m64n192k16") != std::string::npos);
    CHECK(s.find("KTUNE_WGMMA_WRAPPER") == std::string::npos);
    CHECK(s.find("\"+f\"(d[95])") != std::string::npos);
    CHECK(s.find("\"+f\"(d[96])") == std::string::npos);
}

TEST_CASE("the sm90 rules refuse configs and problems the kernel cannot run") {
    const problem p = parse_problem("4096x4096x4096", "bf16");
    CHECK(sm90_rejects({256, 4, 2, 8, 1}, p, h100_shared).empty());
    // 5 stages of 128 + 256 rows of 128 bytes: 245,760 bytes of ring.
    CHECK(sm90_rejects({256, 5, 2, 8, 1}, p, h100_shared).find("shared memory") !=
          std::string::npos);
    CHECK(!sm90_rejects({260, 4, 2, 8, 1}, p, h100_shared).empty());
    CHECK(!sm90_rejects({100, 4, 2, 8, 1}, p, h100_shared).empty());
    CHECK(!sm90_rejects({128, 4, 3, 8, 1}, p, h100_shared).empty());
    CHECK(!sm90_rejects({128, 1, 2, 8, 1}, p, h100_shared).empty());
    CHECK(!sm90_rejects({128, 4, 2, 0, 1}, p, h100_shared).empty());
    CHECK(!sm90_rejects({128, 4, 2, 8, 3}, p, h100_shared).empty());
    CHECK(sm90_rejects({136, 4, 2, 8, 2}, p, h100_shared).find("swizzle") != std::string::npos);
    CHECK(sm90_rejects({144, 4, 2, 8, 2}, p, h100_shared).empty());
    CHECK(!sm90_rejects({128, 4, 2, 8, 1, 3}, p, h100_shared).empty());
    CHECK(!sm90_rejects({32, 4, 2, 8, 1, 8}, p, h100_shared).empty());
    CHECK(sm90_rejects({64, 4, 2, 8, 1, 8}, p, h100_shared).empty());
    CHECK(sm90_rejects({256, 4, 2, 8, 1, 4}, p, h100_shared).find("registers") !=
          std::string::npos);
    CHECK(sm90_rejects({240, 4, 2, 8, 1, 4}, p, h100_shared).empty());
    // The TMA store: 64-column boxes, 16-byte rows of D's transpose, not with epi_parts, and its
    // staging area counts: 3 stages of 128 + 256 rows, then 2 x 64 x 256 bf16 on a 1024 boundary.
    CHECK(sm90_rejects({256, 3, 2, 8, 1, 0, 1}, p, h100_shared).empty());
    CHECK(sm90_shared_bytes({256, 3, 2, 8, 1, 0, 1}) == 148480 + 65536 + 1024);
    CHECK(sm90_rejects({256, 4, 2, 8, 1, 0, 1}, p, h100_shared).find("shared memory") !=
          std::string::npos);
    CHECK(sm90_rejects({160, 3, 2, 8, 1, 0, 1}, p, h100_shared).find("64-column") !=
          std::string::npos);
    CHECK(!sm90_rejects({128, 3, 2, 8, 1, 4, 1}, p, h100_shared).empty());
    CHECK(!sm90_rejects({128, 3, 2, 8, 1, 0, 2}, p, h100_shared).empty());
    CHECK(sm90_rejects({128, 3, 2, 8, 1, 0, 1}, parse_problem("100x64x64", "bf16"), h100_shared)
              .find("16-byte rows") != std::string::npos);
    CHECK(sm90_rejects({128, 4, 2, 8, 1}, parse_problem("64x64x4093", "bf16"), h100_shared)
              .find("multiple of 8") != std::string::npos);
    // Every type and epilogue of a tn problem runs (docs/perf/gemm.md#hopper-types); fp8's
    // 16-byte rows need K % 16 (parse_problem already refuses fp8 with K % 16 != 0).
    CHECK(sm90_rejects({128, 4, 2, 8, 1}, parse_problem("64x64x64", "fp16"), h100_shared).empty());
    CHECK(
        sm90_rejects({128, 4, 2, 8, 1}, parse_problem("64x64x4088", "fp16"), h100_shared).empty());
    CHECK(sm90_rejects({128, 4, 2, 8, 1}, parse_problem("64x64x64", "fp8"), h100_shared).empty());
    CHECK(sm90_rejects({128, 4, 2, 8, 1}, problem{64, 64, 4088, dtype::fp8_e4m3}, h100_shared)
              .find("multiple of 16") != std::string::npos);
    CHECK(sm90_rejects({128, 4, 2, 8, 1}, parse_problem("64x64x64", "bf16", "nn"), h100_shared)
              .find("tn only") != std::string::npos);
    CHECK(sm90_rejects({128, 4, 2, 8, 1}, parse_problem("64x64x64", "bf16", "tn", "gelu_bias"),
                       h100_shared)
              .empty());
    CHECK(sm90_shared_bytes({256, 4, 2, 8, 1}) == 4 * (128 + 256) * 128 + 64 + 1024);
    CHECK(sm90_bm({256, 4, 1, 8, 1}) == 64);
}

TEST_CASE("the sm90 GEMM compiles for sm_90a swapped (A the M side), with each epilogue, and "
          "its rules keep it to decode GEMMs") {
    const problem decode = parse_problem("64x11008x4096", "bf16");
    const problem wider = parse_problem("100x11008x4096", "bf16"); // two consumers' rows
    for (const sm90_config c :
         {sm90_config{96, 10, 1, 8, 1, 0, 0, 1, 0, 1}, sm90_config{8, 20, 1, 8, 1, 0, 0, 1, 0, 1},
          sm90_config{128, 6, 2, 8, 1, 0, 0, 1, 0, 1}}) {
        INFO(sm90_name(c));
        REQUIRE(sm90_rejects(c, c.consumers == 2 ? wider : decode, h100_shared).empty());
        const std::string source = sm90_source(c);
        CHECK(source.find("#define SWAP_AB 1\n") != std::string::npos);
        for (const epilogue e : {epilogue::none, epilogue::bias, epilogue::gelu_bias}) {
            const auto r = compile_sm90a(sm90_source(c, {dtype::bf16, e}));
            INFO(r.log);
            CHECK(r.ok);
        }
    }
    CHECK(sm90_name({96, 10, 1, 8, 1, 0, 0, 1, 0, 1}) == "bn96 s10 c1 g8 x1 e0 t0 ab");
    const auto rejects = [&](sm90_config c, const problem& p, const char* why) {
        const std::string got = sm90_rejects(c, p, h100_shared);
        INFO(sm90_name(c) << ": " << got);
        CHECK(got.find(why) != std::string::npos);
    };
    rejects({96, 10, 1, 8, 1, 0, 0, 1, 0, 1}, parse_problem("65x11008x4096", "bf16"),
            "all tokens in one tile");
    rejects({96, 10, 1, 8, 2, 0, 0, 1, 0, 1}, decode, "one block a tile");
    rejects({96, 10, 1, 8, 1, 0, 0, 2, 0, 1}, decode, "one block a tile");
    rejects({128, 8, 1, 8, 1, 0, 1, 1, 0, 1}, decode, "one block a tile");
    rejects({96, 10, 1, 8, 1, 2, 0, 1, 0, 1}, decode, "one block a tile");
    rejects({96, 10, 1, 8, 1, 0, 0, 1, 0, 2}, decode, "swap_ab 2");
    rejects({128, 6, 2, 8, 1, 0, 0, 1, 0, 1}, decode, "would hold no token");
}
