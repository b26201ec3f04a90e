// Profiling session: CUPTI set-up and tear-down around a collector. CUPTI's buffer callbacks
// are plain C function pointers without user data, so the one active collector of the process
// is reached through an atomic pointer (CUPTI allows a single subscriber anyway).
#include "ktune/trace/session.hpp"
#include "ktune/core/env.hpp"

#include "collector.hpp"
#include "gpu_probe.hpp"
#include "ktune/core/clocks.hpp"
#include "ktune/core/version.hpp"
#include "nvtx_hooks.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <unistd.h>

namespace ktune::trace {
namespace {

std::atomic<detail::collector*> g_active{nullptr};

void CUPTIAPI on_requested(std::uint8_t** b, std::size_t* size, std::size_t* max) {
    if (auto* c = g_active.load(std::memory_order_acquire))
        return c->buffer_requested(b, size, max);
    *b = nullptr;
    *size = 0;
    *max = 0;
}

void CUPTIAPI on_completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* b, std::size_t size,
                           std::size_t valid) {
    if (auto* c = g_active.load(std::memory_order_acquire))
        return c->buffer_completed(ctx, stream, b, size, valid);
    std::free(b);
}

std::string cupti_error(detail::cupti_api& api, CUptiResult rc) {
    (void)api;
    const char* s = nullptr;
    if (cuptiGetResultString(rc, &s) != CUPTI_SUCCESS || !s) return std::to_string(rc);
    return s;
}

const char* link_name(nvtx_link l) {
    switch (l) {
    case nvtx_link::callback:
        return "callback";
    case nvtx_link::external_correlation:
        return "external_correlation";
    case nvtx_link::locked_map:
        return "locked_map";
    case nvtx_link::window:
        return "window";
    }
    return "";
}

// The session's link mode, KTUNE_NVTX_LINK overriding it (bench ablations).
nvtx_link choose_link(nvtx_link link, bool subscribed) {
    if (const char* l = std::getenv(ktune::env::nvtx_link); l && *l) {
        bool known = false;
        for (const auto m : {nvtx_link::callback, nvtx_link::external_correlation,
                             nvtx_link::locked_map, nvtx_link::window})
            if (std::string(l) == link_name(m)) {
                link = m;
                known = true;
            }
        if (!known)
            std::fprintf(stderr,
                         "ktune: ignoring KTUNE_NVTX_LINK=%s (expected callback, window, "
                         "external_correlation or locked_map)\n",
                         l);
    }
    // Launch callbacks and window markers need the subscriber slot (the metrics hook may hold
    // it); external correlation does not.
    if (link != nvtx_link::external_correlation && !subscribed)
        link = nvtx_link::external_correlation;
    return link;
}

} // namespace

struct session::impl {
    session_options options;
    std::unique_ptr<detail::cupti_api> api;
    std::unique_ptr<detail::collector> collector;
    session_state state = session_state::idle;
    std::string message;
    trace_environment env;
    std::vector<CUpti_ActivityKind> kinds;
    bool subscribed = false;
    std::atomic<bool> enabled{false};
    std::mutex control_mutex;
    std::condition_variable control_cv;
    bool control_stop = false;
    std::thread control;

    void enable() noexcept {
        if (enabled.exchange(true)) return;
        if (options.nvtx) detail::set_nvtx_target(collector.get());
        for (auto k : kinds)
            if (api->enable(k) != CUPTI_SUCCESS && k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
                std::fputs("ktune: cannot enable kernel records; the trace will be empty\n",
                           stderr);
        // Without graph-level records CUPTI reports every node: the trailer says so.
        if (options.graph_level && api->enable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE) != CUPTI_SUCCESS)
            env.graph_trace = "node";
    }
    void disable() noexcept {
        if (!enabled.exchange(false)) return;
        detail::set_nvtx_target(nullptr);
        collector->stop_launch_links();
        for (auto k : kinds)
            api->disable(k);
        if (options.graph_level) api->disable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
        api->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
    bool wait(double seconds) { // false when stopped early
        std::unique_lock lock(control_mutex);
        return !control_cv.wait_for(lock, std::chrono::duration<double>(seconds),
                                    [&] { return control_stop; });
    }
    bool fail(std::string why) noexcept {
        message = std::move(why);
        state = session_state::failed;
        return false;
    }
};

session::session(session_options options) : session(std::move(options), detail::real_cupti()) {}

session::session(session_options options, std::unique_ptr<detail::cupti_api> api)
    : impl_(std::make_unique<impl>()) {
    impl_->options = std::move(options);
    impl_->api = std::move(api);
}

session::~session() {
    stop();
    save();
}

bool session::start() noexcept {
    auto& m = *impl_;
    if (m.state != session_state::idle) return m.state == session_state::recording;
    try {
        std::uint32_t version = 0;
        if (const auto rc = m.api->get_version(&version); rc != CUPTI_SUCCESS)
            return m.fail("ktune: CUPTI is not usable here (" + cupti_error(*m.api, rc) +
                          "); the program runs unprofiled");
        const detail::record_decoder* decoder = detail::find_decoder(version);
        if (!decoder)
            return m.fail("ktune: CUPTI API version " + std::to_string(version) +
                          " has no record decoder in this ktune (built for " +
                          std::to_string(detail::compiled_cupti_version()) +
                          "); rebuild ktune against this CUDA toolkit. The program runs "
                          "unprofiled");
        std::string other;
        if (const auto rc = m.api->subscribe(&other, detail::launch_callback);
            rc != CUPTI_SUCCESS) {
            if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
                return m.fail("ktune: another CUPTI client is active (" +
                              (other.empty() ? std::string("Nsight, ncu, a debugger or a "
                                                           "framework profiler")
                                             : other) +
                              "); the program runs unprofiled");
            return m.fail("ktune: cannot subscribe to CUPTI (" + cupti_error(*m.api, rc) +
                          "); the program runs unprofiled");
        }
        m.subscribed = true;
        if (!m.options.hold_subscription) {
            m.api->unsubscribe();
            m.subscribed = false;
        }
        if (g_active.load() != nullptr) {
            if (m.subscribed) m.api->unsubscribe();
            return m.fail("ktune: another ktune session is already recording in this process");
        }
        m.env.ktune_version = std::string(ktune::version());
        char host[256] = {};
        gethostname(host, sizeof host - 1);
        m.env.host = host;
        m.env.pid = getpid();
        m.env.command_line = m.options.command_line;
        timespec ts{};
        clock_gettime(CLOCK_REALTIME, &ts);
        m.env.start_unix_ns = std::int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
        m.api->timestamp(&m.env.start_trace_ns);
        m.env.cupti_version = version;
        m.env.toolkit_version = CUDA_VERSION;
        const nvtx_link link = choose_link(m.options.link, m.subscribed);
        m.env.nvtx_link = m.options.nvtx ? link_name(link) : "";
        if (const char* g = std::getenv(ktune::env::graph_trace); g && *g)
            m.options.graph_level = std::string(g) != "node";
        m.env.graph_trace = m.options.graph_level ? "graph" : "node";
        if (const char* h = std::getenv(ktune::env::hw_trace); h && std::string(h) == "0")
            m.options.hw_trace = false;
        m.env.kernel_timestamps =
            m.options.hw_trace && m.api->enable_hw_trace(true) == CUPTI_SUCCESS ? "hardware_events"
                                                                                : "instrumented";
        auto writer = std::make_unique<trace_writer>(m.options.output, m.env);
        if (m.options.device_buffer_bytes > 0) {
            std::size_t v = m.options.device_buffer_bytes;
            m.api->set_attribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, sizeof v, &v);
        }
        detail::collector_options co;
        co.buffer_bytes = m.options.buffer_bytes;
        co.zeroed_buffers = m.options.zeroed_buffers;
        co.link = link;
        if (const char* d = std::getenv(ktune::env::nvtx_driver_records);
            d && std::string(d) == "0")
            co.driver_api_records = false; // ablation only (bench/profile/gpu_step.sh)
        m.collector = std::make_unique<detail::collector>(*m.api, *decoder, std::move(writer), co);
        g_active.store(m.collector.get(), std::memory_order_release);
        if (const auto rc = m.api->register_callbacks(on_requested, on_completed);
            rc != CUPTI_SUCCESS) {
            g_active.store(nullptr);
            m.collector.reset();
            m.api->unsubscribe();
            return m.fail("ktune: cannot register CUPTI buffers (" + cupti_error(*m.api, rc) + ")");
        }
        // CONCURRENT_KERNEL, not KERNEL: the latter serialises every kernel on the GPU.
        m.kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
        if (m.options.memcpy) m.kinds.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
        if (m.options.memset) m.kinds.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
        if (m.options.sync) m.kinds.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
        // NVTX comes through ktune's own NVTX handlers (nvtx_hooks.hpp), not CUPTI's MARKER
        // kind: enable() points them at the collector.
        m.state = session_state::recording;
        if (m.options.delay_s <= 0) m.enable();
        if (m.options.delay_s > 0 || m.options.duration_s > 0)
            m.control = std::thread([&m] {
                if (m.options.delay_s > 0 && !m.wait(m.options.delay_s)) return;
                m.enable();
                if (m.options.duration_s > 0 && m.wait(m.options.duration_s)) m.disable();
            });
        return true;
    } catch (const std::exception& e) {
        detail::set_nvtx_target(nullptr);
        g_active.store(nullptr);
        m.collector.reset();
        if (m.subscribed) m.api->unsubscribe();
        return m.fail(std::string("ktune: profiling disabled: ") + e.what());
    }
}

void session::flush() noexcept {
    auto& m = *impl_;
    if (m.state != session_state::recording) return;
    m.api->flush_all(0);
    m.collector->hand_over();
}

void session::stop() noexcept {
    auto& m = *impl_;
    if (m.state != session_state::recording) return;
    {
        std::lock_guard lock(m.control_mutex);
        m.control_stop = true;
    }
    m.control_cv.notify_all();
    if (m.control.joinable()) m.control.join();
    m.disable();
    m.api->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    m.collector->hand_over(true);
    m.state = session_state::stopped;
}

bool session::save() noexcept {
    auto& m = *impl_;
    if (m.state == session_state::recording) stop();
    if (m.state != session_state::stopped) return m.state == session_state::saved;
    trace_environment end = m.env;
    end.gpus = detail::probe_gpus(m.collector->devices());
    end.driver_api_version = detail::loaded_driver_version();
    try {
        if (end.driver_api_version) end.driver_version = nvml_driver_version();
    } catch (...) {
    }
    std::string err;
    detail::set_nvtx_target(nullptr);
    const bool ok = m.collector->finish(end, err);
    g_active.store(nullptr);
    if (m.subscribed) m.api->unsubscribe();
    m.subscribed = false;
    if (!ok) return m.fail("ktune: could not complete " + m.options.output + ": " + err);
    m.state = session_state::saved;
    return true;
}

int install_nvtx_injection(const void* get_export_table) noexcept {
    return detail::install_nvtx_hooks(get_export_table);
}

session_state session::state() const noexcept {
    return impl_->state;
}
const std::string& session::message() const noexcept {
    return impl_->message;
}
trace_counters session::counters() const {
    return impl_->collector ? impl_->collector->counters() : trace_counters{};
}
const session_options& session::options() const noexcept {
    return impl_->options;
}

} // namespace ktune::trace
