#pragma once
// XGBoost's C API, opened on first use: only the model-guided strategies need it, and a link
// dependency would map it (and its OpenMP runtime) into every ktune process
// (docs/perf/startup.md). Compiled only with KTUNE_WITH_XGBOOST (its header is needed).
//
//   if (const auto* xgb = ktune::tune::detail::xgboost_or_null()) xgb->XGBoosterFree(h);
#include <xgboost/c_api.h>

namespace ktune::tune::detail {

/// The XGBoost entry points ktune calls, named as in xgboost/c_api.h.
struct xgboost_api {
    decltype(&::XGBGetLastError) XGBGetLastError = nullptr;
    decltype(&::XGDMatrixCreateFromMat) XGDMatrixCreateFromMat = nullptr;
    decltype(&::XGDMatrixSetFloatInfo) XGDMatrixSetFloatInfo = nullptr;
    decltype(&::XGDMatrixFree) XGDMatrixFree = nullptr;
    decltype(&::XGBoosterCreate) XGBoosterCreate = nullptr;
    decltype(&::XGBoosterSetParam) XGBoosterSetParam = nullptr;
    decltype(&::XGBoosterUpdateOneIter) XGBoosterUpdateOneIter = nullptr;
    decltype(&::XGBoosterPredict) XGBoosterPredict = nullptr;
    decltype(&::XGBoosterFree) XGBoosterFree = nullptr;
};

/// Loads libxgboost once per process (thread-safe); throws error_kind::unsupported naming the
/// library where it or a symbol is missing. A failed load is retried on the next call.
const xgboost_api& xgboost();

/// xgboost(), or nullptr where it cannot be loaded (the strategy registry's availability test).
const xgboost_api* xgboost_or_null() noexcept;

} // namespace ktune::tune::detail
