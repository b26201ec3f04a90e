#include "gemm/sm90_space.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ktune::gemm::detail {

std::vector<sm90_config> sm90_grid() {
    std::vector<sm90_config> out;
    for (int bn = 64; bn <= 256; bn += 16)
        for (int stages = 2; stages <= 8; ++stages)
            for (int consumers = 1; consumers <= 2; ++consumers)
                for (int group : {1, 2, 4, 8, 16, 32})
                    for (int cluster = 1; cluster <= 2; ++cluster)
                        for (int epi : {0, 1, 2, 4, 8})
                            for (int tma = 0; tma <= 1; ++tma)
                                out.push_back({bn, stages, consumers, group, cluster, epi, tma});
    return out;
}

std::vector<sm90_config> sm90_configs(const problem& p, const sm90_device& d) {
    std::vector<sm90_config> out;
    for (const sm90_config& c : sm90_grid())
        if (sm90_rejects(c, p, d.max_shared).empty()) out.push_back(c);
    return out;
}

double sm90_cost(const sm90_config& c, const problem& p, const sm90_device& d) {
    // D's transpose in BM x BN tiles (rows: N, columns: M), persistent over the SMs (clusters:
    // pairs of tiles over half of them).
    const double bm = sm90_bm(c), bn = c.bn;
    const double tiles = std::ceil(double(p.n) / bm) * std::ceil(double(p.m) / bn);
    const double slots = std::max(1, d.sms / c.cluster * c.cluster);
    const double waves = std::ceil(tiles / slots);
    // Each wave costs one tile's time; a tile's time grows with its area and with the operand
    // bytes a FLOP needs (bm + bn per bm * bn), which the smem ring and L2 must feed: a small
    // tile runs under the tensor cores' rate. Normalised to 128 x 256.
    const double area = bm * bn / (128.0 * 256.0);
    const double feed = (bm + bn) / (bm * bn) / ((128.0 + 256.0) / (128.0 * 256.0));
    const double tile_time = area * std::max(1.0, 0.75 + 0.25 * feed);
    // Two stages cannot hide a slab's latency (three measure as four); the epilogue through
    // the TMA store overlaps the next tile (0.90x at 4096^3 on an H200), the deferred one part
    // of it; clusters measured slower (docs/perf/gemm.md#hopper-template); a group of 8 is the
    // usual L2 sweet spot.
    const double pipeline = c.stages == 2 ? 1.15 : 1.0;
    const double epilogue = c.tma_store ? 0.90 : c.epi_parts > 0 ? 0.97 : 1.0;
    const double raster = c.group == 8 ? 1.0 : 1.005;
    const double cluster = c.cluster > 1 ? 1.25 : 1.0;
    return waves * tile_time * pipeline * epilogue * raster * cluster;
}

std::vector<sm90_config> sm90_ranked(const problem& p, const sm90_device& d) {
    std::vector<sm90_config> cs = sm90_configs(p, d);
    std::vector<double> cost(cs.size());
    for (std::size_t i = 0; i < cs.size(); ++i)
        cost[i] = sm90_cost(cs[i], p, d);
    std::vector<std::size_t> order(cs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return cost[a] < cost[b]; });
    std::vector<sm90_config> out;
    out.reserve(cs.size());
    for (const std::size_t i : order)
        out.push_back(cs[i]);
    return out;
}

} // namespace ktune::gemm::detail
