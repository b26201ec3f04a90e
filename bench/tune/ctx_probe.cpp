// Where a fresh process's first ~0.2 s on the GPU goes, and whether any setting moves it: the
// tuner's worker pays cuInit (~100 ms when no other process has the GPU open) and the primary
// context (~100 ms) before its first kernel (docs/perf/tune.md#setup-split). One measurement per
// process (the driver's state is per process): bench/tune/ctx_probe.sh runs it fresh each time,
// under environment variants. Driver API only, linked against libcuda: a device-side probe,
// built by that script with nvcc, never part of the CMake build (whose binaries must load
// without a driver).
//
//   ctx_probe [primary|create|create-blocking]   -> one JSON line of milliseconds
//   ctx_probe hold SECONDS                       -> keeps a context open (the "GPU already
//                                                   open by another process" case)
#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool ok(CUresult rc, const char* what) {
    if (rc == CUDA_SUCCESS) return true;
    const char* s = nullptr;
    cuGetErrorString(rc, &s);
    std::fprintf(stderr, "ctx_probe: %s failed: %s\n", what, s ? s : "?");
    return false;
}

} // namespace

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "primary";
    const auto t0 = std::chrono::steady_clock::now();
    if (!ok(cuInit(0), "cuInit")) return 1;
    const double init = ms_since(t0);
    CUdevice dev = 0;
    if (!ok(cuDeviceGet(&dev, 0), "cuDeviceGet")) return 1;
    CUcontext ctx = nullptr;
    const auto t1 = std::chrono::steady_clock::now();
    if (std::strcmp(mode, "hold") == 0) {
        if (!ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain")) return 1;
        std::this_thread::sleep_for(std::chrono::seconds(argc > 2 ? std::atoi(argv[2]) : 10));
        return 0;
    }
    if (std::strcmp(mode, "primary") == 0) {
        if (!ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain")) return 1;
        if (!ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent")) return 1;
    } else {
        CUctxCreateParams params{};
        const unsigned flags =
            std::strcmp(mode, "create-blocking") == 0 ? CU_CTX_SCHED_BLOCKING_SYNC : 0u;
        if (!ok(cuCtxCreate(&ctx, &params, flags, dev), "cuCtxCreate")) return 1;
    }
    const double context = ms_since(t1);
    // The first allocation and the first synchronisation: what the worker does next.
    const auto t2 = std::chrono::steady_clock::now();
    CUdeviceptr p = 0;
    if (!ok(cuMemAlloc(&p, 1 << 20), "cuMemAlloc")) return 1;
    if (!ok(cuMemsetD8(p, 0, 1 << 20), "cuMemsetD8")) return 1;
    if (!ok(cuCtxSynchronize(), "cuCtxSynchronize")) return 1;
    const double first_work = ms_since(t2);
    const char* conn = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    const char* lazy = std::getenv("CUDA_MODULE_LOADING");
    std::printf("{\"mode\": \"%s\", \"max_connections\": \"%s\", \"module_loading\": \"%s\", "
                "\"init_ms\": %.2f, \"context_ms\": %.2f, \"first_work_ms\": %.2f, "
                "\"total_ms\": %.2f}\n",
                mode, conn ? conn : "", lazy ? lazy : "", init, context, first_work, ms_since(t0));
    cuMemFree(p);
    return 0;
}
