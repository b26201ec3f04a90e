#pragma once
// Pieces shared by strategies: drawing configs not proposed yet, numeric features of a point.

#include "ktune/tune/searcher.hpp"

#include <functional>
#include <vector>

namespace ktune::tune::detail {

/// Uniform draws of valid configs that `seen` rejects. Rejection while most of the space is
/// unseen; once draws keep colliding, the unseen remainder is listed and shuffled (only
/// happens for spaces small enough to list).
class unseen_sampler {
public:
    void draw(const space& s, rng& r, std::size_t n, std::vector<point>& out,
              const std::function<bool(const point&)>& seen);

private:
    std::vector<point> rest_;
    bool listed_ = false;
};

/// One uniformly random neighbour-style mutation of p: each axis changes with probability
/// rate (at least one), to an adjacent value (ordered axes, mostly) or any value.
point mutate(const space& s, const point& p, rng& r, double rate);

/// The nearest valid config to p (p itself when valid): a few random repairs of single axes,
/// else a fresh uniform sample.
point repair(const space& s, point p, rng& r);

/// Feature vector of a point for a surrogate model: each axis' numeric value (log2 for
/// power-of-two and positive ranges spanning ≥ 8x, where effects are multiplicative).
std::vector<float> features(const space& s, const point& p);

} // namespace ktune::tune::detail
