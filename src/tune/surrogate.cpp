// XGBoost C API behind detail::surrogate; without KTUNE_WITH_XGBOOST the class reports
// itself unavailable and the registry leaves out the strategies that need it.
#include "tune/surrogate.hpp"

#include "ktune/core/error.hpp"
#include "ktune/core/handle.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#ifdef KTUNE_WITH_XGBOOST
#include "tune/xgboost_api.hpp"
#endif

namespace ktune::tune::detail {

#ifdef KTUNE_WITH_XGBOOST
namespace {

struct matrix_deleter {
    void operator()(DMatrixHandle h) const noexcept { xgboost().XGDMatrixFree(h); }
};
struct booster_deleter {
    void operator()(BoosterHandle h) const noexcept { xgboost().XGBoosterFree(h); }
};
using matrix = unique_handle<DMatrixHandle, matrix_deleter>;
using booster = unique_handle<BoosterHandle, booster_deleter>;

void check(int rc, const char* call) {
    if (rc != 0)
        throw error(error_kind::internal,
                    fmt::format("XGBoost {} failed: {}", call, xgboost().XGBGetLastError()));
}

matrix make_matrix(const std::vector<float>& x, std::size_t ncol) {
    DMatrixHandle h = nullptr;
    check(xgboost().XGDMatrixCreateFromMat(x.data(), x.size() / ncol, ncol, std::nanf(""), &h),
          "XGDMatrixCreateFromMat");
    return matrix(h);
}

} // namespace

struct surrogate::impl {
    int members, rounds, depth;
    std::vector<booster> boosters;
};

bool surrogate_compiled() noexcept {
    return true;
}

bool surrogate_available() noexcept {
    return xgboost_or_null() != nullptr;
}

void require_surrogate() {
    (void)xgboost();
}

surrogate::surrogate(int members, int rounds, int depth)
    : impl_(std::make_unique<impl>(impl{members, rounds, depth, {}})) {}
surrogate::~surrogate() = default;

void surrogate::fit(const std::vector<float>& x, const std::vector<float>& y, std::size_t ncol,
                    std::uint64_t seed) {
    matrix train = make_matrix(x, ncol);
    check(xgboost().XGDMatrixSetFloatInfo(train.get(), "label", y.data(), y.size()),
          "XGDMatrixSetFloatInfo");
    impl_->boosters.clear();
    for (int m = 0; m < impl_->members; ++m) {
        DMatrixHandle dm[] = {train.get()};
        BoosterHandle h = nullptr;
        check(xgboost().XGBoosterCreate(dm, 1, &h), "XGBoosterCreate");
        booster b(h);
        // One thread: deterministic, and rows are few (the search's history), so threads
        // would cost more than they save.
        const std::pair<const char*, std::string> params[] = {
            {"nthread", "1"},
            {"verbosity", "0"},
            {"tree_method", "hist"},
            {"max_depth", std::to_string(impl_->depth)},
            {"eta", "0.15"},
            {"min_child_weight", "1"},
            {"subsample", impl_->members > 1 ? "0.8" : "1"},
            {"colsample_bynode", impl_->members > 1 ? "0.8" : "1"},
            {"seed", std::to_string((seed + 7919 * static_cast<std::uint64_t>(m)) % 2147483647)},
        };
        for (const auto& [k, v] : params)
            check(xgboost().XGBoosterSetParam(h, k, v.c_str()), "XGBoosterSetParam");
        for (int it = 0; it < impl_->rounds; ++it)
            check(xgboost().XGBoosterUpdateOneIter(h, it, train.get()), "XGBoosterUpdateOneIter");
        impl_->boosters.push_back(std::move(b));
    }
}

void surrogate::predict(const std::vector<float>& x, std::size_t ncol, std::vector<float>& mean,
                        std::vector<float>& spread) const {
    const std::size_t rows = x.size() / ncol;
    mean.assign(rows, 0.f);
    spread.assign(rows, 0.f);
    if (impl_->boosters.empty() || rows == 0) return;
    matrix m = make_matrix(x, ncol);
    std::vector<double> sum(rows, 0.0), sum2(rows, 0.0);
    for (const auto& b : impl_->boosters) {
        bst_ulong len = 0;
        const float* out = nullptr;
        check(xgboost().XGBoosterPredict(b.get(), m.get(), 0, 0, 0, &len, &out),
              "XGBoosterPredict");
        for (std::size_t r = 0; r < rows && r < len; ++r) {
            sum[r] += out[r];
            sum2[r] += double(out[r]) * out[r];
        }
    }
    const double k = static_cast<double>(impl_->boosters.size());
    for (std::size_t r = 0; r < rows; ++r) {
        mean[r] = static_cast<float>(sum[r] / k);
        spread[r] =
            static_cast<float>(std::sqrt(std::max(0.0, sum2[r] / k - (sum[r] / k) * (sum[r] / k))));
    }
}

#else

struct surrogate::impl {};
bool surrogate_compiled() noexcept {
    return false;
}
bool surrogate_available() noexcept {
    return false;
}
void require_surrogate() {
    throw error(error_kind::unsupported, "ktune was built without XGBoost (KTUNE_WITH_XGBOOST)");
}
surrogate::surrogate(int, int, int) {}
surrogate::~surrogate() = default;
void surrogate::fit(const std::vector<float>&, const std::vector<float>&, std::size_t,
                    std::uint64_t) {
    throw error(error_kind::unsupported, "ktune was built without XGBoost (KTUNE_WITH_XGBOOST)");
}
void surrogate::predict(const std::vector<float>&, std::size_t, std::vector<float>&,
                        std::vector<float>&) const {
    throw error(error_kind::unsupported, "ktune was built without XGBoost (KTUNE_WITH_XGBOOST)");
}

#endif

} // namespace ktune::tune::detail
