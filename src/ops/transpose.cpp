// Tiled transpose out[c, r] = in[r, c] through shared memory: TILE x TILE tiles, a block of
// (TILE / VEC) x BLOCK_ROWS threads, VEC-wide loads and stores on both sides, optional padding
// of the shared tile against bank conflicts. bf16 can pack: the pair in[2i][c], in[2i+1][c] is
// one 4-byte word of the output row c, so the tile holds words (half the shared-memory
// accesses, the banks' natural width) and the kernel is a 32-bit transpose of row pairs.
// Tried and dropped (docs/perf/kernels.md#staged-rows): a shared-memory-free form transposing
// vec x vec blocks in registers. ncu had the bf16 tile winner bound by the L1/shared pipe (Mem
// Busy 82 %, DRAM 66 %), but the register form measured 64-76 % of the copy against 78-92 % for
// the tiles (a warp touches 8-32 rows per access in 16-128-byte pieces; tiles move whole lines).
#include "ops/builtin_ops.hpp"
#include "ops/kernel_sources.hpp"
#include "ops/source_common.hpp"

#include <fmt/format.h>

namespace ktune::ops::detail {
namespace {

bool micro(const config& c) {
    return c.find("form") && c.get<std::string>("form") == "micro";
}

// The micro form's odd input rows staged by bulk copies
// (docs/perf/kernels.md#transpose-ragged-bulk), TILE x (TILE / vec + 1) 16-byte units of dynamic
// shared memory: fp32 by default (H200: 85-86 % of the copy against 80-81 % for the pair loads),
// not bf16 (72-74 % against 78-79 %: its micro-rows' shifts and pair merges bind, not the loads).
// Hand-set ragged_bulk overrides.
bool ragged_bulk(const config& c, const problem& p) {
    if (!micro(c) || !ragged(c, p)) return false;
    const param_value* v = c.find("ragged_bulk");
    return v ? std::get<bool>(*v) : size_of(p.type) == 4;
}

class transpose final : public op {
public:
    std::string_view name() const noexcept override { return "transpose"; }
    int version() const noexcept override { return 6; }
    std::string_view description() const noexcept override {
        return "2-D transpose into a new contiguous tensor";
    }
    std::string_view torch_equivalent() const noexcept override { return "x.t().contiguous()"; }
    std::vector<param_axis> axes() const override {
        // tile 128: micro form only (H200, docs/perf/kernels.md#long-row-forms: 91-93 % for bf16;
        // element 128-tiles 74-81 % against 84 % for 64-tiles).
        return {{"tile", ints({16, 32, 64, 128}), "square tile edge staged in shared memory"},
                {"block_rows", ints({2, 4, 8, 16, 32}), "thread rows per block"},
                {"vec", ints({1, 2, 4, 8}), "elements per load/store (16 bytes at most)"},
                {"pad", ints({0, 1}), "shared-memory padding per tile row (elements)"},
                {"pack", ints({0, 1}), "bf16: stage pairs of rows as 4-byte words"},
                {"form",
                 {std::string("tile"), std::string("micro")},
                 "element tile, or vec x vec micro-tiles transposed in registers through a "
                 "swizzled 16-byte shared tile"}};
    }
    bool valid(const config& c, const problem& p, std::string* why) const override {
        const auto tile = c.get<std::int64_t>("tile");
        const auto by = c.get<std::int64_t>("block_rows");
        const auto vec = c.get<std::int64_t>("vec");
        const auto fail = [&](const char* m) {
            if (why) *why = m;
            return false;
        };
        if (vec * static_cast<std::int64_t>(size_of(p.type)) > 16)
            return fail("vector wider than 16 bytes");
        if (tile % vec != 0 || tile / vec < 2) return fail("tile / vec must be at least 2");
        const std::int64_t threads = tile / vec * by;
        if (threads < 32 || threads > 1024) return fail("block must hold 32..1024 threads");
        if (by > tile) return fail("block_rows > tile");
        if (tile == 128 && !micro(c))
            return fail("tile 128 is for form micro (element 128-tiles measured slower)");
        if (micro(c)) {
            if (vec * static_cast<std::int64_t>(size_of(p.type)) != 16)
                return fail("micro: 16-byte vectors");
            if (tile / vec < 8) return fail("micro: at least 8 micro-tiles per tile edge");
            if (by > tile / vec) return fail("micro: block_rows > tile / vec");
            if (c.get<std::int64_t>("pad") != 0 || c.get<std::int64_t>("pack") != 0)
                return fail("micro: no pad, no pack (the tile is swizzled 16-byte units)");
            if (tile * tile * static_cast<std::int64_t>(size_of(p.type)) > 48 * 1024)
                return fail("the tile exceeds 48 KiB of static shared memory");
        }
        const bool packed = c.find("pack") && c.get<std::int64_t>("pack") != 0;
        const std::int64_t pad = c.get<std::int64_t>("pad");
        const std::int64_t tile_bytes =
            packed ? tile / 2 * (tile + pad) * 4
                   : tile * (tile + pad) * static_cast<std::int64_t>(size_of(p.type));
        if (tile_bytes > 48 * 1024) return fail("the tile exceeds 48 KiB of static shared memory");
        if (p.shape.rows % vec != 0) return fail("vec must divide rows (the output's rows)");
        // Input rows that vec does not divide: the tile's rows read as the aligned vectors that
        // cover them, the micro form's micro-rows shifted (RAGGED,
        // docs/perf/kernels.md#rows-of-odd-length); the output side still vec wide.
        if (p.shape.cols % vec != 0 && c.get<std::int64_t>("pack") != 0)
            return fail("vec must divide cols, except without pack");
        if ((p.shape.rows + tile - 1) / tile > 65535) return fail("grid.y over 65535");
        if (const param_value* v = c.find("shift_runtime");
            v && (!std::get_if<bool>(v) || !micro(c) || !ragged(c, p)))
            return fail("shift_runtime: true or false, form micro on rows that vec does not "
                        "divide");
        if (const param_value* v = c.find("ragged_bulk");
            v && (!std::get_if<bool>(v) || !micro(c) || !ragged(c, p)))
            return fail("ragged_bulk: true or false, form micro on rows that vec does not divide");
        if (c.find("pack") && c.get<std::int64_t>("pack") != 0) {
            if (p.type != dtype::bf16) return fail("pack pairs 2-byte elements: bf16 only");
            if (vec < 2) return fail("pack writes whole words: vec at least 2");
            if (by > tile / 2) return fail("pack: block_rows > tile / 2");
        }
        return true;
    }
    config default_config(const problem& p) const override {
        // The micro form, 256 threads: on the H200 (docs/perf/kernels.md#long-row-forms) the best
        // config measured at bf16 8192x8192, 16384x4096, 1024x131072 (tile 128: 91-93 % of the
        // copy; the earlier tuned 64-tiles 84 %) and fp32 8192x8192 (tile 64: 93.9 %, tuned tiles
        // 92 %). Until then the classic CUDA-samples tile (32x32, 32x8 threads, vec 1, padded:
        // 28-53 %).
        const bool bf = p.type == dtype::bf16;
        config c{{"tile", std::int64_t{bf ? 128 : 64}},
                 {"block_rows", std::int64_t{16}},
                 {"vec", std::int64_t{bf ? 8 : 4}},
                 {"pad", std::int64_t{0}},
                 {"pack", std::int64_t{0}},
                 {"form", std::string("micro")}};
        if (valid(c, p, nullptr)) return c;
        return {{"tile", std::int64_t{32}}, {"block_rows", std::int64_t{8}},
                {"vec", std::int64_t{1}},   {"pad", std::int64_t{1}},
                {"pack", std::int64_t{0}},  {"form", std::string("tile")}};
    }
    std::string source(const config& c, const problem& p) const override {
        return prelude(p.type) + constants(c) + ragged_source(c, p) +
               (micro(c) && ragged(c, p) ? fmt::format("#define COLS_MOD_VEC {}\n",
                                                       p.shape.cols % c.get<std::int64_t>("vec"))
                                         : std::string()) +
               (ragged_bulk(c, p)
                    ? std::string(c.find("ragged_bulk") ? "" : "#define RAGGED_BULK 1\n") +
                          kernels::bulk_copy
                    : std::string()) +
               (micro(c) ? kernels::transpose_micro : kernels::transpose);
    }
    std::string reference_source(const problem& p) const override {
        return prelude(p.type) + kernels::transpose_reference;
    }
    launch_geometry geometry(const config& c, const problem& p) const override {
        const auto tile = c.get<std::int64_t>("tile");
        launch_geometry g;
        g.grid[0] = static_cast<unsigned>((p.shape.cols + tile - 1) / tile);
        g.grid[1] = static_cast<unsigned>((p.shape.rows + tile - 1) / tile);
        g.block[0] = static_cast<unsigned>(tile / c.get<std::int64_t>("vec"));
        g.block[1] = static_cast<unsigned>(c.get<std::int64_t>("block_rows"));
        if (ragged_bulk(c, p))
            g.shared_bytes =
                static_cast<unsigned>(tile * (tile / c.get<std::int64_t>("vec") + 1) * 16);
        return g;
    }
    launch_geometry reference_geometry(const problem& p) const override {
        launch_geometry g;
        g.grid[0] = static_cast<unsigned>((p.shape.rows * p.shape.cols + 255) / 256);
        g.block[0] = 256;
        return g;
    }
    std::vector<kernel::argument_spec> arguments(const problem& p) const override {
        return detail::with_shape({detail::buffer_argument("x", p, "rows * cols", true, false),
                                   detail::buffer_argument("y", p, "rows * cols", false, true)});
    }
    tolerance tolerance_for(const problem&) const override { return {0, 0}; } // exact copy
    double bytes(const problem& p) const override {
        return 2.0 * static_cast<double>(p.shape.rows * p.shape.cols) *
               static_cast<double>(size_of(p.type));
    }
    double flops(const problem&) const override { return 0; }
    shape2d bucket(const shape2d& s) const override {
        return {next_pow2(s.rows), next_pow2(s.cols)};
    }
};

} // namespace

const op& transpose_op() {
    static const transpose instance;
    return instance;
}

} // namespace ktune::ops::detail
