#pragma once
// A fake CUPTI behind the seam: records are packed into buffers handed out by the collector's
// own buffer-requested callback and returned through buffer-completed, as CUPTI does.
#include "trace/cupti_seam.hpp"

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
    callback_fn callback = nullptr;
    int flushes = 0;

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
    CUptiResult enable_callback(CUpti_CallbackDomain d, CUpti_CallbackId id) override {
        callbacks.emplace_back(d, id);
        return CUPTI_SUCCESS;
    }
    CUptiResult set_attribute(CUpti_ActivityAttribute a, std::size_t, void*) override {
        attributes.push_back(a);
        return CUPTI_SUCCESS;
    }
    /// Calls the subscriber as CUPTI does at the entry of a launch API (if that callback is on).
    void launch(CUpti_CallbackDomain d, CUpti_CallbackId id, std::uint32_t correlation) {
        bool on = false;
        for (const auto& c : callbacks)
            on = on || (c.first == d && c.second == id);
        if (!on || !callback) return;
        CUpti_CallbackData data{};
        data.callbackSite = CUPTI_API_ENTER;
        data.correlationId = correlation;
        callback(nullptr, d, id, &data);
    }
    CUptiResult unsubscribe() override { return CUPTI_SUCCESS; }
    CUptiResult register_callbacks(requested_fn r, completed_fn d) override {
        requested_ = r;
        completed_ = d;
        return CUPTI_SUCCESS;
    }
    CUptiResult enable(CUpti_ActivityKind k) override {
        return enabled.push_back(k), CUPTI_SUCCESS;
    }
    CUptiResult disable(CUpti_ActivityKind) override { return CUPTI_SUCCESS; }
    CUptiResult flush_all(std::uint32_t) override {
        ++flushes;
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
    CUptiResult timestamp(std::uint64_t* ns) override { return *ns = 1000, CUPTI_SUCCESS; }

private:
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
