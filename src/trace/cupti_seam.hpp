#pragma once
// The seam in front of CUPTI's activity API. Production uses real_cupti(); unit tests derive a
// fake that hands synthetic CUpti_Activity* records to the collector through the very same
// buffer-requested / buffer-completed path, so the whole pipeline runs without a GPU.
#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ktune::trace::detail {

class cupti_api {
public:
    using requested_fn = void(CUPTIAPI*)(std::uint8_t**, std::size_t*, std::size_t*);
    using completed_fn = void(CUPTIAPI*)(CUcontext, std::uint32_t, std::uint8_t*, std::size_t,
                                         std::size_t);
    using callback_fn = void(CUPTIAPI*)(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*);
    virtual ~cupti_api() = default;
    virtual CUptiResult get_version(std::uint32_t* version) = 0;
    /// Claims CUPTI's single subscriber slot with `callback` (called only for the callbacks
    /// enabled through enable_callback); on failure `other` names the holder if known.
    virtual CUptiResult subscribe(std::string* other, callback_fn callback) = 0;
    /// Turns one API callback of the subscriber on or off (cuptiEnableCallback).
    virtual CUptiResult enable_callback(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                        bool on = true) = 0;
    /// cuptiActivitySetAttribute with a value of `bytes` bytes.
    virtual CUptiResult set_attribute(CUpti_ActivityAttribute attr, std::size_t bytes,
                                      void* value) = 0;
    /// Turns on activity API records for one launch API only (cuptiActivityEnableRuntimeApi /
    /// cuptiActivityEnableDriverApi): what external correlation records hang on.
    virtual CUptiResult enable_api_record(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                          bool on) = 0;
    /// cuptiActivityPush/PopExternalCorrelationId with CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 on
    /// the calling thread.
    virtual CUptiResult push_external(std::uint64_t id) = 0;
    virtual CUptiResult pop_external() = 0;
    /// A cheap driver call (cuDriverGetVersion) whose entry callback reports the correlation id
    /// CUPTI gives it: a boundary between the launches before and after (link_mode::window).
    virtual CUptiResult call_marker() = 0;
    virtual CUptiResult unsubscribe() = 0;
    virtual CUptiResult register_callbacks(requested_fn req, completed_fn done) = 0;
    virtual CUptiResult enable(CUpti_ActivityKind kind) = 0;
    virtual CUptiResult disable(CUpti_ActivityKind kind) = 0;
    virtual CUptiResult flush_all(std::uint32_t flag) = 0;
    virtual CUptiResult next_record(std::uint8_t* buffer, std::size_t valid,
                                    CUpti_Activity** record) = 0;
    virtual CUptiResult dropped(CUcontext ctx, std::uint32_t stream, std::size_t* n) = 0;
    virtual CUptiResult timestamp(std::uint64_t* ns) = 0;
    /// cuptiActivityEnableHWTrace: kernel timestamps from the GPU's hardware event system
    /// instead of instrumented launches (Blackwell and later; NOT_SUPPORTED elsewhere).
    virtual CUptiResult enable_hw_trace(bool on) = 0;
};

/// The real CUPTI library.
std::unique_ptr<cupti_api> real_cupti();

} // namespace ktune::trace::detail
