// Layernorm's L2-tail form (hand-set key l2_tail_kib, session 5 round 3): one slice per block
// stages l2_tail_kib KiB (two blocks a SM, no cluster needed) and reads the rest from global
// memory twice, the second time from L2. Constraints, geometry, the source's constants, and that
// it compiles with NVRTC for sm_90 (the GPU test checks results against the reference).
#include "catch.hpp"

#include "ktune/measure/compile.hpp"
#include "ktune/ops/op.hpp"

#include <string>

using namespace ktune;
using namespace ktune::ops;

namespace {

config one_row(std::int64_t tpr, std::int64_t cluster, std::int64_t vec, std::int64_t kib) {
    config c{{"threads_per_row", tpr},
             {"rows_per_block", std::int64_t{1}},
             {"vec", vec},
             {"cache_row", true},
             {"unroll", std::int64_t{1}},
             {"cluster", cluster},
             {"stage", std::string("smem_tma")}};
    if (kib > 0) c.set("l2_tail_kib", kib);
    return c;
}

int define_of(const std::string& src, const std::string& name) {
    const std::string key = "#define " + name + " ";
    const auto at = src.find(key);
    return at == std::string::npos ? -1 : std::stoi(src.substr(at + key.size(), 6));
}

} // namespace

TEST_CASE("layernorm l2_tail_kib: 112 KiB staged of a 256 KiB row, two blocks a SM") {
    const op& ln = find_op("layernorm");
    const problem bf{{1024, 131072}, dtype::bf16};
    std::string why;
    config base = one_row(512, 1, 8, 0); // 192 KiB staged + a register tail, one block a SM
    REQUIRE(ln.valid(base, bf, &why));
    CHECK(ln.geometry(base, bf).shared_bytes == 192u * 1024u);
    CHECK(define_of(ln.source(base, bf), "GL_ROUNDS") == 0); // tma_source's fallback
    const config c = one_row(512, 1, 8, 112);
    REQUIRE(ln.valid(c, bf, &why));
    const launch_geometry g = ln.geometry(c, bf);
    CHECK(g.grid[0] == 1024u);
    CHECK(g.block[0] == 512u);
    CHECK(g.shared_bytes == 112u * 1024u);
    const std::string src = ln.source(c, bf);
    CHECK(define_of(src, "GL_ROUNDS") == 18); // 144 KiB in rounds of 512 x 16 bytes
    CHECK(define_of(src, "REG_ROUNDS") == 0); // tma_source's fallback: no register tail
    CHECK(src.find("#define KTUNE_TWO_BLOCKS 1") != std::string::npos);
    // Rounds not dividing the tail: the staged part shrinks (101 KiB asked, 100 KiB staged).
    const config r = one_row(256, 1, 8, 101);
    REQUIRE(ln.valid(r, bf, &why));
    CHECK(define_of(ln.source(r, bf), "GL_ROUNDS") == 39); // ceil(156 KiB / 4 KiB)
    CHECK(ln.geometry(r, bf).shared_bytes == 256u * 1024u - 39u * 4096u);
}

TEST_CASE("layernorm l2_tail_kib: checked values, one staged slice per block only") {
    const op& ln = find_op("layernorm");
    const problem bf{{1024, 131072}, dtype::bf16};
    const problem short_rows{{4096, 32768}, dtype::bf16};
    std::string why;
    CHECK_FALSE(ln.valid(one_row(512, 1, 8, 8), bf, &why)); // under 16 KiB
    CHECK(why.find("l2_tail_kib") != std::string::npos);
    CHECK_FALSE(ln.valid(one_row(512, 1, 8, 113), bf, &why));        // over two blocks a SM
    CHECK_FALSE(ln.valid(one_row(512, 1, 8, 64), short_rows, &why)); // the row fits: no tail
    CHECK(ln.valid(one_row(512, 1, 8, 32), short_rows, &why));
    config rows2 = one_row(512, 1, 8, 112);
    rows2.set("rows_per_block", std::int64_t{2});
    rows2.set("rows_in_turn", true);
    CHECK_FALSE(ln.valid(rows2, bf, &why));
    config regs = one_row(512, 1, 8, 112);
    regs.set("stage", std::string("regs"));
    CHECK_FALSE(ln.valid(regs, bf, &why));
    config both = one_row(256, 2, 8, 96);
    both.set("tma_reg_tail", true);
    CHECK_FALSE(ln.valid(both, bf, &why));
    config hints = one_row(512, 1, 8, 112);
    hints.set("l2_hints", false); // the form without cache-policy operands
    REQUIRE(ln.valid(hints, bf, &why));
    CHECK(ln.source(hints, bf).find("#define L2_HINTS 0") != std::string::npos);
    hints.set("l2_hints", std::int64_t{0});
    CHECK_FALSE(ln.valid(hints, bf, &why));
    config no_tail = one_row(512, 1, 8, 0);
    no_tail.set("l2_hints", true);
    CHECK_FALSE(ln.valid(no_tail, bf, &why));
    CHECK(why.find("l2_hints") != std::string::npos);
    config kind = one_row(512, 1, 8, 0);
    kind.set("l2_tail_kib", true);
    CHECK_FALSE(ln.valid(kind, bf, &why));
    // Softmax's kernel has no such form: the key stages nothing less there (no GL_ROUNDS).
    const op& sm = find_op("softmax");
    CHECK(define_of(sm.source(one_row(512, 1, 8, 112), bf), "GL_ROUNDS") == 0);
    CHECK(sm.geometry(one_row(512, 1, 8, 112), bf).shared_bytes == 192u * 1024u);
}

TEST_CASE("layernorm l2_tail_kib sources compile for sm_90 (bf16, fp32, clusters 1 and 2)") {
    const op& ln = find_op("layernorm");
    const problem bf{{37, 131072}, dtype::bf16};
    const problem f{{37, 131072}, dtype::f32};
    config plain = one_row(512, 1, 8, 112);
    plain.set("l2_hints", false);
    for (const auto& [c, p] :
         {std::pair{one_row(512, 1, 8, 112), bf}, std::pair{one_row(256, 1, 8, 104), bf},
          std::pair{plain, bf}, std::pair{one_row(512, 2, 4, 112), f},
          std::pair{one_row(1024, 4, 4, 64), f}}) {
        INFO(to_string(p.type) << " " << c.to_string());
        REQUIRE(ln.valid(c, p));
        const auto r =
            measure::nvrtc_compile({ln.source(c, p), std::string(kernel_name), "sm_90", {}});
        INFO(r.log);
        CHECK(r.ok);
    }
}
