#include "gemm/sm90_space.hpp"

#include "gemm/rank_by_cost.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ktune::gemm::detail {

std::vector<sm90_config> sm90_grid() {
    std::vector<int> bns{8, 16, 32, 48}; // decode GEMMs' token counts (M <= 64)
    for (int bn = 64; bn <= 256; bn += 16)
        bns.push_back(bn);
    std::vector<sm90_config> out;
    for (const int bn : bns)
        for (int stages : {2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24}) // deep: narrow decode tiles
            for (int consumers = 1; consumers <= 2; ++consumers)
                for (int group : {1, 2, 4, 8, 16, 32}) {
                    // No cluster, a cluster sharing A's slab, one sharing B's.
                    for (const auto& [cluster, shares_b] : {std::pair{1, 0}, {2, 0}, {2, 1}})
                        for (int epi : {0, 1, 2, 4, 8})
                            for (int tma = 0; tma <= 1; ++tma)
                                out.push_back(
                                    {bn, stages, consumers, group, cluster, epi, tma, 1, shares_b});
                    // Split-K sums its slices in the direct-store epilogue (sm90_rejects).
                    for (int splits : {2, 3, 4, 6, 8, 12, 16})
                        out.push_back({bn, stages, consumers, group, 1, 0, 0, splits});
                }
    // Swapped (decode GEMMs' tokens as the M side): weight tiles of every multiple of 8 rows up
    // to 128, one consumer, raster group 8 (one row of tiles), so that some width makes a wave
    // (docs/perf/gemm.md#swap-ab).
    for (int bn = 8; bn <= 128; bn += 8)
        for (int stages : {4, 6, 8, 10, 12, 16, 20})
            out.push_back({bn, stages, 1, 8, 1, 0, 0, 1, 0, 1});
    return out;
}

std::vector<sm90_config> sm90_configs(const problem& p, const sm90_device& d) {
    std::vector<sm90_config> out;
    for (const sm90_config& c : sm90_grid())
        if (sm90_rejects(c, p, d.max_shared).empty()) out.push_back(c);
    return out;
}

double sm90_cost(const sm90_config& c, const problem& p, const sm90_device& d) {
    // A roofline of one launch, wave by wave, in seconds (only the order of the configs means
    // anything): a wave takes as long as its slowest of the tensor cores, the feed of each
    // block's ring from L2, and the DRAM stream of the wave's share of the operands; then
    // split-K's reduction. Constants from H100 / H200 measurements
    // (docs/perf/gemm.md#hopper-split-k).
    // Dense bf16 / fp16 a SM (~660 TFLOP/s over 132); fp8's wgmma runs at twice the rate.
    const double eb = double(input_bytes(p.type));
    const double flops_sm = 5.0e12 * 2.0 / eb;
    constexpr double feed_sm = 1.2e11;  // L2 -> SM bytes/s a block sustains at most
    constexpr double latency = 1.4e-6;  // a slab's load under load: the ring must cover it
    constexpr double dram_share = 0.72; // of the theoretical bandwidth a read stream reaches
    const double dram = d.dram_gbs * 1e9 * dram_share;
    const double bm = sm90_bm(c), bn = c.bn, k = double(p.k), m = double(p.m), n = double(p.n);
    // D's transpose in bm x bn tiles (rows: N, columns: M), each cut into `splits` slices of K,
    // persistent over the SMs (clusters: pairs of tiles over half of them; a cluster sharing B
    // runs a block on the column tile past the last where their count is odd). Swapped, the
    // weights' side is bn: "row" tiles over N of bn rows, "column" tiles over M of bm (below,
    // w_rows and t_rows are a tile's weight and token rows).
    const double w_rows = c.swap_ab ? bn : bm, t_rows = c.swap_ab ? bm : bn;
    const double row_tiles = std::ceil(n / w_rows), col_tiles = std::ceil(m / t_rows);
    // The rows a slab of P loads: swapped, the tokens rounded up to 8 (its TMA box).
    const double p_rows = c.swap_ab ? std::min(bm, 8.0 * std::ceil(m / 8.0)) : bm;
    const double cluster_cols = c.cluster_b ? std::ceil(col_tiles / c.cluster) : col_tiles;
    const double row_blocks = c.cluster_b ? cluster_cols * c.cluster : col_tiles;
    const double units = row_tiles * row_blocks * c.splits;
    const double slots = std::max(1, d.sms / c.cluster * c.cluster);
    const double bk = double(sm90_bk(p.type)); // a slab's elements of K: 128 bytes
    const double slice = std::ceil(std::ceil(k / bk) / c.splits) * bk;
    // A small tile runs under the tensor cores' rate: it needs more operand bytes a FLOP (bm + bn
    // per bm * bn) than the ring and L2 feed at full rate (normalised to 128 x 256). Two stages
    // cannot hide a slab's latency (three measure as four); the epilogue through the TMA store
    // overlaps the next tile (0.90x at 4096^3 on an H200), the deferred one part of it
    // (docs/perf/gemm.md#hopper-template: set where the tensor cores bind, so they scale that
    // term only).
    const double per_flop = (bm + bn) / (bm * bn) / ((128.0 + 256.0) / (128.0 * 256.0));
    const double pipeline = c.stages == 2 ? 1.15 : 1.0;
    const double epilogue = c.tma_store ? 0.90 : c.epi_parts > 0 ? 0.97 : 1.0;
    const double compute = 2.0 * bm * bn * slice / flops_sm *
                           std::max(1.0, 0.75 + 0.25 * per_flop) * pipeline * epilogue;
    // The bytes in flight a block keeps (its ring) over the latency bound what it can pull.
    const double ring = c.stages * (p_rows + bn) * 128.0;
    const double feed = (p_rows + bn) * slice * eb / std::min(feed_sm, ring / latency);
    // A unit's share of the bytes only DRAM has: A's rows once over the row tiles, B's rows
    // once over the column tiles where there are many (a large GEMM's raster keeps a row tile
    // in L2 for them), else once a column tile: a decode GEMM split into two column tiles ran
    // as if it read its weights twice (H200: 16 x 4096 x 4096 with bn 8, 16.0 us; with bn 16,
    // one column tile, 12.3 us at M = 8). A cluster sharing B reads them once a cluster of
    // column tiles (docs/perf/gemm.md#cluster-b).
    const double lone_reads = col_tiles > 4 ? 1.0 : col_tiles;
    const double b_reads = c.cluster_b ? std::min(lone_reads, cluster_cols) : lone_reads;
    const double unique =
        eb * slice * (w_rows * b_reads / row_blocks + (c.swap_ab ? p_rows : t_rows) / row_tiles);
    const auto wave = [&](double active) {
        return std::max({compute, feed, active * unique / dram});
    };
    const double full = std::floor(units / slots), rest = units - full * slots;
    const double waves = full + (rest > 0 ? 1.0 : 0.0);
    // A deeper ring still helps where DRAM binds (H200, 1 x 4096 x 11008, bn 8 split in two:
    // 8 stages 26.3 us, 6 stages 27.1 us): a tenth of the feed time on top.
    double time = full * wave(slots) + (rest > 0 ? wave(rest) : 0.0) + 0.1 * waves * feed;
    // Split-K's fix-up after each unit a block runs: the partial out, the counter's round trip
    // and, in the last slice, the others' partials back, a chain of latencies the ring does not
    // hide, growing with the tile's width (H200, one wave, split in two against unsplit: +0.8 us
    // at bn 8, +1.2 at 16, +1.7 at 32, +3.0 at 64; docs/perf/gemm.md#split-k-fixup).
    if (c.splits > 1) time += waves * (0.4e-6 + 0.04e-6 * bn);
    // Clusters sharing A measure at par with the same tile alone, never clearly faster
    // (docs/perf/gemm.md#cluster-release): ranked after it, as is one sharing B where that
    // reads the weights no fewer times (one column tile, or a raster that reads them once);
    // where it does, it is priced by those reads (b_reads) and 3 % for the cluster (at 16-32
    // tokens two token tiles sharing the weights ran 4-7 % slower than one tile of all of them;
    // docs/perf/gemm.md#split-k-fixup). A raster group of 8 is the usual L2 sweet spot, and
    // breaks the ties of a DRAM-bound shape.
    const double cluster = c.cluster == 1 ? 1.0 : b_reads >= lone_reads ? 1.25 : 1.03;
    const double raster = c.group == 8 ? 1.0 : 1.005;
    // Two consumers (a 128-row tile) on a decode GEMM's weights stream 10-12 % slower than one
    // with the same bytes in flight (H200: 64 x 11008 x 4096 bn 64 32.0 against 28.7 us, 32 x
    // 11008 x 4096 bn 32 30.2 against 27.4; docs/perf/gemm.md#split-k-fixup).
    const double consumers = c.consumers > 1 && p.m <= 64 ? 1.12 : 1.0;
    // A swapped tile streams its weights slower the fewer blocks its waves keep busy (H200, 64 x
    // 11008 x 4096, one wave: 126 tiles of 88 rows 25.9 us, 115 of 96 27.4, 106 of 104 28.5, 86
    // of 128 32.4; docs/perf/gemm.md#swap-ab).
    const double swapped = c.swap_ab ? std::sqrt(waves * slots / units) : 1.0;
    return time * cluster * raster * consumers * swapped;
}

std::vector<sm90_config> sm90_ranked(const problem& p, const sm90_device& d) {
    return rank_by_cost(sm90_configs(p, d),
                        [&](const sm90_config& c) { return sm90_cost(c, p, d); });
}

int sm90_decode_form(const sm90_config& c) noexcept {
    return c.swap_ab != 0 ? 3 : c.splits > 1 ? 1 : c.cluster_b != 0 ? 2 : 0;
}

std::vector<sm90_config> sm90_picks(const std::vector<sm90_config>& ranked, const problem& p,
                                    const sm90_device& d, std::size_t count) {
    std::vector<sm90_config> out;
    if (ranked.empty() || count == 0) return out;
    out.push_back(ranked.front());
    const double best = sm90_cost(ranked.front(), p, d);
    std::vector<int> forms{sm90_decode_form(ranked.front())};
    for (const sm90_config& c : p.m <= 64 ? ranked : std::vector<sm90_config>{}) {
        if (out.size() >= count || sm90_cost(c, p, d) > 1.15 * best) break;
        if (std::find(forms.begin(), forms.end(), sm90_decode_form(c)) != forms.end()) continue;
        forms.push_back(sm90_decode_form(c));
        out.push_back(c);
    }
    for (const sm90_config& c : ranked) {
        if (out.size() >= count) break;
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    return out;
}

} // namespace ktune::gemm::detail
