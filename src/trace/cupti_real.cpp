// The production side of the CUPTI seam: each call forwards to libcupti.
#include "cupti_seam.hpp"

#include "core/driver_api.hpp"

namespace ktune::trace::detail {
namespace {

class real final : public cupti_api {
public:
    CUptiResult get_version(std::uint32_t* v) override { return cuptiGetVersion(v); }
    CUptiResult subscribe(std::string* other, callback_fn callback) override {
        char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
        CUpti_SubscriberParams p{};
        p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
        p.subscriberName = "ktune";
        p.oldSubscriberName = old;
        p.oldSubscriberSize = sizeof old - 1;
        const CUptiResult rc = cuptiSubscribe_v2(&subscriber_, callback, nullptr, &p);
        if (rc != CUPTI_SUCCESS && other) *other = old;
        return rc;
    }
    CUptiResult unsubscribe() override {
        if (!subscriber_) return CUPTI_SUCCESS;
        const CUptiResult rc = cuptiUnsubscribe(subscriber_);
        subscriber_ = nullptr;
        return rc;
    }
    CUptiResult enable_callback(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                bool on) override {
        return subscriber_ ? cuptiEnableCallback(on ? 1 : 0, subscriber_, domain, id)
                           : CUPTI_ERROR_NOT_INITIALIZED;
    }
    CUptiResult enable_api_record(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                  bool on) override {
        return domain == CUPTI_CB_DOMAIN_RUNTIME_API ? cuptiActivityEnableRuntimeApi(id, on)
                                                     : cuptiActivityEnableDriverApi(id, on);
    }
    CUptiResult push_external(std::uint64_t id) override {
        return cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
    }
    CUptiResult pop_external() override {
        return cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                                     nullptr);
    }
    CUptiResult call_marker() override {
        // Resolved once, through cudart (ktune never links libcuda).
        static const auto version = ktune::detail::driver_fn<int (*)(int*)>("cuDriverGetVersion");
        int v = 0;
        return version && version(&v) == 0 ? CUPTI_SUCCESS : CUPTI_ERROR_NOT_INITIALIZED;
    }
    CUptiResult set_attribute(CUpti_ActivityAttribute attr, std::size_t bytes,
                              void* value) override {
        return cuptiActivitySetAttribute(attr, &bytes, value);
    }
    CUptiResult register_callbacks(requested_fn req, completed_fn done) override {
        return cuptiActivityRegisterCallbacks(req, done);
    }
    CUptiResult enable(CUpti_ActivityKind k) override { return cuptiActivityEnable(k); }
    CUptiResult disable(CUpti_ActivityKind k) override { return cuptiActivityDisable(k); }
    CUptiResult flush_all(std::uint32_t flag) override { return cuptiActivityFlushAll(flag); }
    CUptiResult next_record(std::uint8_t* b, std::size_t valid, CUpti_Activity** r) override {
        return cuptiActivityGetNextRecord(b, valid, r);
    }
    CUptiResult dropped(CUcontext ctx, std::uint32_t stream, std::size_t* n) override {
        return cuptiActivityGetNumDroppedRecords(ctx, stream, n);
    }
    CUptiResult timestamp(std::uint64_t* ns) override { return cuptiGetTimestamp(ns); }
    CUptiResult enable_hw_trace(bool on) override { return cuptiActivityEnableHWTrace(on ? 1 : 0); }

private:
    CUpti_SubscriberHandle subscriber_ = nullptr;
};

} // namespace

std::unique_ptr<cupti_api> real_cupti() {
    return std::make_unique<real>();
}

} // namespace ktune::trace::detail
