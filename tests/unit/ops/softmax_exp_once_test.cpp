// Softmax's exp_once axis (session 5): e = exp(x - m) taken once in the reduction pass and kept
// over the row (bf16 rows as fp16), so that the store pass multiplies instead of taking a second
// exp. Constraints, the default, the generated source, and that every form compiles with NVRTC
// for sm_90 (tests/gpu/ops/kernels_gpu_test.cpp checks the results against the reference).
#include "catch.hpp"

#include "ktune/measure/compile.hpp"
#include "ktune/ops/op.hpp"

#include <algorithm>
#include <string>

using namespace ktune;
using namespace ktune::ops;

namespace {

bool once(const config& c) {
    return c.find("exp_once") != nullptr && c.get<bool>("exp_once");
}

config staged(std::int64_t tpr, std::int64_t cluster, std::int64_t vec, bool exp_once) {
    return {{"threads_per_row", tpr},
            {"rows_per_block", std::int64_t{1}},
            {"vec", vec},
            {"cache_row", true},
            {"unroll", std::int64_t{1}},
            {"cluster", cluster},
            {"stage", std::string("smem_tma")},
            {"exp_once", exp_once}};
}

} // namespace

TEST_CASE("softmax exp_once: an axis of the cached and staged forms only") {
    const op& sm = find_op("softmax");
    const auto ax = sm.axes();
    const auto it = std::find_if(ax.begin(), ax.end(),
                                 [](const param_axis& a) { return a.name == "exp_once"; });
    REQUIRE(it != ax.end());
    CHECK(it->values.size() == 2);
    // The other row ops have no such axis.
    for (const char* name : {"layernorm", "rowsum"})
        for (const auto& a : find_op(name).axes())
            CHECK(a.name != "exp_once");

    const problem p{{4096, 32768}, dtype::bf16};
    std::size_t with = 0, staged_with = 0, regs_with = 0;
    for (const auto& c : sm.enumerate(p)) {
        if (!once(c)) continue;
        ++with;
        CHECK(c.get<bool>("cache_row"));
        const bool st = c.get<std::string>("stage") == "smem_tma";
        staged_with += st;
        regs_with += !st;
    }
    CHECK(staged_with >= 10);
    CHECK(regs_with >= 4);

    // Two-pass rows (not cached) have nowhere to keep e.
    config c = sm.default_config({{64, 1024}, dtype::f32});
    c.set("cache_row", false);
    c.set("unroll", std::int64_t{2});
    c.set("exp_once", true);
    std::string why;
    CHECK_FALSE(sm.valid(c, {{64, 1024}, dtype::f32}, &why));
    CHECK(why.find("exp_once") != std::string::npos);
    c.set("exp_once", false);
    CHECK(sm.valid(c, {{64, 1024}, dtype::f32}, &why));
}

TEST_CASE("softmax defaults carry exp_once; configs without the key read as false") {
    const op& sm = find_op("softmax");
    for (dtype t : {dtype::f32, dtype::bf16}) {
        for (std::int64_t cols : {1024, 8192, 32768, 131072}) {
            const problem p{{1024, cols}, t};
            const config d = sm.default_config(p);
            INFO(to_string(t) << " " << cols << " " << d.to_string());
            REQUIRE(d.find("exp_once") != nullptr);
            CHECK(sm.valid(d, p));
        }
    }
    // A hand-built config of session 4 (no exp_once key) is still valid and the old form.
    const problem bf{{1024, 131072}, dtype::bf16};
    config old = staged(512, 1, 8, false);
    const auto& v = old.values();
    old = config(std::vector<config::entry>(v.begin(), v.end() - 1));
    REQUIRE(old.find("exp_once") == nullptr);
    CHECK(sm.valid(old, bf));
    CHECK(sm.source(old, bf).find("#define EXP_ONCE 1") == std::string::npos);
}

TEST_CASE("softmax exp_once sources differ from the two-exp form and compile for sm_90") {
    const op& sm = find_op("softmax");
    struct item {
        problem p;
        config c;
    };
    std::vector<item> items{
        // One block per 256 KiB bf16 row: 192 KiB staged in 8 chunks of 3 rounds + a register
        // tail (the problem this form is for).
        {{{1024, 131072}, dtype::bf16}, staged(512, 1, 8, true)},
        {{{1024, 131072}, dtype::f32}, staged(512, 2, 4, true)},
        {{{4096, 32768}, dtype::bf16}, staged(512, 1, 8, true)},
        {{{64, 65536}, dtype::bf16}, staged(256, 2, 8, true)},
    };
    // Register-cached rows: split over a cluster, sub-warp groups, bf16 vec 1 (unpaired fp16).
    for (dtype t : {dtype::f32, dtype::bf16}) {
        for (const problem p : {problem{{64, 131072}, t}, problem{{999, 512}, t}}) {
            std::size_t n = 0;
            for (const auto& c : sm.enumerate(p))
                if (once(c) && c.get<std::string>("stage") == "regs" && n < 2 &&
                    (c.get<std::int64_t>("cluster") > 1 ||
                     c.get<std::int64_t>("threads_per_row") < 32)) {
                    items.push_back({p, c});
                    ++n;
                }
            CHECK(n == 2);
        }
    }
    config v1 = sm.default_config({{999, 512}, dtype::bf16});
    v1.set("threads_per_row", std::int64_t{256});
    v1.set("vec", std::int64_t{1});
    v1.set("cache_row", true);
    v1.set("unroll", std::int64_t{1});
    v1.set("exp_once", true);
    items.push_back({{{999, 512}, dtype::bf16}, v1});
    for (const auto& [p, c] : items) {
        INFO(to_string(p.type) << " " << to_string(p.shape) << " " << c.to_string());
        REQUIRE(sm.valid(c, p));
        const std::string src = sm.source(c, p);
        CHECK(src.find("#define EXP_ONCE 1") != std::string::npos);
        config twice = c;
        twice.set("exp_once", false);
        CHECK(sm.source(twice, p) != src);
        const auto r = measure::nvrtc_compile({src, std::string(kernel_name), "sm_90", {}});
        INFO(r.log);
        CHECK(r.ok);
        CHECK(r.cubin.size() > 1000);
    }
}
