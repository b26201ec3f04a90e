#include "host_object.hpp"

#include "core/check_private.hpp"
#include "ktune/core/error.hpp"

#include <algorithm>

namespace ktune::metrics::detail {
namespace {

std::vector<const char*> c_names(std::span<const std::string> metrics) {
    std::vector<const char*> out;
    out.reserve(metrics.size());
    for (const auto& m : metrics)
        out.push_back(m.c_str());
    return out;
}

} // namespace

void require_profiler_host_usable() {
#if defined(__SANITIZE_ADDRESS__)
    throw error(error_kind::unsupported,
                "CUPTI's profiler host is unusable under AddressSanitizer (it dlopens "
                "libnvperf_host with RTLD_DEEPBIND): use a build without KTUNE_SANITIZE");
#endif
}

host_object::host_object(std::string_view chip, std::span<const std::uint8_t> counter_availability)
    : chip_(chip) {
    require_profiler_host_usable();
    CUpti_Profiler_Host_Initialize_Params p{};
    p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip_.c_str();
    p.pCounterAvailabilityImage =
        counter_availability.empty() ? nullptr : counter_availability.data();
    if (const CUptiResult rc = cuptiProfilerHostInitialize(&p);
        rc != CUPTI_SUCCESS || !p.pHostObject)
        throw error(error_kind::not_found,
                    "CUPTI's profiler host does not know the chip '" + chip_ + "' (" +
                        ktune::detail::cupti_message(rc, "cuptiProfilerHostInitialize", __FILE__,
                                                     __LINE__) +
                        "): use a CUPTI chip name such as GH100, GA100, AD102 or GB100");
    obj_ = p.pHostObject;
}

host_object::~host_object() {
    if (!obj_) return;
    CUpti_Profiler_Host_Deinitialize_Params p{};
    p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    p.pHostObject = obj_;
    (void)KTUNE_CUPTI_CALL_NOEXCEPT(cuptiProfilerHostDeinitialize(&p));
}

bool host_object::try_add(std::span<const std::string> metrics) noexcept {
    try {
        auto names = c_names(metrics);
        CUpti_Profiler_Host_ConfigAddMetrics_Params p{};
        p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
        p.pHostObject = obj_;
        p.ppMetricNames = names.data();
        p.numMetrics = names.size();
        return cuptiProfilerHostConfigAddMetrics(&p) == CUPTI_SUCCESS;
    } catch (...) {
        return false;
    }
}

void host_object::add(std::span<const std::string> metrics) {
    auto names = c_names(metrics);
    CUpti_Profiler_Host_ConfigAddMetrics_Params p{};
    p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    p.pHostObject = obj_;
    p.ppMetricNames = names.data();
    p.numMetrics = names.size();
    KTUNE_CUPTI_CALL(cuptiProfilerHostConfigAddMetrics(&p));
}

std::vector<std::uint8_t> host_object::config_image() const {
    CUpti_Profiler_Host_GetConfigImageSize_Params s{};
    s.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    s.pHostObject = obj_;
    KTUNE_CUPTI_CALL(cuptiProfilerHostGetConfigImageSize(&s));
    std::vector<std::uint8_t> image(s.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params g{};
    g.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    g.pHostObject = obj_;
    g.configImageSize = image.size();
    g.pConfigImage = image.data();
    KTUNE_CUPTI_CALL(cuptiProfilerHostGetConfigImage(&g));
    return image;
}

std::vector<double> host_object::evaluate(std::span<const std::uint8_t> counter_data,
                                          std::size_t range_index,
                                          std::span<const std::string> metrics) const {
    auto names = c_names(metrics);
    std::vector<double> values(metrics.size());
    CUpti_Profiler_Host_EvaluateToGpuValues_Params p{};
    p.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    p.pHostObject = obj_;
    p.pCounterDataImage = counter_data.data();
    p.counterDataImageSize = counter_data.size();
    p.rangeIndex = range_index;
    p.ppMetricNames = names.data();
    p.numMetrics = names.size();
    p.pMetricValues = values.data();
    KTUNE_CUPTI_CALL(cuptiProfilerHostEvaluateToGpuValues(&p));
    return values;
}

std::size_t passes_of(std::vector<std::uint8_t>& config_image) {
    CUpti_Profiler_Host_GetNumOfPasses_Params p{};
    p.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    p.configImageSize = config_image.size();
    p.pConfigImage = config_image.data();
    KTUNE_CUPTI_CALL(cuptiProfilerHostGetNumOfPasses(&p));
    return p.numOfPasses;
}

} // namespace ktune::metrics::detail
