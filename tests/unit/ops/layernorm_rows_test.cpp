// Layernorm's stage smem_rows (docs/perf/kernels.md#layernorm-long-rows): rows_per_block rows
// staged at once so that the store loop reads each gamma/beta vector once from L2 for all of them.
// Constraints, geometry, that it is layernorm's alone, and that its sources compile with NVRTC for
// sm_90 (the GPU test checks their results against the reference).
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/ops/op.hpp"
#include "op_test_support.hpp"

#include <string>

using namespace ktune;
using namespace ktune::ops;

namespace {

std::string fmt_define(const char* name, std::int64_t v) {
    return "#define " + std::string(name) + " " + std::to_string(v) + "\n";
}

config rows(std::int64_t tpr, std::int64_t rpb, std::int64_t cluster, std::int64_t vec) {
    return test::row_config(tpr, rpb, cluster, vec, "smem_rows");
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
    // 128 KiB of rows: each keeps one round (16 KiB) in registers, 16 KiB staged.
    CHECK(ln.geometry(c, bf).shared_bytes == 4u * 16u * 1024u);
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

TEST_CASE("layernorm defaults: one row per block of 256 threads, fp32 tails in registers") {
    // H200 (docs/perf/kernels.md#layernorm-register-tails): fp32 rows of 128 KiB and more in 128
    // KiB slices, 96 KiB staged and the tail in registers, two blocks a SM (1024x131072 88.0 %
    // vs 85.0 %, 4096x32768 94.1 % vs 92.6 % two rows at once); bf16 rows of 256 KiB in 32 KiB
    // slices (1024x131072 79.6 % vs 79.0 % in 64 KiB), shorter bf16 rows in slices of at most 64
    // KiB, 512 threads (4096x32768 91.5 % vs 87.0 % two rows at once).
    const op& ln = find_op("layernorm");
    struct expect {
        std::int64_t rows, cols;
        dtype type;
        std::int64_t tpr, cluster, smem_kib;
        bool two_blocks;
    };
    for (const expect e : {expect{1024, 131072, dtype::f32, 256, 4, 96, true},
                           expect{4096, 32768, dtype::f32, 256, 1, 96, true},
                           expect{40, 65536, dtype::f32, 256, 2, 96, true},
                           expect{1024, 131072, dtype::bf16, 256, 8, 32, false},
                           expect{4096, 32768, dtype::bf16, 512, 1, 64, false},
                           expect{40, 65536, dtype::bf16, 512, 2, 64, false}}) {
        const problem p{{e.rows, e.cols}, e.type};
        const config d = ln.default_config(p);
        INFO(d.to_string());
        CHECK(ln.valid(d, p));
        CHECK(d.get<std::string>("stage") == "smem_tma");
        CHECK(d.get<std::int64_t>("rows_per_block") == 1);
        CHECK(d.get<std::int64_t>("threads_per_row") == e.tpr);
        CHECK(d.get<std::int64_t>("cluster") == e.cluster);
        CHECK(ln.geometry(d, p).shared_bytes == static_cast<unsigned>(e.smem_kib * 1024));
        CHECK((ln.source(d, p).find("#define KTUNE_TWO_BLOCKS 1") != std::string::npos) ==
              e.two_blocks);
    }
    CHECK(ln.default_config({{8192, 16384}, dtype::bf16}).get<std::string>("stage") == "regs");
    // Softmax keeps its own long-row defaults (no slice tails: its kernels were not measured so).
    const op& sm = find_op("softmax");
    const problem sb{{1024, 131072}, dtype::bf16};
    CHECK(sm.default_config(sb).get<std::int64_t>("threads_per_row") == 512);
    config c = sm.default_config(sb);
    c.set("cluster", std::int64_t{2});
    CHECK(sm.geometry(c, sb).shared_bytes == 128u * 1024u);
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
        const auto r = test::compile_sm90(ln, c, p);
        INFO(r.log);
        CHECK(r.ok);
    }
}

namespace {
// The REG_ROUNDS the config's source defines (row_op's line comes before tma_source's fallback).
int reg_rounds_of(const std::string& src) {
    const auto at = src.find("#define REG_ROUNDS ");
    return at == std::string::npos ? -1 : std::stoi(src.substr(at + 19, 4));
}
} // namespace

TEST_CASE("layernorm smem_rows over 112 KiB keep each row's tail in registers") {
    const op& ln = find_op("layernorm");
    const problem bf{{1024, 131072}, dtype::bf16};
    std::string why;
    // Clusters of 4: 2 x 64 KiB. 96 KiB staged (48 KiB a row), 16 KiB a row in registers: 4
    // rounds of 256 threads x 16 bytes, 128 bytes a thread for both rows.
    config c = rows(256, 2, 4, 8);
    REQUIRE(ln.valid(c, bf, &why));
    CHECK(ln.geometry(c, bf).shared_bytes == 96u * 1024u);
    CHECK(reg_rounds_of(ln.source(c, bf)) == 4);
    CHECK(ln.source(c, bf).find("__launch_bounds__(KTUNE_BLOCK, 2)") != std::string::npos);
    c.set("threads_per_row", std::int64_t{512}); // 2 rounds a row, 64 bytes a thread
    CHECK(ln.geometry(c, bf).shared_bytes == 96u * 1024u);
    CHECK(reg_rounds_of(ln.source(c, bf)) == 2);
    // The hand-set key stages them whole: one 128 KiB block a SM, as first measured
    // (docs/perf/kernels.md#layernorm-long-rows).
    c.set("rows_reg_tail", false);
    REQUIRE(ln.valid(c, bf, &why));
    CHECK(ln.geometry(c, bf).shared_bytes == 128u * 1024u);
    CHECK(reg_rounds_of(ln.source(c, bf)) == 0);
    // 64 KiB blocks have no tail.
    const config d = rows(256, 2, 8, 8);
    CHECK(ln.geometry(d, bf).shared_bytes == 64u * 1024u);
    CHECK(reg_rounds_of(ln.source(d, bf)) == 0);
    CHECK(ln.source(d, bf).find("#define KTUNE_TWO_BLOCKS 1") == std::string::npos);
    // Tails over 128 bytes a thread: staged whole where that fits (rows 4 x 32 KiB at 128
    // threads would need 4 x 4 rounds: the space has no such block), else invalid.
    const problem f{{1024, 131072}, dtype::f32};
    CHECK(ln.valid(rows(256, 2, 8, 4), f, &why)); // fp32 2 x 64 KiB in clusters of 8
    CHECK(ln.geometry(rows(256, 2, 8, 4), f).shared_bytes == 96u * 1024u);
    CHECK_FALSE(ln.valid(rows(1024, 2, 4, 4), f, &why)); // 2 x 128 KiB: 5 rounds a row
}

TEST_CASE("layernorm's hand-set keys: staged forms only, checked values") {
    const op& ln = find_op("layernorm");
    const problem bf{{1024, 131072}, dtype::bf16};
    for (const auto& a : ln.axes())
        for (const char* k : {"gb_prefetch", "packed_cvt", "rows_reg_tail"})
            CHECK(a.name != k);
    std::string why;
    config c = rows(256, 2, 8, 8);
    for (std::int64_t pf : {0, 2, 8}) {
        c.set("gb_prefetch", pf);
        CHECK(ln.valid(c, bf, &why));
        CHECK(ln.source(c, bf).find(fmt_define("GB_PREFETCH", pf)) != std::string::npos);
    }
    c.set("gb_prefetch", std::int64_t{9});
    CHECK_FALSE(ln.valid(c, bf, &why));
    CHECK(why.find("gb_prefetch") != std::string::npos);
    c.set("gb_prefetch", std::string("two"));
    CHECK_FALSE(ln.valid(c, bf, &why));
    c = rows(256, 2, 8, 8);
    c.set("packed_cvt", false);
    CHECK(ln.valid(c, bf, &why));
    CHECK(ln.source(c, bf).find("#define PACKED_CVT 0") != std::string::npos);
    // Register-cached rows have no staged store loop to change.
    const problem sq{{8192, 8192}, dtype::bf16};
    config r = ln.default_config(sq);
    REQUIRE(r.get<std::string>("stage") == "regs");
    r.set("packed_cvt", true);
    CHECK_FALSE(ln.valid(r, sq, &why));
    CHECK(why.find("packed_cvt") != std::string::npos);
}

TEST_CASE("layernorm's round-2 forms compile for sm_90 (tails, prefetch, packed, the old form)") {
    const op& ln = find_op("layernorm");
    const problem bf{{1024, 131072}, dtype::bf16};
    const problem f{{1024, 131072}, dtype::f32};
    config old = rows(256, 2, 8, 8);
    old.set("gb_prefetch", std::int64_t{0});
    old.set("packed_cvt", false);
    config pf4 = ln.default_config(f);
    pf4.set("gb_prefetch", std::int64_t{4});
    for (const auto& [c, p] : {std::pair{rows(256, 2, 4, 8), bf}, std::pair{rows(512, 2, 8, 4), f},
                               std::pair{old, bf}, std::pair{pf4, f}}) {
        INFO(to_string(p.type) << " " << c.to_string());
        REQUIRE(ln.valid(c, p));
        const auto r = test::compile_sm90(ln, c, p);
        INFO(r.log);
        CHECK(r.ok);
    }
}

TEST_CASE("layernorm slice tails (tma_reg_tail) and rows_in_turn") {
    const op& ln = find_op("layernorm");
    const problem bf{{1024, 131072}, dtype::bf16};
    std::string why;
    config c = rows(256, 1, 2, 8); // 128 KiB slices: 96 KiB staged, 8 rounds in registers
    c.set("stage", std::string("smem_tma"));
    REQUIRE(ln.valid(c, bf, &why));
    CHECK(ln.geometry(c, bf).shared_bytes == 96u * 1024u);
    CHECK(reg_rounds_of(ln.source(c, bf)) == 8);
    CHECK(ln.source(c, bf).find("#define KTUNE_TWO_BLOCKS 1") != std::string::npos);
    c.set("tma_reg_tail", false); // staged whole: one block a SM
    REQUIRE(ln.valid(c, bf, &why));
    CHECK(ln.geometry(c, bf).shared_bytes == 128u * 1024u);
    CHECK(ln.source(c, bf).find("#define KTUNE_TWO_BLOCKS 1") == std::string::npos);
    c.set("tma_reg_tail", true);
    c.set("threads_per_row", std::int64_t{128}); // 256 bytes a thread: no tail, staged whole
    CHECK(ln.geometry(c, bf).shared_bytes == 128u * 1024u);
    config w = rows(1024, 1, 2, 8); // 1024 threads: two blocks would leave 32 registers
    w.set("stage", std::string("smem_tma"));
    CHECK(ln.geometry(w, bf).shared_bytes == 128u * 1024u);
    w.set("tma_reg_tail", true); // the key forces it
    CHECK(ln.geometry(w, bf).shared_bytes == 96u * 1024u);
    // Rows in turn (two buffers) only by the key.
    config t = rows(256, 2, 8, 8);
    t.set("stage", std::string("smem_tma"));
    CHECK_FALSE(ln.valid(t, bf, &why));
    t.set("rows_in_turn", true);
    REQUIRE(ln.valid(t, bf, &why));
    CHECK(ln.geometry(t, bf).shared_bytes == 64u * 1024u);
    for (const auto& k : {c, t}) {
        const auto r = test::compile_sm90(ln, k, bf);
        INFO(r.log);
        CHECK(r.ok);
    }
}
