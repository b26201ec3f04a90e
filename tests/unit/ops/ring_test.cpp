// Session 4's forms: the row ops' ring (stage = smem_ring: rows in turn through three staged
// buffers, one cluster barrier per row) and transpose's 128-tiles. Constraints, geometry, and
// that their sources compile with NVRTC for sm_90 (the GPU test checks their results).
#include "catch.hpp"

#include "ktune/measure/compile.hpp"
#include "ktune/ops/op.hpp"

#include <string>

using namespace ktune;
using namespace ktune::ops;

namespace {

config ring(std::int64_t tpr, std::int64_t rpb, std::int64_t cluster, std::int64_t vec) {
    return {{"threads_per_row", tpr},
            {"rows_per_block", rpb},
            {"vec", vec},
            {"cache_row", true},
            {"unroll", std::int64_t{1}},
            {"cluster", cluster},
            {"stage", std::string("smem_ring")}};
}

} // namespace

TEST_CASE("ring stage: constraints, three buffers and the grid") {
    const op& sm = find_op("softmax");
    const problem wide{{1024, 131072}, dtype::bf16};
    std::string why;
    config c = ring(512, 64, 8, 8);
    REQUIRE(sm.valid(c, wide, &why));
    launch_geometry g = sm.geometry(c, wide);
    CHECK(g.grid[0] == 1024u / 64 * 8); // 16 clusters of 8: one wave
    CHECK(g.cluster[0] == 8u);
    CHECK(g.block[0] == 512u);
    CHECK(g.shared_bytes == 3u * 16384 * 2); // three slices of 16384 bf16
    const std::string src = sm.source(c, wide);
    CHECK(src.find("#define STAGE_smem_ring 1") != std::string::npos);
    CHECK(src.find("ring_publish") != std::string::npos);
    // A 64 KiB slice x 3 fits, a 128 KiB one does not.
    c.set("cluster", std::int64_t{4});
    c.set("rows_per_block", std::int64_t{32});
    CHECK(sm.valid(c, wide, &why));
    c.set("cluster", std::int64_t{2});
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("226 KiB") != std::string::npos);
    // Fewer than 128 blocks, few rows in turn, narrow groups: out.
    c.set("cluster", std::int64_t{4});
    c.set("rows_per_block", std::int64_t{64});
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("128 blocks") != std::string::npos);
    c.set("rows_per_block", std::int64_t{4});
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find(">= 8") != std::string::npos);
    // Rows per block beyond 16 belong to the ring only.
    config r = sm.default_config({{8192, 8192}, dtype::bf16});
    r.set("rows_per_block", std::int64_t{32});
    r.set("threads_per_row", std::int64_t{32});
    CHECK_FALSE(sm.valid(r, {{8192, 8192}, dtype::bf16}, &why));
    CHECK(why.find("smem_ring") != std::string::npos);
    // Every row op offers ring configs on the long-row benchmark shapes.
    for (const char* name : {"softmax", "layernorm", "rowsum"}) {
        for (const problem p :
             {problem{{4096, 32768}, dtype::bf16}, problem{{8192, 8192}, dtype::bf16}}) {
            std::size_t n = 0;
            for (const auto& e : find_op(name).enumerate(p))
                n += e.get<std::string>("stage") == "smem_ring";
            INFO(name << " " << to_string(p.shape));
            CHECK(n >= 4);
        }
    }
    std::size_t n = 0;
    for (const auto& e : find_op("layernorm").enumerate(wide))
        n += e.get<std::string>("stage") == "smem_ring";
    CHECK(n >= 8);
}

TEST_CASE("ring kernels compile with NVRTC for sm_90 (clusters, gamma/beta in registers or not)") {
    struct pick {
        const char* op;
        problem p;
        config c;
    };
    const pick picks[] = {
        {"softmax", {{1024, 131072}, dtype::bf16}, ring(512, 64, 8, 8)},
        {"softmax", {{4096, 32768}, dtype::f32}, ring(256, 32, 2, 4)},
        {"layernorm", {{1024, 131072}, dtype::bf16}, ring(512, 64, 8, 8)}, // 4 vectors: registers
        {"layernorm", {{1024, 131072}, dtype::f32}, ring(128, 32, 8, 4)},  // 32: from L1/L2
        {"rowsum", {{8192, 8192}, dtype::bf16}, ring(256, 16, 1, 8)},
    };
    for (const auto& k : picks) {
        const op& o = find_op(k.op);
        config c = k.c;
        if (std::string(k.op) == "rowsum")
            c = {{"threads_per_row", std::int64_t{256}},
                 {"rows_per_block", std::int64_t{16}},
                 {"vec", std::int64_t{8}},
                 {"unroll", std::int64_t{1}},
                 {"stage", std::string("smem_ring")}};
        INFO(k.op << " " << to_string(k.p.type) << " " << c.to_string());
        std::string why;
        CHECK(o.valid(c, k.p, &why));
        INFO(why);
        const auto r =
            measure::nvrtc_compile({o.source(c, k.p), std::string(kernel_name), "sm_90", {}});
        INFO(r.log);
        CHECK(r.ok);
        CHECK(r.cubin.size() > 1000);
    }
}

TEST_CASE("transpose: 128-tiles within 48 KiB of static shared memory") {
    const op& t = find_op("transpose");
    const problem bf{{8192, 8192}, dtype::bf16};
    const problem f{{8192, 8192}, dtype::f32};
    config c{{"tile", std::int64_t{128}},
             {"block_rows", std::int64_t{16}},
             {"vec", std::int64_t{8}},
             {"pad", std::int64_t{1}},
             {"pack", std::int64_t{1}}};
    std::string why;
    REQUIRE(t.valid(c, bf, &why));
    const launch_geometry g = t.geometry(c, bf);
    CHECK(g.grid[0] == 64u);
    CHECK(g.block[0] == 16u);
    CHECK(g.block[1] == 16u);
    c.set("pack", std::int64_t{0});
    CHECK(t.valid(c, bf, &why)); // 128 x 129 x 2 bytes
    c.set("vec", std::int64_t{4});
    CHECK_FALSE(t.valid(c, f, &why)); // 128 x 129 x 4 bytes
    CHECK(why.find("48 KiB") != std::string::npos);
    c.set("vec", std::int64_t{8});
    c.set("pack", std::int64_t{1});
    const auto r = measure::nvrtc_compile({t.source(c, bf), std::string(kernel_name), "sm_90", {}});
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
    const auto r = measure::nvrtc_compile({src, std::string(kernel_name), "sm_90", {}});
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
