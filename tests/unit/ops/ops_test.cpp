// The built-in ops on the CPU: registry, spaces and constraints, and that every op's generated
// source compiles with NVRTC for Hopper (NVRTC needs no GPU).
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/core/error.hpp"
#include "ktune/ops/op.hpp"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace ktune;
using namespace ktune::ops;

TEST_CASE("registry lists the four built-ins and finds them by name") {
    std::set<std::string> names;
    for (const op* o : all_ops())
        names.insert(std::string(o->name()));
    CHECK(names ==
          std::set<std::string>{"softmax", "layernorm", "rowsum", "transpose", "scale_bias_"});
    CHECK(find_op("softmax").name() == "softmax");
    CHECK_THROWS_AS(find_op("gemm"), ktune::error);
    try {
        (void)find_op("gemm");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == error_kind::not_found);
        CHECK(std::string(e.what()).find("transpose") != std::string::npos);
    }
}

TEST_CASE("shapes and dtypes parse, bad text names the expected form") {
    CHECK(parse_shape("8192x4096") == shape2d{8192, 4096});
    CHECK(parse_shape("32,1024") == shape2d{32, 1024});
    CHECK(to_string(shape2d{3, 5}) == "3x5");
    CHECK_THROWS_AS(parse_shape("8192"), ktune::error);
    CHECK_THROWS_AS(parse_shape("0x5"), ktune::error);
    CHECK_THROWS_AS(parse_shape("4x5x"), ktune::error);
    CHECK(parse_dtype("bf16") == dtype::bf16);
    CHECK(parse_dtype("float32") == dtype::f32);
    CHECK_THROWS_AS(parse_dtype("fp8"), ktune::error);
}

TEST_CASE("constraints prune before compiling") {
    const op& sm = find_op("softmax");
    const problem p{{4096, 4096}, dtype::f32};
    std::string why;
    config c = sm.default_config(p);
    REQUIRE(sm.valid(c, p, &why));
    c.set("vec", std::int64_t{8}); // 32 bytes of fp32: too wide
    CHECK_FALSE(sm.valid(c, p, &why));
    CHECK(why.find("16 bytes") != std::string::npos);
    c.set("vec", std::int64_t{4});
    c.set("threads_per_row", std::int64_t{1024});
    c.set("rows_per_block", std::int64_t{2});
    CHECK_FALSE(sm.valid(c, p, &why));
    // A 131072-wide row cannot live in 256 threads' registers. Softmax fp32's default splits it
    // over a cluster of 8, cached in registers; layernorm fp32 stages 256 KiB a block of 1024
    // threads (192 KiB in shared memory, the tail in registers) in clusters of 2; layernorm bf16
    // stages two rows at once in 32 KiB slices (clusters of 8).
    const problem wide{{1024, 131072}, dtype::f32};
    config d = sm.default_config(wide);
    CHECK(sm.valid(d, wide));
    CHECK(d.get<std::string>("stage") == "regs");
    CHECK(d.get<bool>("cache_row"));
    CHECK(d.get<std::int64_t>("cluster") == 8);
    CHECK(d.get<std::int64_t>("vec") == 2); // the H200's best at 1024x131072 (run 3)
    const config ld = find_op("layernorm").default_config(wide);
    CHECK(find_op("layernorm").valid(ld, wide));
    CHECK(ld.get<std::string>("stage") == "smem_tma");
    // 128 KiB slices (docs/perf/kernels.md#layernorm-register-tails)
    CHECK(ld.get<std::int64_t>("cluster") == 4);
    CHECK(ld.get<std::int64_t>("threads_per_row") == 256);
    // One row, 32 KiB slices (docs/perf/kernels.md#last-long-rows).
    CHECK(find_op("layernorm")
              .default_config({{1024, 131072}, dtype::bf16})
              .get<std::int64_t>("cluster") == 8);
    const config mid_long = sm.default_config({{4096, 32768}, dtype::bf16}); // 64 KiB rows
    CHECK(mid_long.get<std::int64_t>("cluster") == 1);
    CHECK(mid_long.get<std::string>("stage") == "smem_tma");
    CHECK(find_op("layernorm")
              .default_config({{4096, 32768}, dtype::f32})
              .get<std::int64_t>("cluster") == 1);
    // Rows that fit 256 threads' registers keep the register-cached default.
    CHECK(sm.default_config({{8192, 8192}, dtype::bf16}).get<std::string>("stage") == "regs");
}

TEST_CASE("a row split across a cluster: constraints and geometry") {
    const op& sm = find_op("softmax");
    const problem wide{{1024, 131072}, dtype::f32};
    config c = sm.default_config(wide);
    c.set("stage", std::string("regs"));
    c.set("cluster", std::int64_t{1});
    c.set("cache_row", true);
    c.set("unroll", std::int64_t{1});
    c.set("threads_per_row", std::int64_t{1024});
    c.set("vec", std::int64_t{4});
    std::string why;
    CHECK_FALSE(sm.valid(c, wide, &why)); // 128 floats per thread in one block
    CHECK(why.find("registers") != std::string::npos);
    c.set("cluster", std::int64_t{8}); // 16 floats per thread: fits
    REQUIRE(sm.valid(c, wide, &why));
    const launch_geometry g = sm.geometry(c, wide);
    CHECK(g.grid[0] == 1024u * 8);
    CHECK(g.block[0] == 1024u);
    CHECK(g.cluster[0] == 8u);
    CHECK(sm.source(c, wide).find("__cluster_dims__") != std::string::npos);
    c.set("rows_per_block", std::int64_t{2});
    c.set("threads_per_row", std::int64_t{512});
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("rows_per_block 1") != std::string::npos);
    c.set("rows_per_block", std::int64_t{1});
    c.set("cache_row", false);
    CHECK_FALSE(sm.valid(c, wide, &why));      // the split form is the cached form
    const problem odd{{64, 4100}, dtype::f32}; // 4100 = 4 * 1025: no 8 equal slices of vec 4
    config d = find_op("layernorm").default_config(odd);
    d.set("cluster", std::int64_t{8});
    CHECK_FALSE(find_op("layernorm").valid(d, odd, &why));
    CHECK(why.find("cluster") != std::string::npos);
    // Long rows of both cached ops offer split-row configs; rowsum has no cluster axis.
    for (const char* name : {"softmax", "layernorm"}) {
        std::size_t split = 0;
        for (const auto& e : find_op(name).enumerate(wide))
            split += e.get<std::int64_t>("cluster") > 1;
        CHECK(split >= 10);
    }
    CHECK(find_op("rowsum").geometry(find_op("rowsum").default_config(wide), wide).cluster[0] ==
          1u);
}

TEST_CASE("short rows: several row groups per warp") {
    const op& rs = find_op("rowsum");
    const problem p{{32768, 1024}, dtype::bf16};
    config c = rs.default_config(p);
    c.set("threads_per_row", std::int64_t{16});
    c.set("rows_per_block", std::int64_t{1});
    std::string why;
    CHECK_FALSE(rs.valid(c, p, &why)); // a 16-thread block is half a warp
    CHECK(why.find("whole warps") != std::string::npos);
    c.set("rows_per_block", std::int64_t{16});
    REQUIRE(rs.valid(c, p, &why));
    const launch_geometry g = rs.geometry(c, p);
    CHECK(g.grid[0] == 32768u / 16);
    CHECK(g.block[0] == 256u);
    c.set("threads_per_row", std::int64_t{12});
    CHECK_FALSE(rs.valid(c, p, &why));
    CHECK(why.find("power of two") != std::string::npos);
}

TEST_CASE("every op enumerates a non-trivial valid space containing its default") {
    for (const op* o : all_ops()) {
        for (dtype t : {dtype::f32, dtype::bf16}) {
            const problem p{{8192, 8192}, t};
            INFO(o->name() << " " << to_string(t));
            const auto all = o->enumerate(p);
            CHECK(all.size() >= 40);
            const config d = o->default_config(p);
            CHECK(std::find(all.begin(), all.end(), d) != all.end());
            for (const auto& c : all)
                CHECK(o->valid(c, p));
            CHECK(o->bytes(p) > 0);
        }
    }
}

TEST_CASE("byte models count each input once and each output once") {
    const problem p{{1024, 2048}, dtype::bf16};
    CHECK(find_op("softmax").bytes(p) == Approx(2.0 * 1024 * 2048 * 2));
    CHECK(find_op("transpose").bytes(p) == Approx(2.0 * 1024 * 2048 * 2));
    CHECK(find_op("rowsum").bytes(p) == Approx((1024.0 * 2048 + 1024) * 2));
    CHECK(find_op("layernorm").bytes(p) == Approx((2.0 * 1024 * 2048 + 2 * 2048) * 2));
}

TEST_CASE("shape buckets: rows to a power of two, exact cols for row ops") {
    CHECK(find_op("softmax").bucket({3000, 1000}) == shape2d{4096, 1000});
    CHECK(find_op("transpose").bucket({3000, 1000}) == shape2d{4096, 1024});
}

TEST_CASE("split-row and sub-warp kernels compile with NVRTC for sm_90") {
    for (const char* name : {"softmax", "layernorm", "rowsum"}) {
        const op& o = find_op(name);
        for (dtype t : {dtype::f32, dtype::bf16}) {
            for (const problem p : {problem{{64, 65536}, t}, problem{{64, 512}, t}}) {
                std::vector<config> picks;
                for (const auto& c : o.enumerate(p)) {
                    const bool split = c.find("cluster") && c.get<std::int64_t>("cluster") > 1;
                    const bool sub = c.get<std::int64_t>("threads_per_row") < 32;
                    if ((split || sub) && picks.size() < 2) picks.push_back(c);
                }
                INFO(name << " " << to_string(t) << " " << to_string(p.shape));
                if (std::string(name) != "rowsum" || p.shape.cols == 512)
                    CHECK_FALSE(picks.empty());
                for (const config& c : picks) {
                    INFO(c.to_string());
                    const auto r = compile::nvrtc_compile(
                        {o.source(c, p), std::string(kernel_name), "sm_90", {}});
                    CHECK(r.ok);
                    CHECK(r.cubin.size() > 1000);
                }
            }
        }
    }
}

TEST_CASE("generated sources differ per config and compile with NVRTC for sm_90") {
    for (const op* o : all_ops()) {
        for (dtype t : {dtype::f32, dtype::bf16}) {
            const problem p{{256, 1024}, t};
            INFO(o->name() << " " << to_string(t));
            const auto all = o->enumerate(p);
            REQUIRE(all.size() >= 2);
            CHECK(o->source(all.front(), p) != o->source(all.back(), p));
            // Default, first and last configs cover both code paths of the row ops.
            for (const config& c : {o->default_config(p), all.front(), all.back()}) {
                INFO(c.to_string());
                compile::compile_request rq{o->source(c, p), std::string(kernel_name), "sm_90", {}};
                const auto r = compile::nvrtc_compile(rq);
                CHECK(r.ok);
                CHECK(r.lowered_name == kernel_name);
                CHECK(r.cubin.size() > 1000);
            }
            compile::compile_request ref{
                o->reference_source(p), std::string(kernel_name), "sm_90", {}};
            CHECK(compile::nvrtc_compile(ref).ok);
        }
    }
}

TEST_CASE("shared-memory stage: constraints, dynamic shared memory and geometry") {
    const op& sm = find_op("softmax");
    const op& ln = find_op("layernorm");
    const problem wide{{1024, 131072}, dtype::bf16};
    config c = sm.default_config(wide);
    c.set("threads_per_row", std::int64_t{256});
    c.set("cluster", std::int64_t{1});
    c.set("stage", std::string("smem_tma"));
    c.set("cache_row", true);
    c.set("unroll", std::int64_t{1});
    c.set("vec", std::int64_t{8});
    std::string why;
    CHECK_FALSE(sm.valid(c, wide, &why)); // 256 KiB of bf16 in one block
    CHECK(why.find("226 KiB") != std::string::npos);
    c.set("cluster", std::int64_t{2});
    REQUIRE(sm.valid(c, wide, &why));
    launch_geometry g = sm.geometry(c, wide);
    CHECK(g.shared_bytes == 131072u); // half the row, 2 bytes each
    CHECK(g.cluster[0] == 2u);
    CHECK(g.grid[0] == 2048u);
    const std::string src = sm.source(c, wide);
    CHECK(src.find("cp.async.bulk") != std::string::npos);
    CHECK(src.find("#define STAGE_smem_tma 1") != std::string::npos);
    const problem mid{{8192, 8192}, dtype::bf16};
    CHECK(sm.source(sm.default_config(mid), mid).find("cp.async.bulk") == std::string::npos);
    CHECK(ln.valid(c, wide, &why)); // layernorm stages x only (gamma/beta come from L2)
    // layernorm keeps a 128 KiB slice's tail in registers (96 KiB staged, two blocks a SM).
    CHECK(ln.geometry(c, wide).shared_bytes == 98304u);
    // Rows in turn (two buffers, the next row's copies in flight) are out of the space (they
    // never won on the H200); the kernels keep them, and their geometry holds.
    c.set("rows_per_block", std::int64_t{2});
    c.set("cluster", std::int64_t{4});
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("rows_per_block 1") != std::string::npos);
    g = sm.geometry(c, wide);
    CHECK(g.shared_bytes == 2u * 32768 * 2);
    CHECK(g.grid[0] == 1024u / 2 * 4);
    CHECK(g.block[0] == 256u); // one row group per block, whatever rows_per_block
    CHECK(sm.source(c, wide).find("#define KTUNE_BLOCK 256") != std::string::npos);
    c.set("rows_per_block", std::int64_t{1});
    c.set("cluster", std::int64_t{2});
    // 16-byte shared-memory vectors, whole warps, one row per block, the cached form only.
    c.set("vec", std::int64_t{4});
    CHECK_FALSE(sm.valid(c, wide, &why));
    CHECK(why.find("16-byte") != std::string::npos);
    c.set("vec", std::int64_t{8});
    c.set("cache_row", false);
    CHECK_FALSE(sm.valid(c, wide, &why));
    // A short row needs no cluster.
    const problem narrow{{8192, 8192}, dtype::bf16};
    c.set("cache_row", true);
    c.set("cluster", std::int64_t{2});
    CHECK_FALSE(sm.valid(c, narrow, &why));
    CHECK(why.find("32 KiB") != std::string::npos);
    c.set("cluster", std::int64_t{1});
    CHECK(sm.valid(c, narrow, &why));
    // Every row op offers staged configs on long rows; rowsum's only while a row fits a block.
    for (const char* name : {"softmax", "layernorm", "rowsum"}) {
        std::size_t staged = 0;
        for (const auto& e : find_op(name).enumerate({{4096, 32768}, dtype::bf16}))
            staged += e.get<std::string>("stage") == "smem_tma";
        INFO(name);
        CHECK(staged >= 5);
    }
    for (const auto& e : find_op("rowsum").enumerate({{1024, 131072}, dtype::f32}))
        CHECK(e.get<std::string>("stage") == "regs");
}

TEST_CASE("shared-memory stage kernels compile with NVRTC for sm_90 (one per op, dtype, size)") {
    for (const char* name : {"softmax", "layernorm", "rowsum"}) {
        const op& o = find_op(name);
        for (dtype t : {dtype::f32, dtype::bf16}) {
            for (const problem p : {problem{{64, 131072}, t}, problem{{64, 4096}, t}}) {
                std::vector<config> picks;
                for (const auto& c : o.enumerate(p))
                    if (c.get<std::string>("stage") == "smem_tma") picks.push_back(c);
                INFO(name << " " << to_string(t) << " " << to_string(p.shape));
                if (std::string(name) == "rowsum" && p.shape.cols == 131072) {
                    CHECK(picks.empty());
                    continue;
                }
                REQUIRE_FALSE(picks.empty());
                // One each (NVRTC costs ~0.3 s a kernel): the smallest blocks on short rows, the
                // largest blocks and clusters on long ones.
                for (const config& c : {p.shape.cols == 4096 ? picks.front() : picks.back()}) {
                    INFO(c.to_string());
                    const auto r = compile::nvrtc_compile(
                        {o.source(c, p), std::string(kernel_name), "sm_90", {}});
                    INFO(r.log);
                    CHECK(r.ok);
                    CHECK(r.cubin.size() > 1000);
                }
            }
        }
    }
}

TEST_CASE("the built-in ops' arguments in the general problem model give their buffers") {
    // docs/formats.md#ktuneops: buffers sized by expressions of rows and cols, then the int32
    // scalars rows and cols; in place = an output that is also filled.
    const ktune::ops::problem p{{3, 5}, ktune::ops::dtype::bf16};
    using bs = std::vector<std::tuple<std::string, std::size_t, bool, bool>>;
    const std::map<std::string, bs> expected{
        {"softmax", {{"x", 15, false, false}, {"y", 15, true, false}}},
        {"layernorm",
         {{"x", 15, false, false},
          {"gamma", 5, false, false},
          {"beta", 5, false, false},
          {"y", 15, true, false}}},
        {"rowsum", {{"x", 15, false, false}, {"y", 3, true, false}}},
        {"transpose", {{"x", 15, false, false}, {"y", 15, true, false}}},
        {"scale_bias_",
         {{"x", 15, true, true}, {"gamma", 5, false, false}, {"beta", 5, false, false}}},
    };
    REQUIRE(ktune::ops::all_ops().size() == expected.size());
    for (const auto* o : ktune::ops::all_ops()) {
        INFO(o->name());
        bs got;
        for (const auto& b : o->buffers(p))
            got.emplace_back(b.name, b.elements, b.output, b.in_place);
        CHECK(got == expected.at(std::string(o->name())));
        CHECK(o->scalars(p) == std::vector<std::int32_t>{3, 5});
        for (const auto& a : o->arguments(p))
            if (a.kind == ktune::kernel::argument_kind::buffer)
                CHECK(a.type == ktune::kernel::element_type::bf16);
    }
    CHECK(ktune::ops::dimensions(p).to_string() == "rows=3,cols=5");
}

TEST_CASE("layernorm's odd staged rows read operands shifted once a launch where the row is "
          "128 KiB or less") {
    // docs/perf/kernels.md#layernorm-shifted-operands: the op's workspace (vec copies of gamma
    // and beta, written by the prologue), and the form the source picks for a config.
    const op& ln = find_op("layernorm");
    const problem odd{{4096, 32001}, dtype::bf16};
    const problem aligned{{4096, 32000}, dtype::bf16};
    const problem long_fp32{{4096, 50257}, dtype::f32};
    CHECK(ln.workspace_elements(odd) == 2 * 8 * (32001 + 16));
    CHECK(ln.workspace_elements({{4096, 32001}, dtype::f32}) == 2 * 4 * (32001 + 8));
    CHECK(ln.workspace_elements(aligned) == 0);
    for (const auto* o : all_ops())
        if (o->name() != "layernorm") CHECK(o->workspace_elements(odd) == 0);

    const auto defines = [&](const config& c, const problem& p, const char* line) {
        return ln.source(c, p).find(line) != std::string::npos;
    };
    const config d = ln.default_config(odd);
    REQUIRE(d.get<std::string>("stage") == "smem_tma");
    CHECK(defines(d, odd, "#define SHIFTED_OPS 1\n"));
    const config f = ln.default_config(long_fp32); // 196 KiB rows keep the shift in the threads
    REQUIRE(f.get<std::string>("stage") == "smem_tma");
    CHECK(defines(f, long_fp32, "#define SHIFTED_OPS 0\n"));
    CHECK_FALSE(defines(ln.default_config(aligned), aligned, "#define SHIFTED_OPS"));

    // By hand: either form on odd staged rows, never on aligned ones or beside ragged_ring.
    config on = f;
    on.set("shifted_ops", true);
    CHECK(ln.valid(on, long_fp32));
    CHECK(defines(on, long_fp32, "#define SHIFTED_OPS 1\n"));
    config off = d;
    off.set("shifted_ops", false);
    CHECK(ln.valid(off, odd));
    CHECK(defines(off, odd, "#define SHIFTED_OPS 0\n"));
    config bad = ln.default_config(aligned);
    bad.set("shifted_ops", true);
    std::string why;
    CHECK_FALSE(ln.valid(bad, aligned, &why));
    CHECK(why.find("shifted_ops") != std::string::npos);
    config ring = d;
    ring.set("ragged_ring", std::int64_t{1});
    ring.set("shifted_ops", true);
    CHECK_FALSE(ln.valid(ring, odd));
    // The operands' ring depth is the shifted form's (gb_prefetch), not the threads' form's.
    config depth = d;
    depth.set("gb_prefetch", std::int64_t{0});
    CHECK(ln.valid(depth, odd));
    depth = f;
    depth.set("gb_prefetch", std::int64_t{0});
    CHECK_FALSE(ln.valid(depth, long_fp32));
}

TEST_CASE("layernorm's odd staged rows over 112 KiB keep their span's tail in registers, two "
          "blocks a SM") {
    // docs/perf/kernels.md#layernorm-ragged-tails: as an aligned slice (96 KiB staged, at most
    // 128 bytes a thread in registers, blocks of at most 512 threads); spans over 226 KiB are
    // not staged; softmax's odd rows stay staged whole (its kernel has no such form).
    const op& ln = find_op("layernorm");
    const problem odd{{4096, 32001}, dtype::f32}; // a span of 8001 vectors: 125 KiB
    const auto source = [&](const config& c, const problem& p) { return ln.source(c, p); };
    const auto has = [](const std::string& src, const char* line) {
        return src.find(line) != std::string::npos;
    };
    // The host's REG_ROUNDS line comes first; tma.cuh defines 0 where it sets none.
    const auto tail_rounds = [](const std::string& src) {
        const std::size_t at = src.find("#define REG_ROUNDS ");
        return at == std::string::npos ? -1 : std::stoi(src.substr(at + 19));
    };
    config c{{"threads_per_row", std::int64_t{512}},
             {"rows_per_block", std::int64_t{1}},
             {"vec", std::int64_t{4}},
             {"cache_row", true},
             {"unroll", std::int64_t{1}},
             {"cluster", std::int64_t{1}},
             {"stage", std::string("smem_tma")}};
    REQUIRE(ln.valid(c, odd));
    const std::string src = source(c, odd);
    CHECK(has(src, "#define REG_ROUNDS 4\n")); // (8001 - 6144) vectors over 512 threads
    CHECK(has(src, "#define KTUNE_TWO_BLOCKS 1\n"));
    CHECK(has(src, "#define SHIFTED_OPS 1\n"));
    CHECK(ln.geometry(c, odd).shared_bytes == (8001 - 4 * 512) * 16);
    config whole = c;
    whole.set("tma_reg_tail", false); // staged whole: one block a SM
    REQUIRE(ln.valid(whole, odd));
    CHECK(tail_rounds(source(whole, odd)) == 0);
    CHECK(ln.geometry(whole, odd).shared_bytes == 8001 * 16);
    // 256 threads: 8 rounds, 128 bytes a thread; a 141 KiB span would need 12 there (staged
    // whole), 6 at 512 (its operands shifted in the threads: over 128 KiB).
    c.set("threads_per_row", std::int64_t{256});
    CHECK(has(source(c, odd), "#define REG_ROUNDS 8\n"));
    const problem longer{{64, 36001}, dtype::f32};
    CHECK(tail_rounds(source(c, longer)) == 0);
    c.set("threads_per_row", std::int64_t{512});
    const std::string lsrc = source(c, longer);
    CHECK(has(lsrc, "#define REG_ROUNDS 6\n"));
    CHECK(has(lsrc, "#define SHIFTED_OPS 0\n"));
    // The default takes it (512 threads, two blocks a SM) where it took 1024 threads staged
    // whole; spans of 196 KiB keep 1024 threads staged whole.
    const config d = ln.default_config(odd);
    CHECK(d.get<std::int64_t>("threads_per_row") == 512);
    CHECK(tail_rounds(source(d, odd)) == 4);
    const problem wide{{4096, 50257}, dtype::f32};
    const config w = ln.default_config(wide);
    CHECK(w.get<std::int64_t>("threads_per_row") == 1024);
    CHECK(tail_rounds(source(w, wide)) == 0);
    // Softmax has no tail form for odd rows: the same config is staged whole or not at all.
    const op& sm = find_op("softmax");
    REQUIRE(sm.valid(c, odd));
    CHECK(tail_rounds(sm.source(c, odd)) == 0);
}
