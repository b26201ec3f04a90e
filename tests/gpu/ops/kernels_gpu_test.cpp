// The row kernels' newer forms on a real GPU, checked against the reference kernels: rows split
// across a thread-block cluster (softmax, layernorm) and row groups smaller than a warp (all row
// ops), on odd row counts. Compiled like the tuner does (cubin cache, pool), run in a worker.
#include "catch.hpp"

#include "ops_gpu_support.hpp"

#include "ktune/ops/op.hpp"

#include <functional>

using namespace ktune;

using namespace ktune::ops::gpu_test;

namespace {

/// At most `cap` configs of the space that satisfy `keep`, spread evenly over it.
std::vector<config> pick(const ops::op& o, const ops::problem& p,
                         const std::function<bool(const config&)>& keep, std::size_t cap) {
    std::vector<config> all;
    for (auto& c : o.enumerate(p))
        if (keep(c)) all.push_back(std::move(c));
    if (all.size() <= cap) return all;
    std::vector<config> out;
    for (std::size_t i = 0; i < cap; ++i)
        out.push_back(all[i * all.size() / cap]);
    return out;
}

/// Up to `cap` configs of the space whose vec does not divide p's rows (the ragged forms) and
/// that `keep` accepts; the space must hold at least two.
std::vector<config> ragged_configs(const ops::op& o, const ops::problem& p,
                                   const std::function<bool(const config&)>& keep,
                                   std::size_t cap) {
    auto cs = pick(
        o, p,
        [&](const config& c) { return p.shape.cols % c.get<std::int64_t>("vec") != 0 && keep(c); },
        cap);
    CHECK(cs.size() >= 2);
    return cs;
}

bool any(const config&) {
    return true;
}

std::int64_t get_or(const config& c, const char* name, std::int64_t fallback) {
    return c.find(name) ? c.get<std::int64_t>(name) : fallback;
}

} // namespace

TEST_CASE("rows split across a cluster match the reference (softmax, layernorm)") {
    std::vector<job> jobs;
    for (const char* name : {"softmax", "layernorm"}) {
        const ops::op& o = ops::find_op(name);
        for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
            for (ops::shape2d s : {ops::shape2d{37, 32768}, ops::shape2d{5, 131072}}) {
                const ops::problem p{s, t};
                const auto cs = pick(
                    o, p, [](const config& c) { return get_or(c, "cluster", 1) > 1; }, 10);
                CHECK(cs.size() >= 6);
                for (const auto& c : cs)
                    jobs.push_back({&o, p, c});
            }
        }
    }
    check_all(jobs);
}

TEST_CASE("row groups smaller than a warp match the reference (short rows)") {
    std::vector<job> jobs;
    for (const char* name : {"softmax", "layernorm", "rowsum"}) {
        const ops::op* o = &ops::find_op(name);
        for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
            const ops::problem p{{999, 512}, t};
            const auto cs = pick(
                *o, p, [](const config& c) { return c.get<std::int64_t>("threads_per_row") < 32; },
                6);
            CHECK(cs.size() >= 3);
            for (const auto& c : cs)
                jobs.push_back({o, p, c});
        }
    }
    check_all(jobs);
}

TEST_CASE("rows staged in shared memory by bulk copies match the reference") {
    std::vector<job> jobs;
    std::size_t in_turn = 0;
    const auto staged = [](const config& c) {
        return c.find("stage") && c.get<std::string>("stage") == "smem_tma";
    };
    for (const char* name : {"softmax", "layernorm", "rowsum"}) {
        const ops::op& o = ops::find_op(name);
        for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
            // One row (slice) per block: odd row counts, split rows, short rows.
            for (ops::shape2d s :
                 {ops::shape2d{37, 32768}, ops::shape2d{5, 131072}, ops::shape2d{999, 4096}}) {
                const ops::problem p{s, t};
                const auto cs = pick(o, p, staged, 8);
                // rowsum has no cluster: a 131072-long row does not fit one block.
                if (std::string(name) != "rowsum" || s.cols * ops::size_of(t) <= 226 * 1024)
                    CHECK(cs.size() >= 3);
                for (const auto& c : cs)
                    jobs.push_back({&o, p, c});
            }
            // Rows in turn (double-buffered, barrier phases flipping), a partial last block:
            // out of the space (valid() rejects them, see row_op.cpp), kept in the kernels.
            for (ops::shape2d s : {ops::shape2d{4099, 2048}, ops::shape2d{1025, 32768}}) {
                const ops::problem p{s, t};
                const auto fits_two = [&](const config& c) {
                    return staged(c) && 2 * s.cols / get_or(c, "cluster", 1) *
                                                static_cast<std::int64_t>(ops::size_of(t)) <=
                                            200 * 1024;
                };
                for (const auto& c : pick(o, p, fits_two, 3)) {
                    for (std::int64_t rpb : {2, 4}) {
                        config d = c;
                        d.set("rows_per_block", rpb);
                        jobs.push_back({&o, p, d});
                        ++in_turn;
                    }
                }
            }
        }
    }
    CHECK(in_turn >= 30);
    check_all(jobs);
}

TEST_CASE("rows that vec does not divide match the reference (every op)") {
    // The ragged forms (docs/perf/kernels.md#rows-of-odd-length): a scalar head and tail per row
    // (softmax, layernorm with gamma and beta shifted, rowsum), flat vectors crossing rows
    // (scale_bias_), tile rows read as the aligned vectors covering them (transpose). Odd and
    // prime row lengths; 40 rows (every vec divides it: transpose's output rows).
    std::vector<job> jobs;
    for (const ops::op* o : ops::all_ops())
        for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16})
            for (std::int64_t cols : {13, 777, 4093, 32001, 50257}) {
                const ops::problem p{{40, cols}, t};
                INFO(o->name() << " " << cols);
                for (auto& c : ragged_configs(*o, p, any, 6))
                    jobs.push_back({o, p, std::move(c)});
            }
    // Transpose's micro form on odd input rows: micro-rows shifted out of two aligned vectors,
    // the last micro-tile of a row ending past it (partial tiles both ways at 1000 rows).
    const ops::op& tr = ops::find_op("transpose");
    const auto micro = [](const config& c) { return c.get<std::string>("form") == "micro"; };
    for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16})
        for (ops::shape2d s : {ops::shape2d{40, 777}, ops::shape2d{1000, 4093}}) {
            const ops::problem p{s, t};
            INFO("transpose micro " << ops::to_string(t) << " " << ops::to_string(s));
            for (auto& c : ragged_configs(tr, p, micro, 4))
                jobs.push_back({&tr, p, std::move(c)});
        }
    check_all(jobs);
}

TEST_CASE("softmax and layernorm rows that vec does not divide, staged whole, match the "
          "reference") {
    // tma.cuh's span (docs/perf/kernels.md#rows-of-odd-length): the row's aligned span by bulk
    // copies, a runtime number of vectors per row, the neighbours' places masked on read and
    // never written; softmax's exp once (the staged default) and twice (hand-set
    // exp_once=false), layernorm's shifted sums and gamma/beta shifted to the row.
    // Layernorm's operands shifted once a launch (the prologue's workspace, rows of 128 KiB and
    // less by default, docs/perf/kernels.md#layernorm-shifted-operands) and in the threads, each
    // form also set by hand (shifted_ops).
    const auto staged = [](const config& c) { return c.get<std::string>("stage") == "smem_tma"; };
    std::vector<job> jobs;
    std::size_t shifted = 0;
    for (const char* name : {"softmax", "layernorm"}) {
        const ops::op& o = ops::find_op(name);
        for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16})
            for (ops::shape2d s : {ops::shape2d{40, 777}, ops::shape2d{8, 32001},
                                   ops::shape2d{16, 50257}, ops::shape2d{24, 9001}}) {
                const ops::problem p{s, t};
                INFO(name << " " << ops::to_string(t) << " " << ops::to_string(s));
                for (const auto& c : ragged_configs(o, p, staged, 4)) {
                    jobs.push_back({&o, p, c});
                    if (o.name() == "layernorm")
                        for (const bool on : {false, true}) {
                            config b = c;
                            b.set("shifted_ops", on);
                            CHECK(o.valid(b, p));
                            jobs.push_back({&o, p, b});
                            ++shifted;
                        }
                    if (o.name() != "softmax") continue;
                    config twice = c;
                    twice.set("exp_once", false);
                    jobs.push_back({&o, p, twice});
                }
            }
    }
    CHECK(shifted >= 32);
    check_all(jobs);
}

TEST_CASE("layernorm's odd rows with their span's tail in registers match the reference") {
    // Spans over 112 KiB: 96 KiB staged, the rest in registers, two blocks a SM
    // (docs/perf/kernels.md#layernorm-ragged-tails); a span's last vectors past its end are not
    // loaded (the last row's tail ends the tensor, on a 16-byte boundary). Spans of 128 KiB and
    // less read the shifted operands by default, longer ones shift them in the threads; both forms
    // by hand, the shifted one with the operands' ring too (gb_prefetch).
    const ops::op& ln = ops::find_op("layernorm");
    std::vector<job> jobs;
    struct odd {
        ops::dtype t;
        ops::shape2d s;
        std::int64_t min_tpr; // spans over 128 KiB: 128 bytes a thread of tail need 512
    };
    for (const odd& o :
         {odd{ops::dtype::f32, {24, 32001}, 256}, odd{ops::dtype::f32, {8, 36001}, 512},
          odd{ops::dtype::bf16, {16, 60001}, 256}, odd{ops::dtype::bf16, {8, 70001}, 512}}) {
        const ops::dtype t = o.t;
        const ops::problem p{o.s, t};
        INFO(ops::to_string(t) << " " << ops::to_string(o.s));
        for (std::int64_t tpr = o.min_tpr; tpr <= 512; tpr *= 2) {
            config c{{"threads_per_row", tpr},
                     {"rows_per_block", std::int64_t{1}},
                     {"vec", std::int64_t{16 / static_cast<std::int64_t>(ops::size_of(t))}},
                     {"cache_row", true},
                     {"unroll", std::int64_t{1}},
                     {"cluster", std::int64_t{1}},
                     {"stage", std::string("smem_tma")}};
            REQUIRE(ln.valid(c, p));
            // The host's line (tma.cuh defines 0 after it where there is none).
            const std::string src = ln.source(c, p);
            CHECK(src.find("#define REG_ROUNDS") < src.find("#define REG_ROUNDS 0"));
            jobs.push_back({&ln, p, c});
            for (const bool on : {false, true}) {
                config b = c;
                b.set("shifted_ops", on);
                REQUIRE(ln.valid(b, p));
                jobs.push_back({&ln, p, b});
                if (!on) continue;
                b.set("gb_prefetch", std::int64_t{2});
                REQUIRE(ln.valid(b, p));
                jobs.push_back({&ln, p, b});
            }
        }
    }
    check_all(jobs);
}

TEST_CASE("default configs match the reference at every benchmark row length") {
    // The defaults (staged rows over 32 KiB, long softmax rows over a cluster of 8) at the
    // benchmark sweep's row lengths, with few rows (a partial wave; 40: every vec divides it).
    std::vector<job> jobs;
    for (const ops::op* o : ops::all_ops())
        for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16})
            for (std::int64_t cols : {1024, 4096, 8192, 32768, 131072}) {
                const ops::problem p{{40, cols}, t};
                const config d = o->default_config(p);
                INFO(o->name() << " " << cols << " " << d.to_string());
                CHECK(o->valid(d, p));
                jobs.push_back({o, p, d});
            }
    check_all(jobs);
}

TEST_CASE("slices with a register tail, 128-tile and micro transposes match the reference") {
    // Configs built by hand: the space needs >= 128 blocks, which these small problems (odd row
    // counts, a partial last block) do not have; the kernels do not care.
    std::vector<job> jobs;
    const auto staged = [](std::int64_t tpr, std::int64_t cl, std::int64_t vec) {
        return config{{"threads_per_row", tpr},
                      {"rows_per_block", std::int64_t{1}},
                      {"vec", vec},
                      {"unroll", std::int64_t{1}},
                      {"cache_row", true},
                      {"cluster", cl},
                      {"stage", std::string("smem_tma")}};
    };
    // Staged slices over 226 KiB: 192 KiB staged, the tail in registers (in the space).
    std::size_t hybrid = 0;
    for (const char* name : {"softmax", "layernorm"}) {
        const ops::op& o = ops::find_op(name);
        for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
            const std::int64_t vec = 16 / static_cast<std::int64_t>(ops::size_of(t));
            const ops::problem p{{37, 131072}, t};
            for (std::int64_t tpr : {512, 1024}) {
                const config c = staged(tpr, t == ops::dtype::f32 ? 2 : 1, vec);
                INFO(c.to_string());
                CHECK(o.valid(c, p));
                jobs.push_back({&o, p, c});
                ++hybrid;
            }
        }
    }
    CHECK(hybrid == 8);
    const ops::op& tr = ops::find_op("transpose");
    std::size_t tiles = 0;
    for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
        const ops::problem p{{1000, 4104}, t}; // partial tiles both ways
        for (auto& c : pick(
                 tr, p,
                 [](const config& c) {
                     return c.get<std::int64_t>("tile") == 128 ||
                            c.get<std::string>("form") == "micro";
                 },
                 12)) {
            jobs.push_back({&tr, p, std::move(c)});
            ++tiles;
        }
    }
    CHECK(tiles >= 12);
    check_all(jobs);
}

TEST_CASE("softmax exp_once (e kept over the row, bf16 as fp16) matches the reference") {
    // docs/perf/kernels.md#softmax-exp-once: staged rows take exp once (chunks of several rounds,
    // register tails, clusters), with the hand-set key exp_once=false the two-exp form;
    // register-cached rows (split rows, sub-warp groups, vec 1: the unpaired fp16 path) with
    // exp_once=true; and hand-built one-block-per-256-KiB configs on odd row counts.
    const ops::op& o = ops::find_op("softmax");
    const auto with = [](config c, bool v) {
        c.set("exp_once", v);
        return c;
    };
    std::vector<job> jobs;
    for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
        for (ops::shape2d s :
             {ops::shape2d{37, 32768}, ops::shape2d{5, 131072}, ops::shape2d{999, 4096},
              ops::shape2d{999, 512}, ops::shape2d{301, 1000}}) {
            const ops::problem p{s, t};
            const auto staged = pick(
                o, p, [](const config& c) { return c.get<std::string>("stage") == "smem_tma"; }, 6);
            const auto regs = pick(
                o, p,
                [](const config& c) {
                    return c.get<std::string>("stage") == "regs" && c.get<bool>("cache_row");
                },
                6);
            INFO(ops::to_string(t) << " " << ops::to_string(s));
            CHECK(staged.size() + regs.size() >= 4);
            for (const auto& c : staged) {
                jobs.push_back({&o, p, c});
                jobs.push_back({&o, p, with(c, false)});
            }
            for (const auto& c : regs)
                jobs.push_back({&o, p, with(c, true)});
        }
        const std::int64_t vec = 16 / static_cast<std::int64_t>(ops::size_of(t));
        const ops::problem p{{37, 131072}, t};
        for (std::int64_t tpr : {512, 1024}) {
            const config c{{"threads_per_row", tpr},
                           {"rows_per_block", std::int64_t{1}},
                           {"vec", vec},
                           {"cache_row", true},
                           {"unroll", std::int64_t{1}},
                           {"cluster", std::int64_t{t == ops::dtype::f32 ? 2 : 1}},
                           {"stage", std::string("smem_tma")},
                           {"exp_once", true}};
            CHECK(o.valid(c, p));
            jobs.push_back({&o, p, c});
        }
    }
    CHECK(jobs.size() >= 60);
    check_all(jobs);
}

TEST_CASE("layernorm rows at once (smem_rows) match the reference") {
    // docs/perf/kernels.md#layernorm-long-rows: rows_per_block rows staged at once, gamma/beta read
    // once for all of them. Odd row counts (a partial last group of rows), clusters 1-8, rows 2-8,
    // both dtypes; configs of the space and hand-built ones (the space's shapes are larger than
    // these problems).
    const ops::op& o = ops::find_op("layernorm");
    const auto rows_form = [](const config& c) {
        return c.find("stage") && c.get<std::string>("stage") == "smem_rows";
    };
    std::vector<job> jobs;
    for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
        for (ops::shape2d s :
             {ops::shape2d{1001, 32768}, ops::shape2d{37, 131072}, ops::shape2d{5, 65536}}) {
            const ops::problem p{s, t};
            const auto cs = pick(o, p, rows_form, 8);
            INFO(ops::to_string(t) << " " << ops::to_string(s));
            CHECK(cs.size() >= 3);
            for (const auto& c : cs)
                jobs.push_back({&o, p, c});
        }
        const std::int64_t vec = 16 / static_cast<std::int64_t>(ops::size_of(t));
        const ops::problem p{{37, 131072}, t};
        struct shape_of_block {
            std::int64_t tpr, rpb, cl;
        };
        for (const shape_of_block b : {shape_of_block{1024, 2, 8}, shape_of_block{512, 4, 8},
                                       shape_of_block{256, 3, 8}, shape_of_block{1024, 2, 4}}) {
            const config c{{"threads_per_row", b.tpr},
                           {"rows_per_block", b.rpb},
                           {"vec", vec},
                           {"cache_row", true},
                           {"unroll", std::int64_t{1}},
                           {"cluster", b.cl},
                           {"stage", std::string("smem_rows")}};
            INFO(c.to_string());
            if (o.valid(c, p)) jobs.push_back({&o, p, c}); // bf16 only for cluster 4
        }
    }
    CHECK(jobs.size() >= 40);
    check_all(jobs);
}

TEST_CASE("layernorm register tails, gamma/beta prefetch and packed bf16 stores match the "
          "reference") {
    // docs/perf/kernels.md#layernorm-register-tails: smem_rows blocks over 112 KiB keep each row's
    // tail in registers (two blocks a SM); the staged forms load the first gb_prefetch rounds of
    // gamma/beta before the statistics exchange; packed_cvt converts bf16 outputs two at a time.
    // Hand-set keys pick each form; odd row counts leave a partial last group, small clusters
    // partial slices.
    const ops::op& o = ops::find_op("layernorm");
    std::vector<job> jobs;
    std::size_t tails = 0;
    for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
        const std::int64_t vec = 16 / static_cast<std::int64_t>(ops::size_of(t));
        for (ops::shape2d s :
             {ops::shape2d{37, 131072}, ops::shape2d{1001, 32768}, ops::shape2d{5, 65536}}) {
            const ops::problem p{s, t};
            struct form {
                std::int64_t tpr, rpb, cl;
                const char* stage;
            };
            for (const form f : {form{256, 2, 4, "smem_rows"}, form{512, 2, 4, "smem_rows"},
                                 form{256, 3, 8, "smem_rows"}, form{256, 4, 8, "smem_rows"},
                                 form{256, 2, 1, "smem_rows"}, form{512, 2, 8, "smem_rows"},
                                 form{1024, 1, 2, "smem_tma"}, form{512, 1, 1, "smem_tma"}}) {
                const config c{{"threads_per_row", f.tpr},
                               {"rows_per_block", f.rpb},
                               {"vec", vec},
                               {"cache_row", true},
                               {"unroll", std::int64_t{1}},
                               {"cluster", f.cl},
                               {"stage", std::string(f.stage)}};
                if (!o.valid(c, p)) continue;
                // The first REG_ROUNDS line is the config's (tma_source's fallback says 0).
                const std::string src = o.source(c, p);
                const auto rr = src.find("#define REG_ROUNDS ");
                if (std::string(f.stage) == "smem_rows" && src.compare(rr + 19, 2, "0\n") != 0)
                    ++tails;
                jobs.push_back({&o, p, c});
                for (std::int64_t pf : {0, 3, 8}) {
                    config k = c;
                    k.set("gb_prefetch", pf);
                    jobs.push_back({&o, p, k});
                }
                config k = c;
                k.set("packed_cvt", false);
                k.set("rows_reg_tail", false);
                if (o.valid(k, p)) jobs.push_back({&o, p, k});
            }
        }
    }
    CHECK(tails >= 6);
    CHECK(jobs.size() >= 80);
    // One slice over 112 KiB with tma_reg_tail (96 KiB staged, two blocks a SM), and rows in
    // turn through two buffers (rows_in_turn; odd row counts: a block's last row missing).
    std::size_t two = 0;
    for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
        const std::int64_t vec = 16 / static_cast<std::int64_t>(ops::size_of(t));
        for (ops::shape2d s : {ops::shape2d{37, 131072}, ops::shape2d{1001, 32768}}) {
            const ops::problem p{s, t};
            struct form {
                std::int64_t tpr, rpb, cl;
                const char* key;
            };
            for (const form f :
                 {form{256, 1, 1, "tma_reg_tail"}, form{512, 1, 1, "tma_reg_tail"},
                  form{256, 1, 2, "tma_reg_tail"}, form{512, 1, 2, "tma_reg_tail"},
                  form{256, 1, 4, "tma_reg_tail"}, form{256, 2, 8, "rows_in_turn"},
                  form{512, 3, 4, "rows_in_turn"}, form{256, 2, 1, "rows_in_turn"}}) {
                config c{{"threads_per_row", f.tpr},
                         {"rows_per_block", f.rpb},
                         {"vec", vec},
                         {"cache_row", true},
                         {"unroll", std::int64_t{1}},
                         {"cluster", f.cl},
                         {"stage", std::string("smem_tma")}};
                c.set(f.key, true);
                if (!o.valid(c, p)) continue;
                if (o.source(c, p).find("#define KTUNE_TWO_BLOCKS 1") != std::string::npos) ++two;
                jobs.push_back({&o, p, c});
            }
        }
    }
    CHECK(two >= 4);
    check_all(jobs);
}
