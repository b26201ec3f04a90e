#include "ops/row_op.hpp"

#include "ops/kernel_sources.hpp"
#include "ops/source_common.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <variant>

namespace ktune::ops::detail {
namespace {

bool fail(std::string* why, std::string msg) {
    if (why) *why = std::move(msg);
    return false;
}

std::int64_t cluster_of(const config& c) {
    const param_value* v = c.find("cluster");
    return v ? c.get<std::int64_t>("cluster") : 1;
}

// What sm_90 lets one block opt in to (227 KiB), less a reserve for the kernels' static shared
// memory (reduction slots, barriers, the cluster partial: well under 1 KiB).
constexpr std::int64_t smem_budget = 227 * 1024 - 1024;
// Rows at most this long fit one block with room for several blocks per SM: a cluster only
// adds barrier latency there.
constexpr std::int64_t smem_one_block = 32 * 1024;
// A slice over smem_budget (one block per 256 KiB row: a bf16 131072-row, or half an fp32 one)
// stages this much and keeps the rest in registers, at most reg_part_max bytes a thread.
constexpr std::int64_t smem_with_regs = 192 * 1024;
constexpr std::int64_t reg_part_max = 128;
// Rows at once (smem_rows) over this much a block stage smem_rows_with_regs and keep each row's
// tail in registers (at most reg_part_max bytes a thread for all rows): two blocks a SM instead
// of one (H200, docs/perf/kernels.md#layernorm-long-rows: 128 KiB blocks lost 5-21 points to 64 KiB
// ones). The hand-set key rows_reg_tail=false stages them whole (one block a SM).
constexpr std::int64_t smem_rows_regs_over = 112 * 1024;
constexpr std::int64_t smem_rows_with_regs = 96 * 1024;

} // namespace

namespace {
// A hand-set bool key (not an axis): false when absent or not a bool (valid() says why).
bool flag(const config& c, const char* name) {
    const param_value* v = c.find(name);
    const bool* b = v ? std::get_if<bool>(v) : nullptr;
    return b && *b;
}
} // namespace

bool staged_in_smem(const config& c) {
    const param_value* v = c.find("stage");
    if (!v) return false;
    const auto s = c.get<std::string>("stage");
    return s == "smem_tma" || s == "smem_rows";
}

namespace {
// stage = smem_rows: rows_per_block rows (slices) staged at once, not in turn.
bool rows_at_once(const config& c) {
    const param_value* v = c.find("stage");
    return v && c.get<std::string>("stage") == "smem_rows";
}
} // namespace

std::vector<param_axis> row_op::axes() const {
    std::vector<param_axis> a{
        {"threads_per_row", ints({8, 16, 32, 64, 128, 256, 512, 1024}),
         "threads sharing a row (fewer than 32: several rows per warp)"},
        {"rows_per_block", ints({1, 2, 4, 8, 16}), "rows per thread block"},
        {"vec", ints({1, 2, 4, 8}), "elements per load/store (16 bytes at most)"}};
    param_axis stage{"stage",
                     {std::string("regs"), std::string("smem_tma")},
                     "row (slice) loaded by threads into registers, or by bulk copies "
                     "(sm_90 TMA, mbarrier) into shared memory (over 226 KiB: its tail in "
                     "registers)"};
    if (column_operands()) {
        stage.values.emplace_back(std::string("smem_rows"));
        stage.doc += "; smem_rows: rows_per_block rows staged at once, the column operands "
                     "read once for all of them";
    }
    if (forms_ == row_forms::streaming) {
        a.push_back({"unroll", ints({1, 2, 4, 8}), "independent loads in flight per thread"});
        a.push_back(stage);
        return a;
    }
    a.push_back({"cache_row", {true, false}, "keep the row in registers (one read) or read twice"});
    a.push_back({"unroll", ints({1, 2, 4}), "unroll of the streaming loops (two-pass only)"});
    a.push_back({"cluster", ints({1, 2, 4, 8}),
                 "blocks of a thread-block cluster splitting one row (sm_90, DSMEM exchange)"});
    a.push_back(stage);
    return a;
}

bool row_op::valid(const config& c, const problem& p, std::string* why) const {
    const auto tpr = c.get<std::int64_t>("threads_per_row");
    const auto rpb = c.get<std::int64_t>("rows_per_block");
    const auto vec = c.get<std::int64_t>("vec");
    const auto cl = cluster_of(c);
    const auto esize = static_cast<std::int64_t>(size_of(p.type));
    const bool cached = forms_ == row_forms::cached && c.get<bool>("cache_row");
    const bool smem = staged_in_smem(c);
    if (tpr < 8 || (tpr & (tpr - 1)) != 0)
        return fail(why, "threads_per_row must be a power of two, at least 8");
    if (vec * esize > 16) return fail(why, "vector wider than 16 bytes");
    if (cl < 1 || cl > 8 || (cl & (cl - 1)) != 0)
        return fail(why, "cluster must be 1, 2, 4 or 8 (the portable cluster sizes)");
    if (const param_value* s = c.find("stage"); s && c.get<std::string>("stage") != "regs" && !smem)
        return fail(why, column_operands() ? "stage must be regs, smem_tma or smem_rows"
                                           : "stage must be regs or smem_tma");
    if (rows_at_once(c) && !column_operands())
        return fail(why, "stage smem_rows is for ops with column operands (layernorm); stage "
                         "must be regs or smem_tma");
    if (smem) return valid_smem(c, p, why);
    if (rpb > 16) return fail(why, "rows_per_block is at most 16");
    if (tpr * rpb < 32 || tpr * rpb > 1024)
        return fail(why, "threads_per_row * rows_per_block must be 32..1024 (whole warps)");
    if (cl > 1) {
        if (rpb != 1) return fail(why, "a row split across a cluster needs rows_per_block 1");
        if (!cached) return fail(why, "a row split across a cluster is cached (cache_row true)");
        if (p.shape.rows * cl > 0x7fffffff) return fail(why, "grid.x (rows * cluster) over 2^31");
    }
    // Rows that vec does not divide: the cached form's aligned vectors with a scalar head and
    // tail per row (docs/perf/kernels.md, "Any row length"), where the op has it.
    const bool ragged = p.shape.cols % (vec * cl) != 0;
    const bool ragged_form = forms_ == row_forms::streaming || cached;
    if (ragged && !(ragged_rows() && ragged_form && cl == 1))
        return fail(why, ragged_rows() ? "vec must divide cols, except with the row cached "
                                         "(cache_row true) and no cluster"
                                       : "vec * cluster must divide cols");
    // Vectors a thread group holds: a ragged row's aligned span covers at most this many.
    const std::int64_t nv = ragged ? (p.shape.cols + 2 * vec - 2) / vec : p.shape.cols / cl / vec;
    // 8 threads (the fewest) take rows of fewer than 4 vectors too: every row has a config.
    if (nv < tpr / 2 && tpr > 8) return fail(why, "more than half the threads of a row would idle");
    // Two prunings from the H200 sweep (docs/perf/tune.md#split-rows): they never
    // won there, and they doubled the space a budgeted search must cover.
    const std::int64_t row_vectors = p.shape.cols / vec;
    if (tpr < 32 && row_vectors > 4 * 32)
        return fail(why, "threads_per_row below 32 is for short rows (a warp per row would "
                         "hold at most 4 vectors per lane)");
    if (cl > 1 && (row_vectors + tpr - 1) / tpr * vec * esize <= 256)
        return fail(why, "a cluster splits rows that one block of this size cannot cache");
    if (cached) {
        // A row cached in registers as loaded: more than 256 bytes (64 registers) per thread
        // spills or starves occupancy.
        if ((nv + tpr - 1) / tpr * vec * esize > 256)
            return fail(why, "cached row needs more than 64 registers per thread");
        if (c.get<std::int64_t>("unroll") != 1)
            return fail(why, "unroll applies to the two-pass form only");
    }
    return true;
}

// The shared-memory stage: each row (or a block's slice of it) staged whole by bulk copies.
bool row_op::valid_smem(const config& c, const problem& p, std::string* why) const {
    const auto tpr = c.get<std::int64_t>("threads_per_row");
    const auto rpb = c.get<std::int64_t>("rows_per_block");
    const auto vec = c.get<std::int64_t>("vec");
    const auto esize = static_cast<std::int64_t>(size_of(p.type));
    const auto cl = cluster_of(c);
    if (tpr < 32) return fail(why, "smem_tma: whole warps per row (threads_per_row >= 32)");
    // 16-byte shared-memory reads; also keeps every slice 16-byte aligned, as bulk copies need.
    if (vec * esize != 16) return fail(why, "smem_tma reads 16-byte vectors from shared memory");
    if (c.get<std::int64_t>("unroll") != 1) return fail(why, "unroll applies to stage regs only");
    if (forms_ == row_forms::cached && !c.get<bool>("cache_row"))
        return fail(why, "smem_tma caches the row (cache_row true)");
    if (p.shape.cols % (vec * cl) != 0) {
        // A ragged row staged whole (docs/perf/kernels.md#rows-of-odd-length): its aligned span
        // by bulk copies, which read whole 16-byte units up to the tensor's end.
        if (!ragged_stage()) return fail(why, "vec * cluster must divide cols (smem_tma)");
        if (cl != 1 || c.get<std::int64_t>("rows_per_block") != 1)
            return fail(why, "smem_tma on rows that vec does not divide: no cluster, one row "
                             "per block");
        if (p.shape.rows * p.shape.cols * esize % 16 != 0)
            return fail(why, "smem_tma on rows that vec does not divide: the tensor must end on "
                             "a 16-byte boundary (bulk copies read whole 16-byte units)");
        // A span over 226 KiB has no tail form; one over 112 KiB keeps its tail in registers
        // for two blocks a SM where the op's kernel has that form (ragged_tails).
        if (slice_bytes(c, p) > smem_budget || (reg_rounds(c, p) > 0 && !ragged_tails()))
            return fail(why, ragged_tails()
                                 ? "smem_tma on rows that vec does not divide: the row's span "
                                   "must fit shared memory (226 KiB)"
                                 : "smem_tma on rows that vec does not divide: the row must fit "
                                   "shared memory (no register tail)");
    }
    if (p.shape.cols / cl / vec < tpr / 2)
        return fail(why, "more than half the threads of a row would idle");
    if (smem_bytes(c, p) > smem_budget)
        return fail(why, "smem_tma: the staged slice exceeds 226 KiB of shared memory per block "
                         "(rows in turn hold two, rows at once rows_per_block; split the row "
                         "across a larger cluster)");
    if (reg_rounds(c, p) * vec * esize > reg_part_max)
        return fail(why, "smem_tma: a slice over 226 KiB keeps its tail in registers, here more "
                         "than 128 bytes a thread (more threads or a larger cluster)");
    if (cl > 1 && p.shape.cols * esize <= smem_one_block)
        return fail(why, "smem_tma: a cluster splits rows longer than 32 KiB only");
    const std::int64_t blocks = (p.shape.rows + rpb - 1) / rpb * cl;
    if (blocks > 0x7fffffff) return fail(why, "grid.x over 2^31");
    // Rows in turn with two buffers (rows_per_block > 1 with smem_tma) never won on the H200:
    // 0 of 11 long- and mid-row problems, 1-20 points behind one row per block
    // (docs/perf/kernels.md). The kernels keep the form (the GPU test runs it); the space leaves
    // it out so that a budgeted search spends nothing on it. Its successors, a ring of three
    // buffers with one cluster barrier per row and one buffer refilled as its row is written,
    // lost too and were removed (docs/perf/kernels.md#smem-refill; their source is in commit
    // e37011d).
    if (rows_at_once(c)) {
        // Rows at once share each gamma/beta read: one row is smem_tma. Rows of 32 KiB and less
        // find their operands in L1 (64 KiB of them beside blocks sharing an SM).
        if (rpb < 2) return fail(why, "smem_rows stages rows_per_block >= 2 rows at once");
        // H200 (docs/perf/kernels.md#layernorm-long-rows): blocks of 32-128 threads lost everywhere
        // (9-56 % of the copy at 1024x131072, where 256-512 threads reached 76-77 %).
        if (tpr < 256) return fail(why, "smem_rows: threads_per_row >= 256");
        if (p.shape.cols * esize <= smem_one_block)
            return fail(why, "smem_rows: for rows longer than 32 KiB (shorter rows' operands stay "
                             "in L1)");
        return true;
    }
    // The hand-set key rows_in_turn=true reaches the kept form (to time it again).
    if (rpb > 1 && !flag(c, "rows_in_turn"))
        return fail(why, "smem_tma takes one row (slice) per block: rows_per_block 1");
    return true;
}

std::int64_t row_op::slice_bytes(const config& c, const problem& p) {
    const auto vec = c.get<std::int64_t>("vec");
    const auto esize = static_cast<std::int64_t>(size_of(p.type));
    if (ragged(c, p)) return (p.shape.cols + 2 * vec - 2) / vec * vec * esize;
    return p.shape.cols / cluster_of(c) * esize;
}

std::int64_t row_op::smem_bytes(const config& c, const problem& p) const {
    const auto rpb = c.get<std::int64_t>("rows_per_block");
    // Rows in turn: two buffers; rows at once: one each.
    const std::int64_t bufs = rows_at_once(c) ? rpb : rpb > 1 ? 2 : 1;
    // Each staged row less its register tail (rows at once: every row has one).
    const std::int64_t regs = reg_rounds(c, p) * c.get<std::int64_t>("threads_per_row") * 16;
    return bufs * (slice_bytes(c, p) - regs);
}

bool row_op::two_blocks(const config& c, const problem& p) const {
    return reg_rounds(c, p) > 0 && smem_bytes(c, p) <= smem_rows_with_regs;
}

std::int64_t row_op::reg_rounds(const config& c, const problem& p) const {
    if (forms_ != row_forms::cached || !staged_in_smem(c)) return 0;
    const std::int64_t slice = slice_bytes(c, p);
    const std::int64_t round = c.get<std::int64_t>("threads_per_row") * 16; // bytes
    if (rows_at_once(c)) {
        // Per row: rounds past its share of smem_rows_with_regs; none where every row's tail
        // together would exceed reg_part_max a thread (such a block stays whole, one a SM).
        const auto rpb = c.get<std::int64_t>("rows_per_block");
        const param_value* k = c.find("rows_reg_tail");
        if ((k && !flag(c, "rows_reg_tail")) || rpb * slice <= smem_rows_regs_over) return 0;
        const std::int64_t r = (slice - smem_rows_with_regs / rpb + round - 1) / round;
        return rpb * r * 16 <= reg_part_max && r * round < slice ? r : 0;
    }
    if (c.get<std::int64_t>("rows_per_block") != 1) return 0;
    if (slice <= smem_budget) {
        // A slice over 112 KiB stages 96 KiB (two blocks a SM): slice_tails_two_blocks(), or
        // the hand-set key tma_reg_tail.
        const param_value* k = c.find("tma_reg_tail");
        const bool tails =
            k ? flag(c, "tma_reg_tail")
              : slice_tails_two_blocks() && c.get<std::int64_t>("threads_per_row") <= 512;
        if (!tails || slice <= smem_rows_regs_over) return 0;
        const std::int64_t r = (slice - smem_rows_with_regs + round - 1) / round;
        return r * 16 <= reg_part_max ? r : 0;
    }
    // One row per block of a cached op, staged, its slice over what shared memory holds.
    return (slice - smem_with_regs + round - 1) / round;
}

config row_op::default_config(const problem& p) const {
    const std::int64_t vec = 16 / static_cast<std::int64_t>(size_of(p.type));
    if (forms_ == row_forms::streaming) {
        const config s{{"threads_per_row", std::int64_t{256}},
                       {"rows_per_block", std::int64_t{1}},
                       {"vec", vec},
                       {"unroll", std::int64_t{2}},
                       {"stage", std::string("regs")}};
        return valid(s, p, nullptr) && !ragged(s, p) ? s : any_shape_default(s, p);
    }
    // The baseline of the speed-ups: 256 threads per row, cached when it fits, else two-pass.
    config c{{"threads_per_row", std::int64_t{256}},
             {"rows_per_block", std::int64_t{1}},
             {"vec", vec},
             {"cache_row", true},
             {"unroll", std::int64_t{1}},
             {"cluster", std::int64_t{1}},
             {"stage", std::string("regs")}};
    // Rows over 32 KiB: staged in shared memory by bulk copies, 512 threads, slices of at most
    // 64 KiB. On the H200 that config measured 83-93 % of the copy at 4096x32768 (the register
    // cache or two-pass form this default used to be: 45-63 %) and 69-87 % at 1024x131072
    // (59-63 %), 0-3 points from the best staged config (docs/perf/kernels.md). Shorter rows
    // keep the register cache (softmax bf16 8192x8192: 93.4 %, best staged 92.6 %). Rows of
    // 256 KiB and more: an op may prefer them cached in registers over a cluster of 8, or one
    // block per 256 KiB (long_row_block_threads).
    const auto esize = static_cast<std::int64_t>(size_of(p.type));
    if (long_rows_in_registers(p.type) && p.shape.cols * esize >= 256 * 1024) {
        // vec 2 first: softmax bf16 1024x131072 0.164 ms vs 0.170 ms with 16-byte vectors
        // (95 % CIs apart), fp32 0.2670 vs 0.2673 ms (H200, docs/perf/kernels.md#longest-rows).
        for (const std::int64_t v : {std::int64_t{2}, vec}) {
            config r = c;
            r.set("cluster", std::int64_t{8});
            r.set("vec", v);
            if (valid(r, p, nullptr)) return r;
        }
    }
    // Staged by bulk copies, the row split over the fewest blocks of a cluster that keep each
    // slice within `slice` bytes (a row that vec does not divide is staged whole or not at all:
    // tma.cuh's span), the first thread count that makes it valid.
    const auto staged = [&](std::int64_t slice,
                            std::initializer_list<std::int64_t> threads) -> std::optional<config> {
        std::int64_t cl = 1;
        while (cl < 8 && p.shape.cols % vec == 0 && p.shape.cols / cl * esize > slice)
            cl *= 2;
        config s = c;
        s.set("cluster", cl);
        s.set("stage", std::string("smem_tma"));
        for (const std::int64_t t : threads) {
            s.set("threads_per_row", t);
            if (valid(s, p, nullptr)) return s;
        }
        return std::nullopt;
    };
    if (const std::int64_t tpr = long_row_block_threads(p.type);
        tpr > 0 && p.shape.cols * esize >= long_row_min_bytes(p.type)) {
        // One row per block in slices of long_row_slice_bytes (256 KiB: 192 KiB staged, the
        // tail in registers), as few blocks per row as that allows: a cluster cost 16 points at
        // equal slices (docs/perf/kernels.md#staged-rows; layernorm fp32, 128 KiB slices, tpr 1024:
        // 91 % alone at 4096x32768, 75 % in clusters of 4).
        // A ragged row is staged whole in one block (no slices): 1024 threads
        // first. Layernorm fp32 4096x50257 (201 KiB rows) ran 1363.1 µs at 256 threads, 569.2
        // µs tuned at 1024 (H200, docs/perf/kernels.md#layernorm-odd-rows-ncu).
        const bool ragged_row = p.shape.cols % vec != 0;
        if (auto s = ragged_row ? staged(long_row_slice_bytes(p.type), {1024, tpr})
                                : staged(long_row_slice_bytes(p.type), {tpr}))
            return *s;
    }
    // Rows over 32 KiB: 512 threads, slices of at most 64 KiB; 1024 threads where 512 is not
    // valid (a span whose tail would not fit 128 bytes a thread). A ragged span of 112-128 KiB
    // keeps its tail in registers at 512 where the op has that form (ragged_tails), two blocks
    // a SM: layernorm fp32 4096x32001 80.5 % of the copy against 76.7 % at 1024 threads staged
    // whole (H200, docs/perf/kernels.md#layernorm-ragged-tails).
    if (p.shape.cols * esize > 32 * 1024)
        if (auto s = staged(64 * 1024, {512, 1024})) return *s;
    // Rows up to 32 KiB keep to vectors that divide the row (register-cached ragged rows won
    // only at some shapes on the H200); longer rows are staged above, ragged or not
    // (docs/perf/kernels.md#rows-of-odd-length).
    if (valid(c, p, nullptr) && !ragged(c, p)) return c;
    return any_shape_default(c, p);
}

// The default is the cache's last tier: an application that misses the cache launches it, so
// it must be valid for every shape the op accepts (odd and prime row lengths, rows of 1..3
// elements, rows too long for registers). The widest vector that divides the row, then the
// first of 256, 128, ..., 8 threads per row that leaves at most half of them idle (several rows
// per block when rows are short), the row cached in registers where it fits, else read twice.
config row_op::any_shape_default(config c, const problem& p) const {
    const std::int64_t widest = 16 / static_cast<std::int64_t>(size_of(p.type));
    const bool cached_form = forms_ == row_forms::cached;
    if (cached_form) c.set("cluster", std::int64_t{1});
    c.set("stage", std::string("regs"));
    for (std::int64_t v = widest; v >= 1; v /= 2) {
        if (p.shape.cols % v != 0) continue;
        c.set("vec", v);
        for (std::int64_t tpr = 256; tpr >= 8; tpr /= 2) {
            c.set("threads_per_row", tpr);
            c.set("rows_per_block",
                  std::min<std::int64_t>(16, std::max<std::int64_t>(1, 256 / tpr)));
            for (const bool cache : {true, false}) {
                if (!cached_form && !cache) break;
                if (cached_form) {
                    c.set("cache_row", cache);
                    c.set("unroll", std::int64_t{cache ? 1 : 2});
                } else {
                    c.set("unroll", std::int64_t{2});
                }
                if (valid(c, p, nullptr)) return c;
            }
        }
    }
    throw error(error_kind::input,
                fmt::format("{}: no valid config for shape {} (rows and cols must be >= 1)", name(),
                            to_string(p.shape)));
}

std::string row_op::source(const config& c, const problem& p) const {
    return prelude(p.type) + constants(c) +
           fmt::format("#define TPR THREADS_PER_ROW\n#define RPB ROWS_PER_BLOCK\n"
                       "constexpr int C = {};\n#define KTUNE_BLOCK {}\n",
                       p.shape.cols, geometry(c, p).block[0]) +
           (reg_rounds(c, p) > 0 ? fmt::format("#define REG_ROUNDS {}\n", reg_rounds(c, p)) : "") +
           (two_blocks(c, p) ? "#define KTUNE_TWO_BLOCKS 1\n" : "") + ragged_source(c, p) +
           kernels::row_common +
           (staged_in_smem(c) ? std::string(kernels::bulk_copy) + kernels::tma : std::string()) +
           body();
}

std::string row_op::reference_source(const problem& p) const {
    return prelude(p.type) + reference_body();
}

launch_geometry row_op::geometry(const config& c, const problem& p) const {
    const auto tpr = c.get<std::int64_t>("threads_per_row");
    const auto rpb = c.get<std::int64_t>("rows_per_block");
    const auto cl = cluster_of(c);
    launch_geometry g;
    g.cluster[0] = static_cast<unsigned>(cl);
    if (staged_in_smem(c)) {
        // One row group of tpr threads per block, rows_per_block rows in turn.
        g.grid[0] = static_cast<unsigned>((p.shape.rows + rpb - 1) / rpb * cl);
        g.block[0] = static_cast<unsigned>(tpr);
        g.shared_bytes = static_cast<unsigned>(smem_bytes(c, p));
        return g;
    }
    g.grid[0] = static_cast<unsigned>(cl > 1 ? p.shape.rows * cl : (p.shape.rows + rpb - 1) / rpb);
    g.block[0] = static_cast<unsigned>(tpr * rpb);
    return g;
}

launch_geometry row_op::reference_geometry(const problem& p) const {
    launch_geometry g;
    g.grid[0] = static_cast<unsigned>(p.shape.rows);
    g.block[0] = 256;
    return g;
}

shape2d row_op::bucket(const shape2d& s) const {
    return {next_pow2(s.rows), s.cols};
}

} // namespace ktune::ops::detail
