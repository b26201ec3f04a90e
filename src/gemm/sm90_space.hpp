#pragma once
// The search space of ktune's Hopper GEMM template (docs/perf/gemm.md#hopper-template): every
// knob's values, the configs the rules (sm90_rejects) keep for a problem, and a cost-model prior
// that ranks them before anything is measured, as DeepGEMM ranks its configs: waves of tiles
// (and K slices) over the SMs and the work wasted on partial tiles, the tile's operand bytes per
// FLOP, and the bytes a block's ring keeps in flight where DRAM's stream binds (decode shapes).
//
//   auto configs = ktune::gemm::detail::sm90_configs(p, {132, 232448});
//   auto best_first = ktune::gemm::detail::sm90_ranked(p, {132, 232448});

#include "gemm/sm90.hpp"

#include <cstddef>
#include <vector>

namespace ktune::gemm::detail {

/// Every knob's values: bn {8, 16, 32, 48} and 64..256 by 16, stages 2..8, 10, 12, 16, 20, 24,
/// consumers 1..2, group {1, 2, 4, 8, 16, 32}, then no cluster, a cluster of 2 sharing A or one
/// sharing B x epi_parts {0, 1, 2, 4, 8} x tma_store 0..1 unsplit, or splits {2, 3, 4, 6, 8,
/// 12, 16} with the direct-store epilogue: 90,576 combinations before the rules.
std::vector<sm90_config> sm90_grid();
/// The grid's configs the rules keep for p on d, in grid order.
std::vector<sm90_config> sm90_configs(const problem& p, const sm90_device& d);
/// The prior's estimate of c's time on p relative to the others (lower is faster; only the
/// order means anything).
double sm90_cost(const sm90_config& c, const problem& p, const sm90_device& d);
/// sm90_configs ranked by the prior, best first (ties: grid order).
std::vector<sm90_config> sm90_ranked(const problem& p, const sm90_device& d);
/// A decode config's form, one the prior cannot order against the others: 0 unsplit alone,
/// 1 split-K, 2 a cluster sharing B, 3 swapped.
int sm90_decode_form(const sm90_config& c) noexcept;
/// The first `count` configs a tune measures, from `ranked` (sm90_ranked(p, d)): the prior's
/// best, then, for a decode GEMM (M <= 64), the best of each other form (unsplit alone, split-K,
/// a cluster sharing B, swapped) that the prior puts within 1.15x of the best, cheapest first
/// (DRAM-bound ties, which the prior cannot order: docs/perf/gemm.md#split-k-fixup), then the
/// ranked order.
std::vector<sm90_config> sm90_picks(const std::vector<sm90_config>& ranked, const problem& p,
                                    const sm90_device& d, std::size_t count);

} // namespace ktune::gemm::detail
