// The long-row forms (docs/perf/kernels.md#long-row-forms): staged slices over 226 KiB with their
// tail in registers (one block per long row), transpose's micro form and 128-tiles, and the stage
// axis closed to the removed forms (smem_ring, smem_refill: measured slower). Constraints,
// geometry, defaults, and that their sources compile with NVRTC for sm_90 (the GPU test checks
// their results).
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/ops/op.hpp"
#include "op_test_support.hpp"

#include <string>

using namespace ktune;
using namespace ktune::ops;

namespace {

config staged(std::int64_t tpr, std::int64_t rpb, std::int64_t cluster, std::int64_t vec) {
    return test::row_config(tpr, rpb, cluster, vec, "smem_tma");
}

} // namespace

TEST_CASE("stage: regs or smem_tma (layernorm: smem_rows); the removed forms are refused") {
    const problem wide{{1024, 131072}, dtype::bf16};
    for (const char* name : {"softmax", "layernorm", "rowsum"}) {
        const op& o = find_op(name);
        for (const char* gone : {"smem_ring", "smem_refill", "smem"}) {
            config c = o.default_config(wide);
            c.set("stage", std::string(gone));
            std::string why;
            INFO(name << " " << gone);
            CHECK_FALSE(o.valid(c, wide, &why));
            CHECK(why.find("stage must be regs") != std::string::npos);
        }
        // smem_rows (rows at once sharing gamma/beta reads) is layernorm's alone.
        const bool rows_form = std::string(name) == "layernorm";
        for (const auto& e : o.enumerate({{4096, 32768}, dtype::bf16})) {
            const auto st = e.get<std::string>("stage");
            CHECK((st == "regs" || st == "smem_tma" || (rows_form && st == "smem_rows")));
            CHECK(e.get<std::int64_t>("rows_per_block") <= 16);
        }
    }
}

TEST_CASE("a staged slice over 226 KiB keeps its tail in registers (one block per long row)") {
    const op& sm = find_op("softmax");
    const op& ln = find_op("layernorm");
    const problem bf{{1024, 131072}, dtype::bf16};
    const problem f{{1024, 131072}, dtype::f32};
    config c = staged(1024, 1, 1, 8);
    std::string why;
    REQUIRE(sm.valid(c, bf, &why));
    launch_geometry g = sm.geometry(c, bf);
    CHECK(g.grid[0] == 1024u);             // a block per row, no cluster
    CHECK(g.shared_bytes == 192u * 1024u); // 64 bytes a thread in registers
    CHECK(sm.source(c, bf).find("#define REG_ROUNDS 4") != std::string::npos);
    CHECK(ln.valid(c, bf, &why));
    c.set("threads_per_row", std::int64_t{512}); // 128 bytes a thread: still in
    CHECK(sm.valid(c, bf, &why));
    CHECK(sm.source(c, bf).find("#define REG_ROUNDS 8") != std::string::npos);
    c.set("threads_per_row", std::int64_t{256}); // 256 bytes a thread: out
    CHECK_FALSE(sm.valid(c, bf, &why));
    CHECK(why.find("128 bytes") != std::string::npos);
    // fp32: 512 KiB rows need a cluster of 2 for 256 KiB slices.
    c.set("threads_per_row", std::int64_t{1024});
    c.set("vec", std::int64_t{4});
    CHECK_FALSE(ln.valid(c, f, &why));
    c.set("cluster", std::int64_t{2});
    REQUIRE(ln.valid(c, f, &why));
    g = ln.geometry(c, f);
    CHECK(g.shared_bytes == 192u * 1024u);
    CHECK(g.grid[0] == 2048u);
    // Short enough slices carry no register part; rowsum (no cluster) none at all.
    c.set("cluster", std::int64_t{4});
    CHECK(ln.geometry(c, f).shared_bytes == 128u * 1024u);
    CHECK(ln.source(c, f).find("#define REG_ROUNDS 0") != std::string::npos); // the fallback
    for (const auto& e : find_op("rowsum").enumerate(f))
        CHECK(e.get<std::string>("stage") == "regs");
    // Defaults measured in this form on the H200: softmax bf16 (512 threads) and layernorm fp32
    // (256, clusters of 4, register tails); softmax fp32 keeps its register cluster (95 %);
    // layernorm bf16 one row per block in 32 KiB slices (layernorm_rows_test.cpp).
    CHECK(sm.default_config(bf).get<std::int64_t>("cluster") == 1);
    CHECK(sm.default_config(bf).get<std::int64_t>("threads_per_row") == 512);
    CHECK(sm.default_config(bf).get<std::string>("stage") == "smem_tma");
    // Layernorm's defaults: docs/perf/kernels.md#layernorm-register-tails.
    CHECK(ln.default_config(bf).get<std::string>("stage") == "smem_tma");
    CHECK(ln.default_config(f).get<std::int64_t>("threads_per_row") == 256);
    CHECK(ln.default_config(f).get<std::int64_t>("cluster") == 4);
    CHECK(sm.default_config(f).get<std::string>("stage") == "regs");
    for (const auto& [o, p] : {std::pair{&sm, bf}, std::pair{&ln, f}}) {
        const config d = o->default_config(p);
        INFO(o->name() << " " << to_string(p.type) << " " << d.to_string());
        const auto r = test::compile_sm90(*o, d, p);
        INFO(r.log);
        CHECK(r.ok);
    }
}

TEST_CASE("transpose: 128-tiles (micro form) within 48 KiB of static shared memory") {
    const op& t = find_op("transpose");
    const problem bf{{8192, 8192}, dtype::bf16};
    const problem f{{8192, 8192}, dtype::f32};
    config c{{"tile", std::int64_t{128}}, {"block_rows", std::int64_t{16}},
             {"vec", std::int64_t{8}},    {"pad", std::int64_t{0}},
             {"pack", std::int64_t{0}},   {"form", std::string("micro")}};
    std::string why;
    REQUIRE(t.valid(c, bf, &why));
    const launch_geometry g = t.geometry(c, bf);
    CHECK(g.grid[0] == 64u);
    CHECK(g.block[0] == 16u);
    CHECK(g.block[1] == 16u);
    c.set("pad", std::int64_t{0});
    c.set("pack", std::int64_t{0});
    c.set("form", std::string("micro"));
    CHECK(t.valid(c, bf, &why)); // 128 x 128 x 2 bytes
    c.set("vec", std::int64_t{4});
    CHECK_FALSE(t.valid(c, f, &why)); // 128 x 128 x 4 bytes
    CHECK(why.find("48 KiB") != std::string::npos);
    c.set("vec", std::int64_t{8});
    // Element 128-tiles measured slower than 64-tiles: out of the space.
    c.set("form", std::string("tile"));
    c.set("pack", std::int64_t{1});
    c.set("pad", std::int64_t{1});
    CHECK_FALSE(t.valid(c, bf, &why));
    CHECK(why.find("micro") != std::string::npos);
    c.set("form", std::string("micro"));
    c.set("pack", std::int64_t{0});
    c.set("pad", std::int64_t{0});
    const auto r = test::compile_sm90(t, c, bf);
    INFO(r.log);
    CHECK(r.ok);
}

TEST_CASE("transpose micro form: 16-byte micro-tiles, no pad or pack, compiles for sm_90") {
    const op& t = find_op("transpose");
    const problem bf{{8192, 8192}, dtype::bf16};
    const problem f{{8192, 8192}, dtype::f32};
    config c{{"tile", std::int64_t{64}}, {"block_rows", std::int64_t{8}},
             {"vec", std::int64_t{8}},   {"pad", std::int64_t{0}},
             {"pack", std::int64_t{0}},  {"form", std::string("micro")}};
    std::string why;
    REQUIRE(t.valid(c, bf, &why));
    const launch_geometry g = t.geometry(c, bf);
    CHECK(g.block[0] == 8u); // 8 micro-tiles per edge
    CHECK(g.block[1] == 8u);
    CHECK(g.grid[0] == 128u);
    const std::string src = t.source(c, bf);
    CHECK(src.find("__byte_perm") != std::string::npos);
    const auto r = compile::nvrtc_compile({src, std::string(kernel_name), "sm_90", {}});
    INFO(r.log);
    CHECK(r.ok);
    c.set("pad", std::int64_t{1});
    CHECK_FALSE(t.valid(c, bf, &why));
    CHECK(why.find("no pad") != std::string::npos);
    c.set("pad", std::int64_t{0});
    c.set("vec", std::int64_t{4}); // 8 bytes of bf16
    CHECK_FALSE(t.valid(c, bf, &why));
    CHECK(why.find("16-byte") != std::string::npos);
    CHECK(t.valid(c, f, &why)); // 4 floats: 16 micro-tiles per edge
    c.set("tile", std::int64_t{16});
    CHECK_FALSE(t.valid(c, f, &why));
    CHECK(why.find("8 micro-tiles") != std::string::npos);
    std::size_t n = 0;
    for (const auto& e : t.enumerate(bf))
        n += e.get<std::string>("form") == "micro";
    CHECK(n >= 6);
}
