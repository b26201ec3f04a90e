#pragma once
// The built-in strategies, registered by searcher.cpp's registry on first use.

#include "ktune/tune/searcher.hpp"

#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace ktune::tune::detail {

using factory = std::function<std::unique_ptr<searcher>()>;
std::vector<std::pair<strategy_info, factory>> builtin_strategies();

std::unique_ptr<searcher> make_exhaustive();
std::unique_ptr<searcher> make_random();
std::unique_ptr<searcher> make_genetic();
std::unique_ptr<searcher> make_genetic_named(std::string_view name);
std::unique_ptr<searcher> make_annealing();
std::unique_ptr<searcher> make_model(); ///< nullptr when built without XGBoost
std::unique_ptr<searcher> make_auto();
/// Bandit over local / genetic / random proposals; screen: XGBoost picks among candidates.
std::unique_ptr<searcher> make_portfolio(std::string_view name, bool screen);
/// Space-filling design, then tree-structured Parzen estimator proposals (strategy_tpe.hpp).
std::unique_ptr<searcher> make_tpe();
std::unique_ptr<searcher> make_hybrid(); ///< model-screened genetic + local refinement

} // namespace ktune::tune::detail
