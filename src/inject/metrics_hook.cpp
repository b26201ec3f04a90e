// Sampled range-profiler metrics inside libktune_inject.so (see metrics_hook.hpp).
//
// Auto range profiles every kernel launched on the context between start and stop, and a user
// range (--replay launches) every kernel between its push and pop, so a profiled launch must be
// alone: unprofiled launches hold a shared lock from their API enter to their API exit, a
// profiled one the exclusive lock. Launch calls of other threads wait only while a sampled
// launch is being profiled. Runtime launches reach the driver inside
// the runtime call; a thread-local depth makes the outermost callback the only one that acts.
#include "metrics_hook.hpp"

#include "launch_params.hpp"

#include "ktune/core/env.hpp"
#include "ktune/measure/l2_flush.hpp"
#include "ktune/metrics/kernel_metrics.hpp"
#include "ktune/metrics/launch_options.hpp"
#include "ktune/metrics/metric_host.hpp"
#include "ktune/metrics/range_session.hpp"
#include "ktune/metrics/sampling.hpp"
#include "ktune/trace/trace_file.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h> // also the launch parameter structs (generated_cuda*_meta.h)

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>

namespace ktune::inject {
namespace {

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

struct hook_state {
    std::string set_spec;
    std::string resolved; ///< the launcher's resolution of the set (launch_options)
    std::size_t max_passes = 3;
    std::optional<metrics::sampling_policy> policy;
    std::optional<metrics::measured_peaks> peaks;
    CUpti_SubscriberHandle subscriber = nullptr;
    std::mutex decide; ///< policy, session, counters
    std::shared_mutex launch;
    std::unique_ptr<metrics::range_session> session;
    metrics::replay_mode replay = metrics::replay_mode::kernel;
    metrics::sampling_options sampling; ///< launches mode: the session samples kernels itself
    bool flush_l2 = false; ///< --cache-control all: flush L2 before each profiled range
    std::unique_ptr<measure::l2_flusher> flusher;
    std::uint64_t flushes = 0;       ///< ranges that started after a completed flush
    std::uint64_t unflushed = 0;     ///< ranges profiled without one (flush failed or off)
    CUcontext context = nullptr;     ///< the context the range profiler is enabled on
    bool failed = false;             ///< a profiler call failed: metrics are off from then on
    bool finished = false;           ///< `doc` is final
    std::uint64_t launches = 0;      ///< kernel launches seen (the launch ordinal)
    std::uint64_t other_context = 0; ///< sampled launches refused: not the profiled context
    metrics::kernel_metrics_doc doc;
};

hook_state* g_hook = nullptr; // leaked on purpose, like the activity session

thread_local int t_depth = 0;
thread_local bool t_profiled = false;
thread_local bool t_wait = false; ///< the profiled launch is not on the legacy default stream

// Under `decide`. Turns metrics off after a profiler failure; the program runs on.
void fail(hook_state& h, const char* where, const char* what) noexcept {
    std::fprintf(stderr, "ktune: metrics disabled (%s: %s); activity tracing continues\n", where,
                 what);
    h.failed = true;
    try {
        if (h.session) h.doc = h.session->finish(); // keep what was decoded, if it decodes
        h.finished = true;
    } catch (...) {
    }
    try {
        h.session.reset();
    } catch (...) {
    }
}

// Under `decide`: the range session on the current context, created at the first sampled
// launch because the profiler needs a live context.
bool ensure_session(hook_state& h, CUcontext ctx) {
    if (h.session) return h.context == ctx;
    auto backend = metrics::make_cupti_range_backend();
    // `ktune profile` resolved the set for this chip already (KTUNE_METRICS_RESOLVED): reuse it
    // unless the GPU turned out to be another chip; resolving again costs ~0.1-0.25 s.
    const std::string chip = backend->chip();
    const auto spec = metrics::metric_set_request(h.set_spec, metrics::tensor_precision::measure);
    std::optional<metrics::metric_set> given;
    if (!h.resolved.empty()) given = metrics::decode_metric_set(h.resolved);
    const auto set =
        given && given->chip == chip && given->name == spec.name && given->passes <= h.max_passes
            ? *given
            : metrics::resolve_metric_set(spec, chip, h.max_passes);
    // Kernel replay: the hook's policy already sampled; the session profiles every launch it
    // is handed. Launches mode: the hook only filters (regex, deny-list) and the session
    // samples kernels, since one kernel takes as many launches as the set has passes.
    metrics::sampling_options all;
    all.max_kernels = all.max_per_kernel = std::numeric_limits<std::uint64_t>::max();
    // Decode after every range: profiled launches are few and already synchronous, and a
    // decoded range survives a program that never reaches exit with its context alive.
    h.session = std::make_unique<metrics::range_session>(
        set, h.replay == metrics::replay_mode::launches ? h.sampling : all, std::move(backend), 1,
        h.replay);
    h.context = ctx;
    return true;
}

// Under `decide`, with the exclusive launch lock, before the range starts: write back and
// invalidate L2 (l2_flush.hpp), so the range starts as ncu's `--cache-control all` passes do. A
// failing flush turns flushing off for the rest of the run and is counted, never fatal.
void flush_before_range(hook_state& h) {
    if (!h.flush_l2) {
        ++h.unflushed;
        return;
    }
    try {
        if (!h.flusher) h.flusher = std::make_unique<measure::l2_flusher>();
        h.flusher->flush();
        ++h.flushes;
    } catch (const std::exception& e) {
        std::fprintf(stderr,
                     "ktune: L2 flush before a profiled range failed (%s); later ranges run "
                     "with --cache-control none\n",
                     e.what());
        h.flush_l2 = false;
        h.flusher.reset();
        ++h.unflushed;
    }
}

// Lock order: `launch` before `decide`, everywhere (a profiled launch's exit holds `launch`
// and takes `decide`), so the exclusive lock is taken with `decide` released.
void on_launch_enter(hook_state& h, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                     const CUpti_CallbackData& d) {
    const char* name = d.symbolName ? d.symbolName : "<unnamed kernel>";
    std::uint64_t ordinal = 0;
    bool sampled = false;
    {
        std::lock_guard lock(h.decide);
        ordinal = h.launches++;
        sampled = !h.failed && !h.finished &&
                  h.policy->decide(name, detail::is_cooperative(domain, cbid, d.functionParams)) ==
                      metrics::sample_decision::profile;
    }
    t_profiled = false;
    if (!sampled) {
        h.launch.lock_shared();
        return;
    }
    h.launch.lock(); // waits for unprofiled launches in flight to return
    {
        std::lock_guard lock(h.decide);
        try {
            if (!h.failed && !h.finished) {
                if (!ensure_session(h, d.context)) {
                    ++h.other_context;
                } else {
                    // The flush runs only for a launch that is profiled, right before its
                    // range starts (the session decides; in launches mode most candidates
                    // wait for the kernel in flight).
                    t_profiled =
                        h.session->launch_begin(name, ordinal, d.correlationId, false,
                                                detail::launch_key(domain, cbid, d.functionParams,
                                                                   detail::kernel_param_sizes),
                                                [&h] { flush_before_range(h); });
                    t_wait = !detail::on_legacy_stream(domain, cbid, d.functionParams);
                }
            }
        } catch (const std::exception& e) {
            fail(h, name, e.what());
        }
    }
    if (!t_profiled) {
        h.launch.unlock();
        h.launch.lock_shared();
    }
}

void on_launch_exit(hook_state& h) {
    if (!t_profiled) {
        h.launch.unlock_shared();
        return;
    }
    t_profiled = false;
    {
        std::lock_guard lock(h.decide);
        try {
            if (h.session) h.session->launch_end(t_wait);
        } catch (const std::exception& e) {
            fail(h, "decoding a range", e.what());
        }
    }
    h.launch.unlock();
}

void CUPTIAPI on_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
    auto& h = *static_cast<hook_state*>(user);
    try {
        if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
            // The context is about to go: decode its ranges while it is still alive.
            const auto* r = static_cast<const CUpti_ResourceData*>(data);
            std::lock_guard lock(h.decide);
            if (h.session && r && r->context == h.context && !h.finished) {
                h.doc = h.session->finish();
                h.session.reset();
                h.finished = true;
            }
            return;
        }
        const auto& d = *static_cast<const CUpti_CallbackData*>(data);
        if (d.callbackSite == CUPTI_API_ENTER) {
            if (t_depth++ == 0) on_launch_enter(h, domain, cbid, d);
        } else if (t_depth > 0 && --t_depth == 0) {
            on_launch_exit(h);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ktune: metrics callback: %s\n", e.what());
    } catch (...) {
    }
}

} // namespace

bool metrics_requested() noexcept {
    return env(ktune::env::metrics) != nullptr;
}

bool metrics_hook_start() noexcept {
    if (!metrics_requested() || g_hook) return false;
    try {
        auto h = std::make_unique<hook_state>();
        std::vector<std::string> warnings;
        const auto req = metrics::decode_launch_env(nullptr, &warnings);
        for (const auto& w : warnings)
            std::fprintf(stderr, "ktune: %s\n", w.c_str());
        if (!req) return false;
        h->set_spec = req->set;
        h->resolved = req->resolved;
        h->max_passes = req->max_passes;
        h->flush_l2 = req->flush_l2;
        h->replay = req->replay;
        metrics::sampling_options o = req->sampling;
        h->sampling = o;
        if (h->replay == metrics::replay_mode::launches) {
            // The hook filters only; the session counts kernels (see ensure_session).
            o.sample_every = 1;
            o.max_kernels = o.max_per_kernel = std::numeric_limits<std::uint64_t>::max();
        }
        h->policy.emplace(o);
        if (!req->peaks_file.empty()) h->peaks = metrics::read_measured_peaks(req->peaks_file);
        // Checked here, before any launch, so a bad set is refused up front (chip: at the
        // first sampled launch, where the pass budget is checked too).
        (void)metrics::metric_set_request(h->set_spec, metrics::tensor_precision::measure);
        if (const CUptiResult rc = cuptiSubscribe(&h->subscriber, on_callback, h.get());
            rc != CUPTI_SUCCESS) {
            const char* s = nullptr;
            cuptiGetResultString(rc, &s);
            std::fprintf(stderr,
                         "ktune: metrics disabled: cannot subscribe to CUPTI callbacks (%s); "
                         "activity tracing continues\n",
                         s ? s : "?");
            return false;
        }
        const CUpti_CallbackId driver[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
        const CUpti_CallbackId runtime[] = {
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000};
        bool ok = true;
        for (auto id : driver)
            ok &= cuptiEnableCallback(1, h->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id) ==
                  CUPTI_SUCCESS;
        for (auto id : runtime)
            ok &= cuptiEnableCallback(1, h->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id) ==
                  CUPTI_SUCCESS;
        ok &= cuptiEnableCallback(1, h->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                  CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) == CUPTI_SUCCESS;
        if (!ok) {
            cuptiUnsubscribe(h->subscriber);
            std::fputs("ktune: metrics disabled: cannot enable launch callbacks; activity "
                       "tracing continues\n",
                       stderr);
            return false;
        }
        g_hook = h.release();
        return true;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ktune: metrics disabled: %s\n", e.what());
    } catch (...) {
        std::fputs("ktune: metrics disabled: unknown error\n", stderr);
    }
    return false;
}

void metrics_hook_stop() noexcept {
    if (!g_hook) return;
    auto& h = *g_hook;
    {
        std::lock_guard lock(h.decide);
        if (!h.finished) {
            try {
                if (h.session) h.doc = h.session->finish();
            } catch (const std::exception& e) {
                std::fprintf(stderr, "ktune: metrics: the last ranges could not be decoded: %s\n",
                             e.what());
            }
            h.session.reset();
            h.finished = true;
        }
        if (h.subscriber) cuptiUnsubscribe(h.subscriber);
        h.subscriber = nullptr;
    }
}

void metrics_hook_write(const std::string& trace_path) noexcept {
    if (!g_hook) return;
    auto& h = *g_hook;
    try {
        std::lock_guard lock(h.decide);
        h.doc.denied = h.policy->denied();
        if (h.peaks) h.doc.measured = h.peaks;
        if (h.doc.metric_set.empty()) h.doc.metric_set = h.set_spec;
        h.doc.replay = std::string(metrics::to_string(h.replay));
        // "all" only when every range followed a flush; a mix is reported as such.
        h.doc.cache_control = h.unflushed == 0 ? "all"
                              : h.flushes == 0
                                  ? "none"
                                  : "mixed: " + std::to_string(h.flushes) + " ranges flushed, " +
                                        std::to_string(h.unflushed) + " not";
        trace::append_metrics_chunk(trace_path, metrics::to_json(h.doc));
        std::fprintf(stderr,
                     "ktune: metrics (%s, %zu passes, replay %s) for %zu kernel samples in %s; "
                     "%llu incomplete, %llu dropped ranges, %zu kernels denied, %llu sampled "
                     "launches on another context refused; cache control %s\n",
                     h.doc.metric_set.c_str(), h.doc.passes, h.doc.replay.c_str(),
                     h.doc.kernels.size(), trace_path.c_str(),
                     static_cast<unsigned long long>(h.doc.incomplete_kernels),
                     static_cast<unsigned long long>(h.doc.dropped_ranges), h.doc.denied.size(),
                     static_cast<unsigned long long>(h.other_context), h.doc.cache_control.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ktune: metrics not written to %s: %s\n", trace_path.c_str(),
                     e.what());
    }
}

} // namespace ktune::inject
