// The range profiler's target side (cupti_range_profiler.h), following the call sequence of
// /work/shared/notes/cupti.md §4: auto range + kernel replay, decode in batches; or, for
// --replay launches, user replay with user ranges, many per pass (range_session_launches.cpp).
#include "core/check_private.hpp"
#include "core/driver_api.hpp"
#include "host_object.hpp"
#include "ktune/core/env.hpp"
#include "ktune/core/error.hpp"
#include "ktune/metrics/range_session.hpp"

#include <cuda.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

namespace ktune::metrics {
namespace {

// KTUNE_METRICS_LOG=1: the passes as CUPTI sees them, for a sequence that ends early
// (docs/perf/metrics.md#llama-layer).
bool pass_log() {
    static const bool on = [] {
        const char* v = std::getenv(ktune::env::metrics_log);
        return v && std::strcmp(v, "1") == 0;
    }();
    return on;
}

class cupti_range_backend final : public range_backend {
public:
    cupti_range_backend() {
        using get_ctx_t = CUresult (*)(CUcontext*);
        using get_dev_t = CUresult (*)(CUdevice*);
        auto get_ctx = ktune::detail::driver_fn<get_ctx_t>("cuCtxGetCurrent");
        auto get_dev = ktune::detail::driver_fn<get_dev_t>("cuCtxGetDevice");
        if (!get_ctx || !get_dev || get_ctx(&ctx_) != CUDA_SUCCESS || !ctx_)
            throw error(error_kind::no_device,
                        "range profiler: no current CUDA context (initialise CUDA first)");
        CUdevice dev = 0;
        if (get_dev(&dev) != CUDA_SUCCESS)
            throw error(error_kind::no_device, "range profiler: cuCtxGetDevice failed");
        CUpti_Profiler_Initialize_Params ip{};
        ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
        KTUNE_CUPTI_CALL(cuptiProfilerInitialize(&ip));
        CUpti_Device_GetChipName_Params cn{};
        cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
        cn.deviceIndex = static_cast<std::size_t>(dev);
        KTUNE_CUPTI_CALL(cuptiDeviceGetChipName(&cn));
        chip_ = cn.pChipName;
        CUpti_Profiler_GetCounterAvailability_Params ca{};
        ca.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
        ca.ctx = ctx_;
        KTUNE_CUPTI_CALL(cuptiProfilerGetCounterAvailability(&ca));
        availability_.resize(ca.counterAvailabilityImageSize);
        ca.pCounterAvailabilityImage = availability_.data();
        KTUNE_CUPTI_CALL(cuptiProfilerGetCounterAvailability(&ca));
    }

    ~cupti_range_backend() override {
        disable();
        host_.reset();
        CUpti_Profiler_DeInitialize_Params dp{};
        dp.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
        (void)KTUNE_CUPTI_CALL_NOEXCEPT(cuptiProfilerDeInitialize(&dp));
    }

    std::string chip() override { return chip_; }

    void configure(std::span<const std::string> metrics, std::size_t max_ranges,
                   replay_mode replay) override {
        replay_ = replay;
        range_ = CUPTI_AutoRange;
        disable(); // a new set replaces the old configuration
        metrics_.assign(metrics.begin(), metrics.end());
        names_.clear();
        for (const auto& m : metrics_)
            names_.push_back(m.c_str());
        host_.emplace(chip_, availability_);
        host_->add(metrics_);
        config_ = host_->config_image();

        CUpti_RangeProfiler_Enable_Params en{};
        en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
        en.ctx = ctx_;
        KTUNE_CUPTI_CALL(cuptiRangeProfilerEnable(&en));
        object_ = en.pRangeProfilerObject;

        CUpti_RangeProfiler_GetCounterDataSize_Params ds{};
        ds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
        ds.pRangeProfilerObject = object_;
        ds.pMetricNames = names_.data();
        ds.numMetrics = names_.size();
        ds.maxNumOfRanges = max_ranges;
        ds.maxNumRangeTreeNodes = max_ranges;
        KTUNE_CUPTI_CALL(cuptiRangeProfilerGetCounterDataSize(&ds));
        counter_data_.assign(ds.counterDataSize, 0);
        reset_counter_data();

        max_ranges_ = max_ranges;
        if (replay_ == replay_mode::kernel) return set_config(0, 0);
        // User replay with user ranges: one pass holds a range per kernel, pushed around its
        // launch (auto range would make every launch of the pass a range, ~1 ms each).
        range_ = CUPTI_UserRange;
        set_config(0, 1);
        next_target_ = 1;
        in_kernel_ = false;
    }

    void begin_pass(std::size_t pass) override {
        if (replay_ != replay_mode::launches) return;
        if (pass == 0) {
            // A new kernel: drop the passes of one given up on (range_session::abandon has
            // submitted the rest of its passes: CUPTI counts passes on across a reset).
            if (in_kernel_) reset_counter_data();
            next_target_ = 1;
        }
        set_config(pass, next_target_);
        in_kernel_ = true;
    }

    void start() override {
        CUpti_RangeProfiler_Start_Params p{};
        p.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = object_;
        KTUNE_CUPTI_CALL(cuptiRangeProfilerStart(&p));
    }

    pass_state stop() override {
        CUpti_RangeProfiler_Stop_Params p{};
        p.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = object_;
        KTUNE_CUPTI_CALL(cuptiRangeProfilerStop(&p));
        if (replay_ == replay_mode::kernel) return {};
        if (pass_log())
            std::fprintf(stderr,
                         "ktune: metrics log: stop pass %zu all_submitted %d target %zu "
                         "(%zu metrics)\n",
                         static_cast<std::size_t>(p.passIndex), p.isAllPassSubmitted ? 1 : 0,
                         static_cast<std::size_t>(p.targetNestingLevel), metrics_.size());
        next_target_ = static_cast<std::uint16_t>(p.targetNestingLevel);
        return {p.passIndex, p.isAllPassSubmitted != 0};
    }

    void push_range(std::string_view name) override {
        // Earlier work drained, so the range holds this launch alone (auto range serialises the
        // same way); cheap when the L2 flush has just synchronised.
        synchronize();
        range_name_.assign(name);
        CUpti_RangeProfiler_PushRange_Params pr{};
        pr.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
        pr.pRangeProfilerObject = object_;
        pr.pRangeName = range_name_.c_str();
        KTUNE_CUPTI_CALL(cuptiRangeProfilerPushRange(&pr));
    }

    void pop_range(bool wait) override {
        // On the legacy default stream the pop is ordered after the launch without a sync (the
        // H200 probe read the same counts with and without); elsewhere, wait for the launch.
        if (wait) synchronize();
        CUpti_RangeProfiler_PopRange_Params pp{};
        pp.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
        pp.pRangeProfilerObject = object_;
        KTUNE_CUPTI_CALL(cuptiRangeProfilerPopRange(&pp));
    }

    decoded decode() override {
        decoded out;
        CUpti_RangeProfiler_DecodeData_Params dd{};
        dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
        dd.pRangeProfilerObject = object_;
        KTUNE_CUPTI_CALL(cuptiRangeProfilerDecodeData(&dd));
        out.dropped = dd.numOfRangeDropped;
        CUpti_RangeProfiler_GetCounterDataInfo_Params di{};
        di.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
        di.pCounterDataImage = counter_data_.data();
        di.counterDataImageSize = counter_data_.size();
        KTUNE_CUPTI_CALL(cuptiRangeProfilerGetCounterDataInfo(&di));
        for (std::size_t r = 0; r < di.numTotalRanges; ++r) {
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri{};
            ri.structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE;
            ri.pCounterDataImage = counter_data_.data();
            ri.counterDataImageSize = counter_data_.size();
            ri.rangeIndex = r;
            ri.rangeDelimiter = "/";
            KTUNE_CUPTI_CALL(cuptiRangeProfilerCounterDataGetRangeInfo(&ri));
            out.range_names.emplace_back(ri.rangeName ? ri.rangeName : "");
            out.values.push_back(host_->evaluate(counter_data_, r, metrics_));
        }
        // The image is reused for the next batch: reset it and hand it to CUPTI again (in
        // launches mode begin_pass does, with the pass index).
        reset_counter_data();
        in_kernel_ = false;
        if (replay_ == replay_mode::kernel) set_config(0, 0);
        return out;
    }

private:
    static void synchronize() {
        using sync_t = CUresult (*)();
        static const auto sync = ktune::detail::driver_fn<sync_t>("cuCtxSynchronize");
        if (sync) (void)sync();
    }

    void disable() noexcept {
        if (!object_) return;
        CUpti_RangeProfiler_Disable_Params p{};
        p.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = object_;
        (void)KTUNE_CUPTI_CALL_NOEXCEPT(cuptiRangeProfilerDisable(&p));
        object_ = nullptr;
    }

    void set_config(std::size_t pass, std::uint16_t target_level) {
        if (pass_log() && replay_ == replay_mode::launches)
            std::fprintf(stderr, "ktune: metrics log: set pass %zu target %u (%zu metrics)\n", pass,
                         static_cast<unsigned>(target_level), metrics_.size());
        CUpti_RangeProfiler_SetConfig_Params sc{};
        sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
        sc.pRangeProfilerObject = object_;
        sc.configSize = config_.size();
        sc.pConfig = config_.data();
        sc.counterDataImageSize = counter_data_.size();
        sc.pCounterDataImage = counter_data_.data();
        sc.range = range_;
        sc.replayMode = replay_ == replay_mode::kernel ? CUPTI_KernelReplay : CUPTI_UserReplay;
        sc.maxRangesPerPass = max_ranges_;
        sc.numNestingLevels = 1;
        sc.minNestingLevel = 1;
        sc.passIndex = pass;
        sc.targetNestingLevel = target_level;
        KTUNE_CUPTI_CALL(cuptiRangeProfilerSetConfig(&sc));
    }

    void reset_counter_data() {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci{};
        ci.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
        ci.pRangeProfilerObject = object_;
        ci.counterDataSize = counter_data_.size();
        ci.pCounterData = counter_data_.data();
        KTUNE_CUPTI_CALL(cuptiRangeProfilerCounterDataImageInitialize(&ci));
    }

    CUcontext ctx_ = nullptr;
    std::string chip_;
    std::vector<std::uint8_t> availability_, config_, counter_data_;
    std::vector<std::string> metrics_;
    std::vector<const char*> names_;
    std::optional<detail::host_object> host_;
    CUpti_RangeProfiler_Object* object_ = nullptr;
    std::size_t max_ranges_ = 0;
    replay_mode replay_ = replay_mode::kernel;
    CUpti_ProfilerRange range_ = CUPTI_AutoRange;
    std::string range_name_;
    std::uint16_t next_target_ = 1; ///< user replay: the nesting level the next pass collects
    bool in_kernel_ = false;        ///< user replay: passes of a kernel are in the image
};

} // namespace

std::unique_ptr<range_backend> make_cupti_range_backend() {
    return std::make_unique<cupti_range_backend>();
}

} // namespace ktune::metrics
