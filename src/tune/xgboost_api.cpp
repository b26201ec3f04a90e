#include "tune/xgboost_api.hpp"

#include "core/shared_library.hpp"
#include "ktune/core/error.hpp"

namespace ktune::tune::detail {
namespace {

void resolve(const ktune::detail::shared_library& lib, xgboost_api& a) {
    KTUNE_RESOLVE(lib, a, XGBGetLastError);
    KTUNE_RESOLVE(lib, a, XGDMatrixCreateFromMat);
    KTUNE_RESOLVE(lib, a, XGDMatrixSetFloatInfo);
    KTUNE_RESOLVE(lib, a, XGDMatrixFree);
    KTUNE_RESOLVE(lib, a, XGBoosterCreate);
    KTUNE_RESOLVE(lib, a, XGBoosterSetParam);
    KTUNE_RESOLVE(lib, a, XGBoosterUpdateOneIter);
    KTUNE_RESOLVE(lib, a, XGBoosterPredict);
    KTUNE_RESOLVE(lib, a, XGBoosterFree);
}

} // namespace

const xgboost_api& xgboost() {
    // Debian's libxgboost0 ships the versioned soname; pip's wheel an unversioned file.
    return ktune::detail::load_once<xgboost_api>(
        {"libxgboost.so.0", "libxgboost.so"}, "XGBoost (the model-guided search strategies)",
        "Install libxgboost0 (apt-get install libxgboost-dev) or put libxgboost.so on "
        "LD_LIBRARY_PATH, or pick a strategy that needs no model.",
        resolve);
}

const xgboost_api* xgboost_or_null() noexcept {
    try {
        return &xgboost();
    } catch (const error&) {
        return nullptr;
    }
}

} // namespace ktune::tune::detail
