// Softmax's exp once (docs/perf/kernels.md#softmax-exp-once): e = exp(x - m) taken once in the
// reduction pass and kept over the row (bf16 rows as fp16), the store pass multiplying instead of
// taking a second exp. Staged rows always take that form, register-cached rows the two-exp one; a
// hand-set config key exp_once (not in the space) picks the other. Constraints, the space, and that
// the forms compile with NVRTC for sm_90 as claimed (tests/gpu/ops/kernels_gpu_test.cpp checks
// results).
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/ops/op.hpp"
#include "op_test_support.hpp"

#include <string>

using namespace ktune;
using namespace ktune::ops;

namespace {

config staged(std::int64_t tpr, std::int64_t cluster, std::int64_t vec) {
    return test::row_config(tpr, 1, cluster, vec, "smem_tma");
}

config with(config c, bool exp_once) {
    c.set("exp_once", exp_once);
    return c;
}

compile::compile_result compile_op(const op& o, const config& c, const problem& p) {
    return test::compile_sm90(o, c, p);
}

} // namespace

TEST_CASE("softmax exp_once: a hand-set key, not an axis; cached or staged rows only") {
    const op& sm = find_op("softmax");
    for (const auto& a : sm.axes())
        CHECK(a.name != "exp_once");
    const problem p{{4096, 32768}, dtype::bf16};
    for (const auto& c : sm.enumerate(p))
        CHECK(c.find("exp_once") == nullptr);
    CHECK(sm.default_config(p).find("exp_once") == nullptr);

    // Two-pass rows (not cached) have nowhere to keep e.
    const problem small{{64, 1024}, dtype::f32};
    config c = sm.default_config(small);
    c.set("cache_row", false);
    c.set("unroll", std::int64_t{2});
    std::string why;
    CHECK_FALSE(sm.valid(with(c, true), small, &why));
    CHECK(why.find("exp_once") != std::string::npos);
    CHECK(sm.valid(with(c, false), small, &why));
    // Either value on a cached or staged row.
    const problem bf{{1024, 131072}, dtype::bf16};
    CHECK(sm.valid(with(staged(512, 1, 8), false), bf, &why));
    CHECK(sm.valid(with(staged(512, 1, 8), true), bf, &why));
}

TEST_CASE("softmax: staged rows compile to the exp-once kernel, register-cached rows to two exps") {
    // Same machine code with and without the key, different with its other value: the key
    // only overrides the form the stage picks.
    const op& sm = find_op("softmax");
    const problem bf{{1024, 131072}, dtype::bf16};
    const config st = staged(512, 1, 8); // 192 KiB staged + a register tail: the default
    REQUIRE(sm.valid(st, bf));
    const auto plain = compile_op(sm, st, bf);
    const auto once = compile_op(sm, with(st, true), bf);
    const auto twice = compile_op(sm, with(st, false), bf);
    REQUIRE(plain.ok);
    REQUIRE(once.ok);
    REQUIRE(twice.ok);
    CHECK(plain.cubin == once.cubin);
    CHECK(plain.cubin != twice.cubin);

    const problem sq{{8192, 8192}, dtype::bf16};
    const config rg = sm.default_config(sq);
    REQUIRE(rg.get<std::string>("stage") == "regs");
    const auto rplain = compile_op(sm, rg, sq);
    const auto ronce = compile_op(sm, with(rg, true), sq);
    const auto rtwice = compile_op(sm, with(rg, false), sq);
    REQUIRE(rplain.ok);
    REQUIRE(ronce.ok);
    REQUIRE(rtwice.ok);
    CHECK(rplain.cubin == rtwice.cubin);
    CHECK(rplain.cubin != ronce.cubin);
}

TEST_CASE("softmax exp_once forms compile for sm_90 (fp32, clusters, sub-warp, bf16 vec 1)") {
    const op& sm = find_op("softmax");
    struct item {
        problem p;
        config c;
    };
    std::vector<item> items{
        {{{1024, 131072}, dtype::f32}, with(staged(512, 2, 4), true)},
        {{{1024, 131072}, dtype::bf16}, with(staged(1024, 1, 8), true)},
        {{{64, 65536}, dtype::bf16}, with(staged(256, 2, 8), true)},
    };
    // Register-cached rows: split over a cluster, sub-warp groups.
    for (dtype t : {dtype::f32, dtype::bf16}) {
        for (const problem p : {problem{{64, 131072}, t}, problem{{999, 512}, t}}) {
            std::size_t n = 0;
            for (const auto& c : sm.enumerate(p))
                if (c.get<bool>("cache_row") && c.get<std::string>("stage") == "regs" && n < 2 &&
                    (c.get<std::int64_t>("cluster") > 1 ||
                     c.get<std::int64_t>("threads_per_row") < 32)) {
                    items.push_back({p, with(c, true)});
                    ++n;
                }
            CHECK(n == 2);
        }
    }
    // bf16 vec 1: e converted to fp16 one element at a time.
    config v1 = sm.default_config({{999, 512}, dtype::bf16});
    v1.set("threads_per_row", std::int64_t{256});
    v1.set("vec", std::int64_t{1});
    v1.set("cache_row", true);
    v1.set("unroll", std::int64_t{1});
    items.push_back({{{999, 512}, dtype::bf16}, with(v1, true)});
    for (const auto& [p, c] : items) {
        INFO(to_string(p.type) << " " << to_string(p.shape) << " " << c.to_string());
        REQUIRE(sm.valid(c, p));
        const std::string src = sm.source(c, p);
        CHECK(src.find("#define EXP_ONCE 1") != std::string::npos);
        const auto r = compile_op(sm, c, p);
        INFO(r.log);
        CHECK(r.ok);
        CHECK(r.cubin.size() > 1000);
    }
}
