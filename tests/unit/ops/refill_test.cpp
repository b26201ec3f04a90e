// stage = smem_refill (session 4, round 2): a block takes rows in turn through one staged
// buffer and refills each chunk with the next row's as soon as the block has read it for the
// stores, so one block per SM (a 192 KiB-plus slice) overlaps its stores with the next row's
// loads. The constraints, the one buffer, the register tail with rows in turn, the source, and
// an NVRTC compile of the forms the GPU step times.
#include "catch.hpp"

#include "ktune/measure/compile.hpp"
#include "ktune/ops/op.hpp"

#include <set>

using namespace ktune;
using namespace ktune::ops;

namespace {

config refill(std::int64_t tpr, std::int64_t rpb, std::int64_t cl, std::int64_t vec) {
    return {{"threads_per_row", tpr},
            {"rows_per_block", rpb},
            {"vec", vec},
            {"cache_row", true},
            {"unroll", std::int64_t{1}},
            {"cluster", cl},
            {"stage", std::string("smem_refill")}};
}

} // namespace

TEST_CASE("smem_refill: constraints, one buffer, register tail with rows in turn") {
    const op& sm = find_op("softmax");
    const op& ln = find_op("layernorm");
    const problem wide{{1024, 131072}, dtype::bf16};
    std::string why;
    config c = refill(512, 8, 1, 8);
    REQUIRE(sm.valid(c, wide, &why));
    INFO(why);
    const launch_geometry g = sm.geometry(c, wide);
    CHECK(g.grid[0] == 128u);
    CHECK(g.block[0] == 512u);
    // One buffer of 192 KiB; the other 64 KiB of the 256 KiB row in registers (8 rounds).
    CHECK(g.shared_bytes == 192u * 1024u);
    const std::string src = sm.source(c, wide);
    CHECK(src.find("#define STAGE_smem_tma 1") != std::string::npos);
    CHECK(src.find("#define REFILL 1") != std::string::npos);
    CHECK(src.find("#define REG_ROUNDS 8") != std::string::npos);
    CHECK(ln.valid(c, wide, &why));
    // Rows in turn only, and at least 128 blocks.
    c.set("rows_per_block", std::int64_t{1});
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("rows_per_block >= 2") != std::string::npos);
    CHECK_FALSE(sm.valid(refill(512, 8, 1, 8), {{4096, 32768}, dtype::bf16}, &why));
    CHECK(why.find("113 KiB") != std::string::npos); // 64 KiB rows: 3 blocks per SM
    CHECK(sm.valid(refill(512, 8, 1, 4), {{4096, 32768}, dtype::f32}, &why));
    c.set("rows_per_block", std::int64_t{16});
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("128 blocks") != std::string::npos);
    c.set("cluster", std::int64_t{2});
    CHECK(sm.valid(c, wide, &why)); // 64 rows' clusters of 2: 128 blocks
    CHECK(sm.geometry(c, wide).shared_bytes == 128u * 1024u);
    // The smem_tma rules hold (16-byte vectors, the register tail's 128 bytes a thread).
    c = refill(256, 8, 1, 8);
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("128 bytes") != std::string::npos);
    c = refill(512, 8, 1, 4);
    CHECK_FALSE(sm.valid(c, wide, &why));
    // In the cached ops' space, not rowsum's (no store loop to overlap).
    std::size_t n = 0;
    for (const auto& e : sm.enumerate(wide))
        n += e.get<std::string>("stage") == "smem_refill";
    CHECK(n >= 8);
    for (const auto& e : find_op("rowsum").enumerate({{4096, 32768}, dtype::bf16}))
        CHECK(e.get<std::string>("stage") != "smem_refill");
}

TEST_CASE("smem_refill kernels compile with NVRTC for sm_90 (register tail, clusters)") {
    std::set<std::string> seen;
    for (const char* name : {"softmax", "layernorm"}) {
        const op& o = find_op(name);
        for (dtype t : {dtype::f32, dtype::bf16}) {
            const std::int64_t vec = 16 / static_cast<std::int64_t>(size_of(t));
            const problem p{{1024, 131072}, t};
            // bf16: one block of 512 per row (a register tail); fp32: clusters of 2 (tail), 4.
            const config picks[] = {t == dtype::bf16 ? refill(512, 8, 1, vec)
                                                     : refill(1024, 16, 2, vec),
                                    refill(512, 16, t == dtype::bf16 ? 2 : 4, vec)};
            for (const config& c : picks) {
                INFO(name << " " << to_string(t) << " " << c.to_string());
                std::string why;
                CHECK(o.valid(c, p, &why));
                INFO(why);
                const auto r =
                    measure::nvrtc_compile({o.source(c, p), std::string(kernel_name), "sm_90", {}});
                INFO(r.log);
                CHECK(r.ok);
                CHECK(r.cubin.size() > 1000);
            }
        }
    }
}
