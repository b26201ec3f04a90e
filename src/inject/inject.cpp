// libktune_inject.so: loaded by the CUDA driver during cuInit through CUDA_INJECTION64_PATH
// (and by NVTX through NVTX_INJECTION64_PATH). It starts a ktune::trace::session configured by
// environment variables and saves it at exit. Nothing here may throw into, crash or block the
// host program: every failure prints one line and the program runs on unprofiled.
//
// Environment (set by `ktune profile`):
//   KTUNE_OUTPUT    trace path for the root process (default ktune-<pid>.ktrace)
//   KTUNE_ROOT_PID  pid of that process; any other process writes <stem>.<pid>.ktrace
//   KTUNE_DELAY     seconds before recording starts;  KTUNE_DURATION  seconds of recording
//   KTUNE_RECORD    comma list of kernel,memcpy,memset,sync,nvtx (default: all but sync)
//   KTUNE_HOLD_SUBSCRIPTION=0  release CUPTI's subscriber slot after the start-up check
//   KTUNE_ZEROED_BUFFERS=0     let CUPTI zero its buffers on the launching thread (ablation)
//   KTUNE_DEVICE_BUFFER_MB     CUPTI's device buffer size (ablation)
//   KTUNE_NVTX_LINK   how kernels learn their NVTX range: window (default), callback,
//                     external_correlation, locked_map (read by the session; launch_links.hpp)
//   KTUNE_GRAPH_TRACE graph (default: one record per CUDA graph launch) or node
//   KTUNE_HW_TRACE=0  instrumented kernel timestamps even where the hardware event system exists
//   KTUNE_METRICS…  sampled range-profiler metrics (metrics_hook.hpp)
#include "ktune/core/env.hpp"
#include "ktune/trace/session.hpp"
#include "metrics_hook.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

namespace {

std::atomic<bool> g_initialized{false};
ktune::trace::session* g_session = nullptr; // leaked on purpose: must outlive static destructors
pid_t g_owner = 0;

double env_seconds(const char* name) {
    const char* v = std::getenv(name);
    if (!v || !*v) return 0;
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end == v || s < 0) {
        std::fprintf(stderr, "ktune: ignoring %s=%s (expected seconds >= 0)\n", name, v);
        return 0;
    }
    return s;
}

std::string output_path() {
    const pid_t pid = getpid();
    const char* out = std::getenv(ktune::env::output);
    if (!out || !*out) return "ktune-" + std::to_string(pid) + ".ktrace";
    std::string path = out;
    const char* root = std::getenv(ktune::env::root_pid);
    if (root && std::atol(root) == pid) return path;
    // Child processes (workers, launchers) each write their own trace, keyed by pid.
    const auto dot = path.rfind(".ktrace");
    if (dot != std::string::npos && dot + 7 == path.size())
        return path.substr(0, dot) + "." + std::to_string(pid) + ".ktrace";
    return path + "." + std::to_string(pid);
}

std::vector<std::string> command_line() {
    std::vector<std::string> args;
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::size_t p = 0;
    while (p < all.size()) {
        const auto z = all.find('\0', p);
        args.push_back(all.substr(p, z == std::string::npos ? std::string::npos : z - p));
        if (z == std::string::npos) break;
        p = z + 1;
    }
    return args;
}

void save_at_exit() {
    // A forked child inherits this handler but not the recording: only the owner saves.
    if (!g_session || getpid() != g_owner) return;
    ktune::inject::metrics_hook_stop(); // decode the last ranges while contexts are alive
    if (!g_session->save()) {
        std::fprintf(stderr, "%s\n", g_session->message().c_str());
        return;
    }
    ktune::inject::metrics_hook_write(g_session->options().output);
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    if (g_initialized.exchange(true)) return 1;
    try {
        ktune::trace::session_options o;
        o.output = output_path();
        o.delay_s = env_seconds(ktune::env::delay);
        o.duration_s = env_seconds(ktune::env::duration);
        o.command_line = command_line();
        if (const char* r = std::getenv(ktune::env::record); r && *r) {
            const std::string list = std::string(",") + r + ",";
            const auto has = [&](const char* k) {
                return list.find(std::string(",") + k + ",") != std::string::npos;
            };
            o.memcpy = has("memcpy");
            o.memset = has("memset");
            o.sync = has("sync");
            o.nvtx = has("nvtx");
        }
        if (const char* h = std::getenv(ktune::env::hold_subscription); h && std::string(h) == "0")
            o.hold_subscription = false;
        if (const char* z = std::getenv(ktune::env::zeroed_buffers); z && std::string(z) == "0")
            o.zeroed_buffers = false;
        o.device_buffer_bytes =
            static_cast<std::size_t>(env_seconds(ktune::env::device_buffer_mb) * (1u << 20));
        // The metrics hook needs the subscriber slot for its launch callbacks (one subscriber
        // per process before CUDA 13.3); activity records need none.
        if (ktune::inject::metrics_requested()) {
            o.hold_subscription = false;
            // Sampled kernels are matched to their launch records by name: graph nodes keep
            // theirs only when traced node by node (KTUNE_GRAPH_TRACE=graph still wins).
            o.graph_level = false;
        }
        auto* s = new ktune::trace::session(std::move(o));
        if (!s->start()) {
            std::fprintf(stderr, "%s\n", s->message().c_str());
            delete s;
            return 1;
        }
        g_session = s;
        g_owner = getpid();
        std::atexit(save_at_exit);
        ktune::inject::metrics_hook_start();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ktune: profiling disabled: %s\n", e.what());
    } catch (...) {
        std::fputs("ktune: profiling disabled: unknown error\n", stderr);
    }
    return 1; // never fail the driver's initialisation: the program runs either way
}

// NVTX looks up this symbol in the library named by NVTX_INJECTION64_PATH (the first NVTX call
// of the program loads it, possibly before CUDA does). ktune's own handlers take the ranges;
// with KTUNE_RECORD lacking nvtx, NVTX is left uninitialised and its calls stay no-ops.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void* fn) {
    if (const char* r = std::getenv(ktune::env::record);
        r && *r && (std::string(",") + r + ",").find(",nvtx,") == std::string::npos)
        return 0;
    return ktune::trace::install_nvtx_injection(fn);
}
