#include "tune/xgboost_api.hpp"

#include "core/shared_library.hpp"
#include "ktune/core/error.hpp"

namespace ktune::tune::detail {
namespace {

struct loaded_xgboost {
    ktune::detail::shared_library lib;
    xgboost_api api;
};

loaded_xgboost* load() {
    // Debian's libxgboost0 ships the versioned soname; pip's wheel an unversioned file.
    auto lib = ktune::detail::shared_library::open(
        {"libxgboost.so.0", "libxgboost.so"}, "XGBoost (the model-guided search strategies)",
        "Install libxgboost0 (apt-get install libxgboost-dev) or put libxgboost.so on "
        "LD_LIBRARY_PATH, or pick a strategy that needs no model.");
    xgboost_api a;
    KTUNE_RESOLVE(lib, a, XGBGetLastError);
    KTUNE_RESOLVE(lib, a, XGDMatrixCreateFromMat);
    KTUNE_RESOLVE(lib, a, XGDMatrixSetFloatInfo);
    KTUNE_RESOLVE(lib, a, XGDMatrixFree);
    KTUNE_RESOLVE(lib, a, XGBoosterCreate);
    KTUNE_RESOLVE(lib, a, XGBoosterSetParam);
    KTUNE_RESOLVE(lib, a, XGBoosterUpdateOneIter);
    KTUNE_RESOLVE(lib, a, XGBoosterPredict);
    KTUNE_RESOLVE(lib, a, XGBoosterFree);
    // Never freed: XGBoost's OpenMP threads may outlive any scope that could close it.
    return new loaded_xgboost{std::move(lib), a};
}

} // namespace

const xgboost_api& xgboost() {
    static const loaded_xgboost* const loaded = load();
    return loaded->api;
}

const xgboost_api* xgboost_or_null() noexcept {
    try {
        return &xgboost();
    } catch (const error&) {
        return nullptr;
    }
}

} // namespace ktune::tune::detail
