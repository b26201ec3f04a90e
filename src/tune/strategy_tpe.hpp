#pragma once
// A tree-structured-Parzen-estimator (TPE) proposal rule (Bergstra et al., NeurIPS 2011) over
// a discrete space, and a space-filling pick for initial designs.
//
// TPE models p(x | good) and p(x | rest) per axis instead of time given x: with the best
// fraction of observations as "good", a candidate drawn from the good densities is scored by the
// ratio l(x) / g(x), which is the expected-improvement ordering under TPE's assumptions. It
// handles categorical axes (counts per value) and ordered axes (a one-step Parzen kernel) alike,
// costs a few counts per proposal (no library needed: nothing to fit), and is strongest where
// the model-based screen is weakest: a few axes that must each take a particular value, with
// others free. Its per-axis factorisation ignores interactions; the bandit in `auto` pairs it
// with rules that do not.

#include "ktune/tune/searcher.hpp"

#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace ktune::tune::detail {

/// One unproposed valid config from the TPE rule, or nothing when it could not find one.
/// `ranked`: ok observations sorted by time; `failed`: failed configs (counted as "rest").
std::optional<point> propose_tpe(const space& s,
                                 const std::vector<std::pair<double, point>>& ranked,
                                 const std::vector<point>& failed, rng& r,
                                 const std::function<bool(const point&)>& taken);

/// Of the candidates, the one farthest from every point in `measured` (the smallest distance
/// over measured points is largest; per axis |Δindex| / (values − 1) on ordered axes, 0/1 on
/// enums), so a short initial design covers each axis' range instead of clustering.
std::size_t farthest(const space& s, const std::vector<point>& candidates,
                     const std::vector<point>& measured);

} // namespace ktune::tune::detail
