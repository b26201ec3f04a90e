// The floor for ktune's tracing overhead: a minimal CUPTI injection library that enables the
// activity kinds named in RAW_CUPTI_KINDS (default: kernel only), hands CUPTI buffers from a
// pool allocated and touched before the first launch, and only counts the records it gets
// back. No subscriber, no callbacks, no decoding, no file. RAW_CUPTI_ZEROED=1 hands CUPTI
// zeroed buffers (ZEROED_OUT_ACTIVITY_BUFFER) and re-zeroes them on the completion thread, so CUPTI
// does not zero them on the launching thread. ktune's cost is measured against it
// in the same run (bench/profile/gpu_step.sh: step_profile_overhead).
//   CUDA_INJECTION64_PATH=libraw_cupti_inject.so RAW_CUPTI_KINDS=kernel,memcpy ./app
// (kinds: kernel, serial_kernel, memcpy, memset, sync, marker, graph = one record per graph launch)
// Floor probes (docs/perf/profile.md#nvtx-attribution), each set before CUDA creates a context:
//   RAW_CUPTI_KINDS=serial_kernel    CUPTI_ACTIVITY_KIND_KERNEL instead of CONCURRENT_KERNEL
//   RAW_CUPTI_DEVICE_BUFFER_MB=N     CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE
//   RAW_CUPTI_SEMAPHORE_POOL=N       CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_SIZE
//   RAW_CUPTI_PER_THREAD=0|1         CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER
//   RAW_CUPTI_BUFFER_MB=N            size of the activity buffers handed to CUPTI (default 8)
//   RAW_CUPTI_HOST_PINNED=1          CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED
//   RAW_CUPTI_PREALLOCATE=N          CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

std::size_t buffer_bytes = 8u << 20;
std::mutex pool_mutex;
std::vector<std::uint8_t*> pool;
std::atomic<std::uint64_t> records{0};
std::atomic<std::uint64_t> dropped{0};
bool zeroed = false;

std::uint8_t* take() {
    {
        std::lock_guard lock(pool_mutex);
        if (!pool.empty()) {
            auto* b = pool.back();
            pool.pop_back();
            return b;
        }
    }
    return static_cast<std::uint8_t*>(std::calloc(1, buffer_bytes)); // 16-byte aligned, zeroed
}

void CUPTIAPI requested(std::uint8_t** b, std::size_t* size, std::size_t* max) {
    *b = take();
    *size = *b ? buffer_bytes : 0;
    *max = 0;
}

void CUPTIAPI completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* b, std::size_t,
                        std::size_t valid) {
    CUpti_Activity* a = nullptr;
    std::uint64_t n = 0;
    if (valid > 0)
        while (cuptiActivityGetNextRecord(b, valid, &a) == CUPTI_SUCCESS)
            ++n;
    records += n;
    std::size_t d = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &d) == CUPTI_SUCCESS) dropped += d;
    if (zeroed) std::memset(b, 0, valid);
    std::lock_guard lock(pool_mutex);
    pool.push_back(b);
}

void at_exit() {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::fprintf(stderr, "raw_cupti: %llu records, %llu dropped\n",
                 static_cast<unsigned long long>(records.load()),
                 static_cast<unsigned long long>(dropped.load()));
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    static std::atomic<bool> once{false};
    if (once.exchange(true)) return 1;
    const auto number = [](const char* name) -> long {
        const char* v = std::getenv(name);
        return v && *v ? std::atol(v) : -1;
    };
    if (const long mb = number("RAW_CUPTI_BUFFER_MB"); mb > 0)
        buffer_bytes = static_cast<std::size_t>(mb) << 20;
    if (const long mb = number("RAW_CUPTI_DEVICE_BUFFER_MB"); mb > 0) {
        std::size_t v = static_cast<std::size_t>(mb) << 20, size = sizeof v;
        if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &size, &v) !=
            CUPTI_SUCCESS)
            std::fputs("raw_cupti: DEVICE_BUFFER_SIZE refused\n", stderr);
    }
    if (const long n = number("RAW_CUPTI_SEMAPHORE_POOL"); n > 0) {
        std::size_t v = static_cast<std::size_t>(n), size = sizeof v;
        if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_SIZE, &size,
                                      &v) != CUPTI_SUCCESS)
            std::fputs("raw_cupti: PROFILING_SEMAPHORE_POOL_SIZE refused\n", stderr);
    }
    if (const long p = number("RAW_CUPTI_PER_THREAD"); p >= 0) {
        std::uint8_t v = p ? 1 : 0;
        std::size_t size = sizeof v;
        if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &v) !=
            CUPTI_SUCCESS)
            std::fputs("raw_cupti: PER_THREAD_ACTIVITY_BUFFER refused\n", stderr);
    }
    if (number("RAW_CUPTI_HOST_PINNED") == 1) {
        std::uint8_t v = 1;
        std::size_t size = sizeof v;
        if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &size,
                                      &v) != CUPTI_SUCCESS)
            std::fputs("raw_cupti: MEM_ALLOCATION_TYPE_HOST_PINNED refused\n", stderr);
    }
    if (const long n = number("RAW_CUPTI_PREALLOCATE"); n > 0) {
        std::size_t v = static_cast<std::size_t>(n), size = sizeof v;
        if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, &size,
                                      &v) != CUPTI_SUCCESS)
            std::fputs("raw_cupti: DEVICE_BUFFER_PRE_ALLOCATE_VALUE refused\n", stderr);
    }
    for (int i = 0; i < 4; ++i) { // touched now, so no page fault lands on a launching thread
        auto* b = static_cast<std::uint8_t*>(std::aligned_alloc(8, buffer_bytes));
        std::memset(b, 0, buffer_bytes);
        pool.push_back(b);
    }
    const char* z = std::getenv("RAW_CUPTI_ZEROED");
    zeroed = z && std::string(z) == "1";
    if (zeroed) {
        std::uint8_t one = 1;
        std::size_t size = sizeof one;
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &one);
    }
    if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS) return 1;
    const char* env = std::getenv("RAW_CUPTI_KINDS");
    const std::string list = std::string(",") + (env && *env ? env : "kernel") + ",";
    const auto has = [&](const char* k) {
        return list.find(std::string(",") + k + ",") != std::string::npos;
    };
    if (has("kernel")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (has("serial_kernel")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL);
    if (has("memcpy")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    if (has("memset")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
    if (has("sync")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    if (has("marker")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER);
    if (has("graph")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    std::atexit(at_exit);
    return 1;
}
