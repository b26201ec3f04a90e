// stage = smem_refill (session 4, round 2): a block takes rows in turn through one staged
// buffer and refills each chunk with the next row's as soon as the block has read it for the
// stores, so one block per SM (a 192 KiB-plus slice) overlaps its stores with the next row's
// loads. Measured slower on the H200 (docs/perf/kernels.md): out of the space, kept in the
// kernels like the ring. Its rules (checked before the refusal), the one buffer, the register
// tail with rows in turn, the source, and an NVRTC compile of the forms the GPU test runs.
#include "catch.hpp"

#include "ktune/measure/compile.hpp"
#include "ktune/ops/op.hpp"

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
    // Every rule but the measurement holds: the refusal names it.
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("measured slower") != std::string::npos);
    const launch_geometry g = sm.geometry(c, wide);
    CHECK(g.grid[0] == 128u);
    CHECK(g.block[0] == 512u);
    // One buffer of 192 KiB; the other 64 KiB of the 256 KiB row in registers (8 rounds).
    CHECK(g.shared_bytes == 192u * 1024u);
    const std::string src = sm.source(c, wide);
    CHECK(src.find("#define STAGE_smem_tma 1") != std::string::npos);
    CHECK(src.find("#define REFILL 1") != std::string::npos);
    CHECK(src.find("#define REG_ROUNDS 8") != std::string::npos);
    CHECK_FALSE(ln.valid(c, wide, &why));
    CHECK(why.find("measured slower") != std::string::npos);
    // Rows in turn only, and at least 128 blocks.
    c.set("rows_per_block", std::int64_t{1});
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("rows_per_block >= 2") != std::string::npos);
    CHECK_FALSE(sm.valid(refill(512, 8, 1, 8), {{4096, 32768}, dtype::bf16}, &why));
    CHECK(why.find("113 KiB") != std::string::npos); // 64 KiB rows: 3 blocks per SM
    CHECK_FALSE(sm.valid(refill(512, 8, 1, 4), {{4096, 32768}, dtype::f32}, &why));
    CHECK(why.find("measured slower") != std::string::npos); // 128 KiB rows
    c.set("rows_per_block", std::int64_t{16});
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("128 blocks") != std::string::npos);
    c.set("cluster", std::int64_t{2});
    CHECK_FALSE(sm.valid(c, wide, &why)); // 64 rows' clusters of 2: 128 blocks
    CHECK(why.find("measured slower") != std::string::npos);
    CHECK(sm.geometry(c, wide).shared_bytes == 128u * 1024u);
    // The smem_tma rules hold (16-byte vectors, the register tail's 128 bytes a thread).
    c = refill(256, 8, 1, 8);
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("128 bytes") != std::string::npos);
    c = refill(512, 8, 1, 4);
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("16-byte") != std::string::npos);
    // In no op's space.
    for (const op* o : all_ops())
        for (const auto& e : o->enumerate(wide))
            CHECK_FALSE((e.find("stage") && e.get<std::string>("stage") == "smem_refill"));
}

TEST_CASE("smem_refill kernels compile with NVRTC for sm_90 (register tail, clusters)") {
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
                CHECK_FALSE(o.valid(c, p, &why));
                CHECK(why.find("measured slower") != std::string::npos); // all else holds
                const auto r =
                    measure::nvrtc_compile({o.source(c, p), std::string(kernel_name), "sm_90", {}});
                INFO(r.log);
                CHECK(r.ok);
                CHECK(r.cubin.size() > 1000);
            }
        }
    }
}
