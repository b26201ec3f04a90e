#pragma once
// The configs of one of ktune's GEMM kernels ordered by a prior's cost, cheapest first, ties in
// their given order (sm90_space.cpp, mma.cpp).

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace ktune::gemm::detail {

template <class Config, class Cost>
std::vector<Config> rank_by_cost(const std::vector<Config>& configs, const Cost& cost) {
    std::vector<double> costs(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i)
        costs[i] = cost(configs[i]);
    std::vector<std::size_t> order(configs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return costs[a] < costs[b]; });
    std::vector<Config> out;
    out.reserve(configs.size());
    for (const std::size_t i : order)
        out.push_back(configs[i]);
    return out;
}

} // namespace ktune::gemm::detail
