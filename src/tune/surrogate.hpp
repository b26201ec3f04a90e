#pragma once
// A learned cost model for the search: an ensemble of gradient-boosted tree regressors
// (XGBoost, C API). Trees suit tuning spaces: effects are non-smooth (a tile that stops fitting
// in shared memory), interactions are strong (block × tile), and axes mix integers, powers of
// two and categories without scaling. XGBoost is a well-kept, deterministic-with-one-thread
// library with a stable C API in Debian; the members differ in their row/column subsampling
// seed, so their spread is an uncertainty estimate for the acquisition rule.
//
//   surrogate m(3);  m.fit(X, y, ncol, seed);  m.predict(Xc, ncol, mean, spread);

#include <cstdint>
#include <memory>
#include <vector>

namespace ktune::tune::detail {

/// True when built with XGBoost's header: the strategy registry lists the model strategies.
/// Cheap: the library itself is opened only when a surrogate is first needed.
bool surrogate_compiled() noexcept;
/// True when XGBoost can be used here: built with it and libxgboost loads (opens it once).
bool surrogate_available() noexcept;
/// Throws error_kind::unsupported naming the library (or the build option) where it cannot.
void require_surrogate();

class surrogate {
public:
    explicit surrogate(int members = 3, int rounds = 40, int depth = 6);
    ~surrogate();
    surrogate(const surrogate&) = delete;
    surrogate& operator=(const surrogate&) = delete;

    /// Row-major x (rows × ncol), y per row. Throws internal on an XGBoost failure.
    void fit(const std::vector<float>& x, const std::vector<float>& y, std::size_t ncol,
             std::uint64_t seed);
    /// Ensemble mean and standard deviation per row.
    void predict(const std::vector<float>& x, std::size_t ncol, std::vector<float>& mean,
                 std::vector<float>& spread) const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace ktune::tune::detail
