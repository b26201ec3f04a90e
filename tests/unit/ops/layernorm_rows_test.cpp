// Layernorm's stage smem_rows (session 5): rows_per_block rows staged at once so that the store
// loop reads each gamma/beta vector once from L2 for all of them. Constraints, geometry, that it
// is layernorm's alone, and that its sources compile with NVRTC for sm_90 (the GPU test checks
// their results against the reference).
#include "catch.hpp"

#include "ktune/measure/compile.hpp"
#include "ktune/ops/op.hpp"

#include <string>

using namespace ktune;
using namespace ktune::ops;

namespace {

config rows(std::int64_t tpr, std::int64_t rpb, std::int64_t cluster, std::int64_t vec) {
    return {{"threads_per_row", tpr},
            {"rows_per_block", rpb},
            {"vec", vec},
            {"cache_row", true},
            {"unroll", std::int64_t{1}},
            {"cluster", cluster},
            {"stage", std::string("smem_rows")}};
}

} // namespace

TEST_CASE("layernorm smem_rows: rpb rows at once in shared memory, one block per group") {
    const op& ln = find_op("layernorm");
    const problem bf{{1024, 131072}, dtype::bf16};
    const problem f{{1024, 131072}, dtype::f32};
    std::string why;
    config c = rows(1024, 2, 8, 8); // 2 x 32 KiB slices of bf16 rows
    REQUIRE(ln.valid(c, bf, &why));
    launch_geometry g = ln.geometry(c, bf);
    CHECK(g.grid[0] == 512u * 8u); // 512 row pairs, clusters of 8
    CHECK(g.block[0] == 1024u);
    CHECK(g.shared_bytes == 2u * 32u * 1024u);
    CHECK(ln.source(c, bf).find("#define STAGE_smem_rows 1") != std::string::npos);
    const std::string src = ln.source(c, bf);
    const auto rr = src.find("#define REG_ROUNDS ");
    REQUIRE(rr != std::string::npos);
    CHECK(src.compare(rr, 21, "#define REG_ROUNDS 0\n") == 0); // tma_source's fallback: no tail
    c.set("rows_per_block", std::int64_t{4});
    CHECK(ln.valid(c, bf, &why));
    CHECK(ln.geometry(c, bf).shared_bytes == 4u * 32u * 1024u);
    c.set("rows_per_block", std::int64_t{8}); // 256 KiB: over shared memory, no register tail
    CHECK_FALSE(ln.valid(c, bf, &why));
    CHECK(why.find("226 KiB") != std::string::npos);
    c.set("rows_per_block", std::int64_t{1}); // one row: that is smem_tma
    CHECK_FALSE(ln.valid(c, bf, &why));
    CHECK(why.find("rows_per_block >= 2") != std::string::npos);
    // fp32 512 KiB rows: 2 x 64 KiB in clusters of 8; clusters of 4 would need 256 KiB.
    c = rows(1024, 2, 8, 4);
    CHECK(ln.valid(c, f, &why));
    c.set("cluster", std::int64_t{4});
    CHECK_FALSE(ln.valid(c, f, &why));
    // A partial last group of rows: the grid rounds up.
    const problem odd{{1001, 32768}, dtype::bf16};
    c = rows(512, 4, 2, 8);
    REQUIRE(ln.valid(c, odd, &why));
    CHECK(ln.geometry(c, odd).grid[0] == 251u * 2u);
    // Blocks under 256 threads lost everywhere on the H200: out of the space.
    CHECK_FALSE(ln.valid(rows(128, 2, 8, 8), bf, &why));
    CHECK(why.find("256") != std::string::npos);
    // Rows of 32 KiB and less keep gamma/beta in L1: not in the space.
    const problem short_rows{{8192, 8192}, dtype::f32};
    CHECK_FALSE(ln.valid(rows(256, 2, 1, 4), short_rows, &why));
    CHECK(why.find("32 KiB") != std::string::npos);
}

TEST_CASE("layernorm bf16 rows over 32 KiB default to two rows at once in 32 KiB slices") {
    const op& ln = find_op("layernorm");
    struct expect {
        std::int64_t rows, cols, tpr, cluster;
    };
    for (const expect e : {expect{1024, 131072, 256, 8}, expect{4096, 32768, 512, 2},
                           expect{2048, 65536, 512, 4}, expect{40, 131072, 256, 8}}) {
        const problem p{{e.rows, e.cols}, dtype::bf16};
        const config d = ln.default_config(p);
        INFO(d.to_string());
        CHECK(ln.valid(d, p));
        CHECK(d.get<std::string>("stage") == "smem_rows");
        CHECK(d.get<std::int64_t>("rows_per_block") == 2);
        CHECK(d.get<std::int64_t>("threads_per_row") == e.tpr);
        CHECK(d.get<std::int64_t>("cluster") == e.cluster);
        CHECK(ln.geometry(d, p).shared_bytes == 64u * 1024u);
    }
    // fp32 keeps one row per block (its 32 KiB slices would need clusters of 16), and rows of
    // 32 KiB and less their register cache.
    CHECK(ln.default_config({{1024, 131072}, dtype::f32}).get<std::string>("stage") == "smem_tma");
    CHECK(ln.default_config({{4096, 32768}, dtype::f32}).get<std::string>("stage") == "smem_tma");
    CHECK(ln.default_config({{8192, 16384}, dtype::bf16}).get<std::string>("stage") == "regs");
}

TEST_CASE("smem_rows is layernorm's alone, and in its space at the long rows") {
    const problem bf{{1024, 131072}, dtype::bf16};
    std::string why;
    for (const char* name : {"softmax", "rowsum"}) {
        INFO(name);
        const op& o = find_op(name);
        config c = o.default_config(bf);
        c.set("stage", std::string("smem_rows"));
        CHECK_FALSE(o.valid(c, bf, &why));
        for (const auto& a : o.axes())
            if (a.name == "stage") CHECK(a.values.size() == 2u);
    }
    std::size_t n = 0;
    for (const auto& e : find_op("layernorm").enumerate(bf))
        if (e.get<std::string>("stage") == "smem_rows") {
            ++n;
            CHECK(e.get<std::int64_t>("rows_per_block") >= 2);
        }
    CHECK(n >= 8);
}

TEST_CASE("layernorm smem_rows sources compile for sm_90 (clusters, rows 2 and 4)") {
    const op& ln = find_op("layernorm");
    for (const auto& [c, p] :
         {std::pair{rows(1024, 2, 8, 8), problem{{1024, 131072}, dtype::bf16}},
          std::pair{rows(512, 4, 8, 8), problem{{1024, 131072}, dtype::bf16}},
          std::pair{rows(1024, 2, 8, 4), problem{{1024, 131072}, dtype::f32}},
          std::pair{rows(512, 2, 1, 8), problem{{4096, 32768}, dtype::bf16}}}) {
        INFO(to_string(p.type) << " " << c.to_string());
        REQUIRE(ln.valid(c, p));
        const auto r =
            measure::nvrtc_compile({ln.source(c, p), std::string(kernel_name), "sm_90", {}});
        INFO(r.log);
        CHECK(r.ok);
    }
}
