#pragma once
// The search space of ktune's Hopper GEMM template (docs/perf/gemm.md#hopper-template): every
// knob's values, the configs the rules (sm90_rejects) keep for a problem, and a cost-model prior
// that ranks them before anything is measured, as DeepGEMM ranks its configs: waves of tiles
// over the SMs and the work wasted on partial tiles, then the tile's operand bytes per FLOP.
//
//   auto configs = ktune::gemm::detail::sm90_configs(p, {132, 232448});
//   auto best_first = ktune::gemm::detail::sm90_ranked(p, {132, 232448});

#include "gemm/sm90.hpp"

#include <cstddef>
#include <vector>

namespace ktune::gemm::detail {

/// Every knob's values: bn 64..256 by 16, stages 2..8, consumers 1..2, group {1, 2, 4, 8, 16,
/// 32}, cluster 1..2, epi_parts {0, 1, 2, 4, 8}, tma_store 0..1: 21,840 combinations before the
/// rules.
std::vector<sm90_config> sm90_grid();
/// The grid's configs the rules keep for p on d, in grid order.
std::vector<sm90_config> sm90_configs(const problem& p, const sm90_device& d);
/// The prior's estimate of c's time on p relative to the others (lower is faster; only the
/// order means anything).
double sm90_cost(const sm90_config& c, const problem& p, const sm90_device& d);
/// sm90_configs ranked by the prior, best first (ties: grid order).
std::vector<sm90_config> sm90_ranked(const problem& p, const sm90_device& d);

} // namespace ktune::gemm::detail
