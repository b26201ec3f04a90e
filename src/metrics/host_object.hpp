#pragma once
// RAII over a CUPTI profiler host object (cupti_profiler_host.h). Private to src/metrics: the
// public headers never see CUPTI. Works without a GPU given a chip name.
//
//   host_object h("GH100");
//   if (h.try_add("dram__bytes.sum")) auto image = h.config_image();

#include <cupti_profiler_host.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::metrics::detail {

class host_object {
public:
    /// `counter_availability` is the image of the device (empty: offline, all counters).
    /// Throws error_kind::not_found for an unknown chip.
    explicit host_object(std::string_view chip,
                         std::span<const std::uint8_t> counter_availability = {});
    host_object(const host_object&) = delete;
    host_object& operator=(const host_object&) = delete;
    ~host_object();

    /// Adds metrics; false on failure, after which this object is unusable (CUPTI poisons it).
    [[nodiscard]] bool try_add(std::span<const std::string> metrics) noexcept;
    /// Adds metrics; throws error_kind::cupti on failure.
    void add(std::span<const std::string> metrics);
    /// The configuration image of every metric added so far.
    [[nodiscard]] std::vector<std::uint8_t> config_image() const;
    /// Values of `metrics` for range `range_index` of a decoded counter-data image.
    [[nodiscard]] std::vector<double> evaluate(std::span<const std::uint8_t> counter_data,
                                               std::size_t range_index,
                                               std::span<const std::string> metrics) const;
    [[nodiscard]] CUpti_Profiler_Host_Object* get() const noexcept { return obj_; }

private:
    std::string chip_;
    CUpti_Profiler_Host_Object* obj_ = nullptr;
};

/// Throws error_kind::unsupported in AddressSanitizer builds: CUPTI dlopens libnvperf_host with
/// RTLD_DEEPBIND, which the sanitizer runtime aborts on (google/sanitizers#611).
void require_profiler_host_usable();

/// Passes CUPTI needs for a configuration image.
std::size_t passes_of(std::vector<std::uint8_t>& config_image);

} // namespace ktune::metrics::detail
