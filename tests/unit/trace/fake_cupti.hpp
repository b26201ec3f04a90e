#pragma once
// A fake CUPTI behind the seam: records are packed into buffers handed out by the collector's
// own buffer-requested callback and returned through buffer-completed, as CUPTI does.
#include "trace/cupti_seam.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace ktune::test {

class fake_cupti final : public trace::detail::cupti_api {
public:
    std::uint32_t version = CUPTI_API_VERSION;
    CUptiResult subscribe_result = CUPTI_SUCCESS;
    std::string holder;
    std::size_t dropped_per_buffer = 0;
    std::vector<CUpti_ActivityKind> enabled;
    std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> callbacks;
    std::vector<CUpti_ActivityAttribute> attributes;
    std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> api_records, api_off;
    callback_fn callback = nullptr;
    int flushes = 0;
    int pops = 0;

    template <class T>
    void add(const T& record) {
        const auto* p = reinterpret_cast<const std::uint8_t*>(&record);
        pending_.emplace_back(p, p + sizeof(T));
    }
    /// Packs pending records into one CUPTI buffer and completes it.
    void deliver() {
        if (pending_.empty()) return;
        std::uint8_t* buf = nullptr;
        std::size_t size = 0, max = 0;
        requested_(&buf, &size, &max);
        offsets_.clear();
        cursor_ = 0;
        std::size_t used = 0;
        for (const auto& r : pending_) {
            offsets_.push_back(used);
            std::memcpy(buf + used, r.data(), r.size());
            used += (r.size() + 7) / 8 * 8;
        }
        pending_.clear();
        completed_(nullptr, 0, buf, size, used);
    }

    CUptiResult get_version(std::uint32_t* v) override { return *v = version, CUPTI_SUCCESS; }
    CUptiResult subscribe(std::string* other, callback_fn cb) override {
        if (subscribe_result != CUPTI_SUCCESS && other) *other = holder;
        if (subscribe_result == CUPTI_SUCCESS) callback = cb;
        return subscribe_result;
    }
    CUptiResult enable_callback(CUpti_CallbackDomain d, CUpti_CallbackId id, bool on) override {
        std::erase(callbacks, std::make_pair(d, id));
        if (on) callbacks.emplace_back(d, id);
        return CUPTI_SUCCESS;
    }
    CUptiResult set_attribute(CUpti_ActivityAttribute a, std::size_t, void*) override {
        attributes.push_back(a);
        return CUPTI_SUCCESS;
    }
    CUptiResult enable_api_record(CUpti_CallbackDomain d, CUpti_CallbackId id, bool on) override {
        const auto key = std::make_pair(d, id);
        std::erase(api_records, key);
        std::erase(api_off, key);
        (on ? api_records : api_off).push_back(key);
        return CUPTI_SUCCESS;
    }
    CUptiResult push_external(std::uint64_t id) override {
        external_stack().push_back(id);
        return CUPTI_SUCCESS;
    }
    CUptiResult pop_external() override {
        ++pops;
        if (external_stack().empty()) return CUPTI_ERROR_QUEUE_EMPTY;
        external_stack().pop_back();
        return CUPTI_SUCCESS;
    }
    /// Whether an API's records are on: per API, or through its domain's kind unless turned
    /// off per API (the kind overrides per-API settings made before it; not modelled).
    bool api_record_on(CUpti_CallbackDomain d, CUpti_CallbackId id) const {
        const auto key = std::make_pair(d, id);
        if (std::find(api_records.begin(), api_records.end(), key) != api_records.end())
            return true;
        return kind_on(domain_kind(d)) &&
               std::find(api_off.begin(), api_off.end(), key) == api_off.end();
    }
    bool kind_on(CUpti_ActivityKind k) const {
        return std::find(enabled.begin(), enabled.end(), k) != enabled.end();
    }
    static CUpti_ActivityKind domain_kind(CUpti_CallbackDomain d) {
        return d == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_ACTIVITY_KIND_RUNTIME
                                                : CUPTI_ACTIVITY_KIND_DRIVER;
    }
    /// A launch API call as CUPTI sees it: the subscriber at entry and exit (if that callback
    /// is on), and, if its API record is on, an EXTERNAL_CORRELATION record (when an id is
    /// pushed on this thread and the domain's kind is on: the assumption of range_links.cpp
    /// after the first GPU run) followed by the API record. With `nested`, a runtime launch makes
    /// the driver's cuLaunchKernel call inside it (its own correlation id: `correlation` + 1000).
    void launch(CUpti_CallbackDomain d, CUpti_CallbackId id, std::uint32_t correlation,
                bool nested = false) {
        const auto on = [](const auto& list, CUpti_CallbackDomain dd, CUpti_CallbackId ii) {
            for (const auto& c : list)
                if (c.first == dd && c.second == ii) return true;
            return false;
        };
        CUpti_CallbackData data{};
        data.correlationId = correlation;
        last_correlation = std::max(last_correlation, correlation);
        const bool cb = on(callbacks, d, id) && callback;
        if (cb) {
            data.callbackSite = CUPTI_API_ENTER;
            callback(nullptr, d, id, &data);
        }
        if (nested)
            launch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                   correlation + 1000);
        if (cb) {
            data.callbackSite = CUPTI_API_EXIT;
            callback(nullptr, d, id, &data);
        }
        if (!api_record_on(d, id)) return;
        if (!external_stack().empty() && kind_on(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) &&
            kind_on(domain_kind(d))) {
            CUpti_ActivityExternalCorrelation e{};
            e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
            e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
            e.externalId = external_stack().back();
            e.correlationId = correlation;
            add_api(e);
        }
        CUpti_ActivityAPI a{};
        a.kind = d == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_ACTIVITY_KIND_RUNTIME
                                                  : CUPTI_ACTIVITY_KIND_DRIVER;
        a.cbid = id;
        a.correlationId = correlation;
        add_api(a);
    }
    /// cuDriverGetVersion as CUPTI sees it: the next correlation id, given to the subscriber at
    /// entry and exit if that callback is on.
    CUptiResult call_marker() override {
        ++markers;
        const auto id = CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion;
        CUpti_CallbackData data{};
        data.correlationId = ++last_correlation;
        for (const auto& c : callbacks)
            if (c.first == CUPTI_CB_DOMAIN_DRIVER_API && c.second == id && callback) {
                data.callbackSite = CUPTI_API_ENTER;
                callback(nullptr, CUPTI_CB_DOMAIN_DRIVER_API, id, &data);
                data.callbackSite = CUPTI_API_EXIT;
                callback(nullptr, CUPTI_CB_DOMAIN_DRIVER_API, id, &data);
            }
        return CUPTI_SUCCESS;
    }
    std::uint32_t last_correlation = 0; ///< CUPTI's counter: launches and markers share it
    int markers = 0;
    /// API records go to their own buffer (CUPTI's per-thread buffers): deliver_api() hands it
    /// over, so tests can complete it before or after the kernels' buffer.
    template <class T>
    void add_api(const T& record) {
        const auto* p = reinterpret_cast<const std::uint8_t*>(&record);
        api_pending_.emplace_back(p, p + sizeof(T));
    }
    void deliver_api() {
        std::swap(pending_, api_pending_);
        auto kernels = std::move(api_pending_);
        api_pending_.clear();
        deliver();
        pending_ = std::move(kernels);
    }
    CUptiResult unsubscribe() override { return CUPTI_SUCCESS; }
    CUptiResult register_callbacks(requested_fn r, completed_fn d) override {
        requested_ = r;
        completed_ = d;
        return CUPTI_SUCCESS;
    }
    std::vector<CUpti_ActivityKind> unsupported; ///< kinds enable() refuses
    bool hw_trace_supported = false;             ///< as on a Hopper GPU
    CUptiResult enable_hw_trace(bool) override {
        return hw_trace_supported ? CUPTI_SUCCESS : CUPTI_ERROR_NOT_SUPPORTED;
    }
    CUptiResult enable(CUpti_ActivityKind k) override {
        if (std::find(unsupported.begin(), unsupported.end(), k) != unsupported.end())
            return CUPTI_ERROR_NOT_SUPPORTED;
        return enabled.push_back(k), CUPTI_SUCCESS;
    }
    CUptiResult disable(CUpti_ActivityKind k) override {
        return std::erase(enabled, k), CUPTI_SUCCESS;
    }
    CUptiResult flush_all(std::uint32_t) override {
        ++flushes;
        deliver_api();
        deliver();
        return CUPTI_SUCCESS;
    }
    CUptiResult next_record(std::uint8_t* b, std::size_t, CUpti_Activity** r) override {
        if (cursor_ >= offsets_.size()) return CUPTI_ERROR_MAX_LIMIT_REACHED;
        *r = reinterpret_cast<CUpti_Activity*>(b + offsets_[cursor_++]);
        return CUPTI_SUCCESS;
    }
    CUptiResult dropped(CUcontext, std::uint32_t, std::size_t* n) override {
        return *n = dropped_per_buffer, CUPTI_SUCCESS;
    }
    CUptiResult timestamp(std::uint64_t* ns) override { return *ns = now_ns, CUPTI_SUCCESS; }
    std::uint64_t now_ns = 1000;

private:
    static std::vector<std::uint64_t>& external_stack() {
        thread_local std::vector<std::uint64_t> s; // CUPTI's stack is per thread
        return s;
    }
    std::vector<std::vector<std::uint8_t>> api_pending_;
    requested_fn requested_ = nullptr;
    completed_fn completed_ = nullptr;
    std::vector<std::vector<std::uint8_t>> pending_;
    std::vector<std::size_t> offsets_;
    std::size_t cursor_ = 0;
};

inline CUpti_ActivityKernel10 make_kernel(const char* name, std::uint64_t start, std::uint64_t end,
                                          std::uint32_t correlation) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = name;
    k.start = start;
    k.end = end;
    k.deviceId = 0;
    k.contextId = 1;
    k.streamId = 7;
    k.correlationId = correlation;
    k.gridX = 128, k.gridY = 1, k.gridZ = 1;
    k.blockX = 256, k.blockY = 1, k.blockZ = 1;
    k.registersPerThread = 32;
    k.staticSharedMemory = 1024;
    k.dynamicSharedMemory = 0;
    return k;
}

} // namespace ktune::test
