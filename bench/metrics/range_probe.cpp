// Where a range-profiler pass's time goes (docs/perf/metrics.md#pass-cost): times every CUPTI
// range-profiler call (Enable, SetConfig, Start, Stop, Push/PopRange, DecodeData,
// CounterDataImageInitialize, evaluate) while 10 kernels of known work (9 copies of distinct sizes,
// one FMA loop with an exact FFMA count) get ktune's 3-pass roofline set, in these shapes:
//   single  today's --replay launches: one auto range per pass, decode per kernel
//   multi   one Start/Stop per pass covering all 10 kernels as 10 ranges: user ranges pushed
//           around each launch (with or without a context sync before the pop), or auto range
//   + flush (L2 write-back before each range, outside it), + fillers (an unselected kernel
//           between ranges), + reorder (pass 1 pushes the kernels in reverse: are later passes
//           matched to pass 0's ranges by order or by name?)
// Each range's DRAM read bytes are checked against the bytes its copy reads, the FMA range's
// FFMA count against the exact count, so per-range values are known right or wrong.
//
//   bench_range_probe [--reps 3] [--only NAME]
#include "core/driver_api.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/device.hpp"
#include "ktune/measure/l2_flush.hpp"
#include "ktune/metrics/metric_host.hpp"
#include "metrics/host_object.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr const char* k_source = R"(
#define COPY(n) extern "C" __global__ void k_copy##n(const float4* x, float4* y, \
    unsigned long long m) { \
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; \
    if (i < m) y[i] = x[i]; }
COPY(0) COPY(1) COPY(2) COPY(3) COPY(4) COPY(5) COPY(6) COPY(7) COPY(8)
extern "C" __global__ void k_fma(float* out, int iters) {
    float v = threadIdx.x;
    for (int i = 0; i < iters; ++i) v = fmaf(v, 0.999f, 0.001f);
    if (v == 1.2345f) out[0] = v;
}
extern "C" __global__ void k_fill(float* y) { y[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }
)";

using clk = std::chrono::steady_clock;
using launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);

std::map<std::string, std::vector<double>> g_ms; // per call name, one entry per call

template <class F>
auto timed(const char* what, F&& f) {
    const auto t = clk::now();
    auto r = f();
    g_ms[what].push_back(std::chrono::duration<double, std::milli>(clk::now() - t).count());
    return r;
}

void cupti(const char* what, CUptiResult rc) {
    if (rc == CUPTI_SUCCESS) return;
    const char* s = nullptr;
    cuptiGetResultString(rc, &s);
    throw std::runtime_error(fmt::format("{}: {}", what, s ? s : "?"));
}
#define CALL(name, expr) cupti(name, timed(name, [&] { return expr; }))

struct kernel {
    std::string name;
    CUfunction f = nullptr;
    unsigned blocks = 0, threads = 256;
    std::vector<void*> args;
    double read_bytes = 0, ffma = 0; // expected
};

struct scenario {
    std::string name;
    bool multi = false; // one Start/Stop per pass for all kernels
    CUpti_ProfilerRange range = CUPTI_AutoRange;
    bool config_each_pass = true; // SetConfig before every pass (today) or once per kernel/set
    bool sync_before_pop = true;
    bool flush = false, fillers = false, reorder = false;
};

struct probe {
    CUcontext ctx = nullptr;
    std::string chip;
    std::vector<std::uint8_t> avail, config, image;
    std::vector<std::string> metrics;
    std::vector<const char*> names;
    CUpti_RangeProfiler_Object* obj = nullptr;
    launch_t launch = nullptr;
    std::vector<kernel> ks;
    kernel fill;
    ktune::measure::l2_flusher* flusher = nullptr;

    void run(const kernel& k) {
        if (timed("launch", [&] {
                return launch(k.f, k.blocks, 1, 1, k.threads, 1, 1, 0, nullptr,
                              const_cast<void**>(k.args.data()), nullptr);
            }) != CUDA_SUCCESS)
            throw std::runtime_error("cuLaunchKernel failed");
    }
    void set_config(const scenario& s, std::size_t pass, std::size_t target, std::size_t ranges) {
        CUpti_RangeProfiler_SetConfig_Params p{};
        p.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = obj;
        p.configSize = config.size();
        p.pConfig = config.data();
        p.counterDataImageSize = image.size();
        p.pCounterDataImage = image.data();
        p.range = s.range;
        p.replayMode = CUPTI_UserReplay;
        p.maxRangesPerPass = ranges;
        p.numNestingLevels = 1;
        p.minNestingLevel = 1;
        p.passIndex = pass;
        p.targetNestingLevel = static_cast<std::uint16_t>(target);
        CALL("SetConfig", cuptiRangeProfilerSetConfig(&p));
    }
    void reset_image() {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params p{};
        p.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = obj;
        p.counterDataSize = image.size();
        p.pCounterData = image.data();
        CALL("CounterDataImageInitialize", cuptiRangeProfilerCounterDataImageInitialize(&p));
    }
    void start() {
        CUpti_RangeProfiler_Start_Params p{};
        p.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = obj;
        CALL("Start", cuptiRangeProfilerStart(&p));
    }
    CUpti_RangeProfiler_Stop_Params stop() {
        CUpti_RangeProfiler_Stop_Params p{};
        p.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = obj;
        CALL("Stop", cuptiRangeProfilerStop(&p));
        return p;
    }
    void push(const char* name) {
        CUpti_RangeProfiler_PushRange_Params p{};
        p.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = obj;
        p.pRangeName = name;
        CALL("PushRange", cuptiRangeProfilerPushRange(&p));
    }
    void pop() {
        CUpti_RangeProfiler_PopRange_Params p{};
        p.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = obj;
        CALL("PopRange", cuptiRangeProfilerPopRange(&p));
    }
    void sync() {
        if (timed("cudaDeviceSynchronize", [] { return cudaDeviceSynchronize(); }) != cudaSuccess)
            throw std::runtime_error("cudaDeviceSynchronize failed");
    }
    void do_flush() {
        timed("l2_flush", [&] {
            flusher->flush();
            return 0;
        });
    }
    // One profiled launch of k (or a user range around it), as the scenario says.
    void profiled(const scenario& s, const kernel& k) {
        if (s.flush && s.multi) do_flush(); // single: before Start (a sweep would take the range)
        if (s.range == CUPTI_UserRange) push(k.name.c_str());
        run(k);
        if (s.range == CUPTI_UserRange) {
            if (s.sync_before_pop) sync();
            pop();
        }
        if (s.fillers) run(fill);
    }
    struct range_value {
        std::string name;
        std::vector<double> v;
    };
    std::vector<range_value> decode(const ktune::metrics::detail::host_object& host,
                                    std::size_t& dropped) {
        CUpti_RangeProfiler_DecodeData_Params dd{};
        dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
        dd.pRangeProfilerObject = obj;
        CALL("DecodeData", cuptiRangeProfilerDecodeData(&dd));
        dropped += dd.numOfRangeDropped;
        CUpti_RangeProfiler_GetCounterDataInfo_Params di{};
        di.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
        di.pCounterDataImage = image.data();
        di.counterDataImageSize = image.size();
        CALL("GetCounterDataInfo", cuptiRangeProfilerGetCounterDataInfo(&di));
        std::vector<range_value> out;
        for (std::size_t r = 0; r < di.numTotalRanges; ++r) {
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri{};
            ri.structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE;
            ri.pCounterDataImage = image.data();
            ri.counterDataImageSize = image.size();
            ri.rangeIndex = r;
            ri.rangeDelimiter = "/";
            CALL("GetRangeInfo", cuptiRangeProfilerCounterDataGetRangeInfo(&ri));
            out.push_back({ri.rangeName ? ri.rangeName : "",
                           timed("evaluate", [&] { return host.evaluate(image, r, metrics); })});
        }
        return out;
    }

    // Runs one scenario: every kernel gets every pass; returns the decoded ranges.
    std::vector<range_value> run_scenario(const scenario& s, std::size_t& dropped,
                                          std::size_t& passes_seen) {
        ktune::metrics::detail::host_object host(chip, avail);
        host.add(metrics);
        const std::size_t per_pass = s.multi ? ks.size() * (s.fillers || s.flush ? 3 : 1) : 1;
        CUpti_RangeProfiler_Enable_Params en{};
        en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
        en.ctx = ctx;
        CALL("Enable", cuptiRangeProfilerEnable(&en));
        obj = en.pRangeProfilerObject;
        std::vector<range_value> all;
        try {
            CUpti_RangeProfiler_GetCounterDataSize_Params ds{};
            ds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
            ds.pRangeProfilerObject = obj;
            ds.pMetricNames = names.data();
            ds.numMetrics = names.size();
            ds.maxNumOfRanges = per_pass;
            ds.maxNumRangeTreeNodes = per_pass;
            CALL("GetCounterDataSize", cuptiRangeProfilerGetCounterDataSize(&ds));
            image.assign(ds.counterDataSize, 0);
            reset_image();
            if (!s.multi) {
                for (const auto& k : ks) {
                    std::size_t pass = 0, target = 1;
                    for (bool done = false; !done;) {
                        if (s.config_each_pass || pass == 0) set_config(s, pass, target, 1);
                        if (s.flush) do_flush();
                        start();
                        profiled(s, k);
                        const auto st = stop();
                        pass = st.passIndex;
                        target = st.targetNestingLevel;
                        done = st.isAllPassSubmitted != 0;
                        ++passes_seen;
                        if (passes_seen > 100) throw std::runtime_error("passes never end");
                    }
                    for (auto& r : decode(host, dropped))
                        all.push_back(std::move(r));
                    reset_image();
                }
            } else {
                std::size_t pass = 0, target = 1;
                for (bool done = false; !done;) {
                    if (s.config_each_pass || pass == 0) set_config(s, pass, target, per_pass);
                    start();
                    if (s.reorder && pass == 1)
                        for (auto it = ks.rbegin(); it != ks.rend(); ++it)
                            profiled(s, *it);
                    else
                        for (const auto& k : ks)
                            profiled(s, k);
                    const auto st = stop();
                    pass = st.passIndex;
                    target = st.targetNestingLevel;
                    done = st.isAllPassSubmitted != 0;
                    if (++passes_seen > 20) throw std::runtime_error("passes never end");
                }
                all = decode(host, dropped);
            }
        } catch (...) {
            CUpti_RangeProfiler_Disable_Params dp{};
            dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
            dp.pRangeProfilerObject = obj;
            cuptiRangeProfilerDisable(&dp);
            throw;
        }
        CUpti_RangeProfiler_Disable_Params dp{};
        dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = obj;
        CALL("Disable", cuptiRangeProfilerDisable(&dp));
        return all;
    }
};

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::size_t index_of(const std::vector<std::string>& v, std::string_view s) {
    return static_cast<std::size_t>(std::find(v.begin(), v.end(), s) - v.begin());
}

} // namespace

int main(int argc, char** argv) try {
    int reps = 3;
    std::string only;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[i + 1]));
        if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
    }
    using namespace ktune;
    KTUNE_CUDA_CALL(cudaSetDevice(0));
    KTUNE_CUDA_CALL(cudaFree(nullptr));
    probe p;
    using get_ctx_t = CUresult (*)(CUcontext*);
    ktune::detail::driver_fn<get_ctx_t>("cuCtxGetCurrent")(&p.ctx);
    CUpti_Profiler_Initialize_Params ip{};
    ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    cupti("ProfilerInitialize", cuptiProfilerInitialize(&ip));
    CUpti_Device_GetChipName_Params cn{};
    cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    cupti("GetChipName", cuptiDeviceGetChipName(&cn));
    p.chip = cn.pChipName;
    CUpti_Profiler_GetCounterAvailability_Params ca{};
    ca.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    ca.ctx = p.ctx;
    cupti("GetCounterAvailability", cuptiProfilerGetCounterAvailability(&ca));
    p.avail.resize(ca.counterAvailabilityImageSize);
    ca.pCounterAvailabilityImage = p.avail.data();
    cupti("GetCounterAvailability", cuptiProfilerGetCounterAvailability(&ca));
    // ktune's own 3-pass set, so each pass costs what it costs in `ktune profile`.
    const auto set = metrics::resolve_metric_set(
        metrics::metric_set_request("roofline", metrics::tensor_precision::measure), p.chip, 3);
    p.metrics = set.metrics;
    for (const auto& m : p.metrics)
        p.names.push_back(m.c_str());
    ktune::metrics::detail::host_object h0(p.chip, p.avail);
    h0.add(p.metrics);
    p.config = h0.config_image();
    fmt::print("chip {}, {} metrics, {} passes (CUPTI host API)\n", p.chip, p.metrics.size(),
               set.passes);

    const auto q = query_devices();
    compile::compile_request req{k_source, "k_fma", q.devices.front().arch(), {}};
    const auto compiled = compile::nvrtc_compile(req);
    using load_t = CUresult (*)(CUmodule*, const void*);
    using get_t = CUresult (*)(CUfunction*, CUmodule, const char*);
    CUmodule mod = nullptr;
    if (ktune::detail::driver_fn<load_t>("cuModuleLoadData")(&mod, compiled.cubin.data()))
        throw std::runtime_error("cuModuleLoadData failed");
    auto fn = [&](const std::string& name) {
        CUfunction f = nullptr;
        if (ktune::detail::driver_fn<get_t>("cuModuleGetFunction")(&f, mod, name.c_str()))
            throw std::runtime_error("no kernel " + name);
        return f;
    };
    p.launch = ktune::detail::driver_fn<launch_t>("cuLaunchKernel");

    // Copy k reads (k + 2) x 8 MiB from its own input region and writes its own output region:
    // no kernel reads what an earlier one left in L2.
    std::vector<unsigned long long> n4(9), in(9), out(9);
    std::size_t total = 0;
    for (int k = 0; k < 9; ++k) {
        n4[k] = ((k + 2ull) * 8 << 20) / 16;
        total += n4[k] * 16;
    }
    device_buffer x(total), y(total), fill_buf(1 << 20);
    KTUNE_CUDA_CALL(cudaMemset(x.data(), 1, total));
    std::vector<void*> xp(9), yp(9);
    std::size_t off = 0;
    for (int k = 0; k < 9; ++k) {
        xp[k] = static_cast<char*>(x.data()) + off;
        yp[k] = static_cast<char*>(y.data()) + off;
        off += n4[k] * 16;
    }
    for (int k = 0; k < 9; ++k) {
        kernel kk{fmt::format("k_copy{}", k),
                  fn(fmt::format("k_copy{}", k)),
                  static_cast<unsigned>(n4[k] / 256),
                  256,
                  {&xp[k], &yp[k], &n4[k]},
                  double(n4[k] * 16),
                  0};
        p.ks.push_back(std::move(kk));
    }
    void* fp = fill_buf.data();
    int iters = 4096;
    p.ks.push_back({"k_fma", fn("k_fma"), 132 * 4, 256, {&fp, &iters}, 0, 132.0 * 4 * 256 * iters});
    p.fill = {"k_fill", fn("k_fill"), 256, 256, {&fp}, 0, 0};
    measure::l2_flusher flusher;
    p.flusher = &flusher;

    // Baseline: the 10 launches without the profiler.
    for (int r = 0; r < 2; ++r) {
        const auto t = clk::now();
        for (const auto& k : p.ks)
            p.run(k);
        p.sync();
        fmt::print("unprofiled 10 launches + sync: {:.3f} ms\n",
                   std::chrono::duration<double, std::milli>(clk::now() - t).count());
    }

    const std::vector<scenario> scenarios = {
        {"single_auto_today", false, CUPTI_AutoRange, true, true, false, false, false},
        {"single_auto_config_once", false, CUPTI_AutoRange, false, true, false, false, false},
        {"single_auto_flush", false, CUPTI_AutoRange, true, true, true, false, false},
        {"single_user_sync", false, CUPTI_UserRange, true, true, false, false, false},
        {"multi_user_sync", true, CUPTI_UserRange, true, true, false, false, false},
        {"multi_user_nosync", true, CUPTI_UserRange, true, false, false, false, false},
        {"multi_user_sync_config_once", true, CUPTI_UserRange, false, true, false, false, false},
        {"multi_user_sync_fill", true, CUPTI_UserRange, true, true, false, true, false},
        {"multi_user_sync_flush_fill", true, CUPTI_UserRange, true, true, true, true, false},
        {"multi_user_nosync_flush_fill", true, CUPTI_UserRange, true, false, true, true, false},
        {"multi_user_sync_reorder", true, CUPTI_UserRange, true, true, false, false, true},
        {"multi_auto", true, CUPTI_AutoRange, true, true, false, false, false},
        {"multi_auto_flush_fill", true, CUPTI_AutoRange, true, true, true, true, false},
    };
    const std::size_t i_time = index_of(p.metrics, metrics::names::duration);
    const std::size_t i_read = index_of(p.metrics, metrics::names::dram_read);
    const std::size_t i_write = index_of(p.metrics, metrics::names::dram_write);
    const std::size_t i_ffma =
        index_of(p.metrics, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
    const std::size_t i_l2 = index_of(p.metrics, metrics::names::l2_bytes);
    auto at = [](const std::vector<double>& v, std::size_t i) {
        return i < v.size() ? v[i] : std::nan("");
    };
    fmt::print("{:<32} {:>9} {:>9} {:>6} {:>7} {:>5} {:>5}  per call (median ms, calls per rep)\n",
               "scenario", "total ms", "spread", "ranges", "correct", "NaN", "drop");
    for (const auto& s : scenarios) {
        if (!only.empty() && s.name != only) continue;
        std::vector<double> totals;
        std::string verdict;
        std::size_t n_ranges = 0, n_ok = 0, n_nan = 0, dropped = 0, passes = 0;
        std::vector<probe::range_value> last;
        g_ms.clear();
        try {
            for (int r = 0; r < reps; ++r) {
                p.sync();
                dropped = passes = 0;
                const auto t = clk::now();
                last = p.run_scenario(s, dropped, passes);
                totals.push_back(std::chrono::duration<double, std::milli>(clk::now() - t).count());
            }
        } catch (const std::exception& e) {
            verdict = e.what();
        }
        // Which ranges are the 10 kernels: user ranges carry the kernel's name; auto ranges
        // are matched to the launch sequence (fillers and flush sweeps are ranges too).
        std::vector<const kernel*> expect;
        for (const auto& rv : last) {
            const kernel* k = nullptr;
            for (const auto& kk : p.ks)
                if (rv.name.find(kk.name) != std::string::npos) k = &kk;
            expect.push_back(k);
        }
        // Auto range names may not be kernel names: then ranges follow the launch sequence
        // (multi with flush and fillers: sweep, kernel, filler per kernel).
        const std::size_t stride = s.multi && (s.flush || s.fillers) ? 3 : 1;
        const std::size_t first = stride == 3 ? 1 : 0;
        if (std::none_of(expect.begin(), expect.end(), [](auto* k) { return k != nullptr; }))
            for (std::size_t i = 0; first + i * stride < last.size() && i < p.ks.size(); ++i)
                expect[first + i * stride] = &p.ks[i];
        for (std::size_t i = 0; i < last.size(); ++i) {
            const auto& v = last[i].v;
            for (double d : v)
                n_nan += std::isnan(d) ? 1 : 0;
            if (!expect[i]) continue;
            ++n_ranges;
            const kernel& k = *expect[i];
            const double rd = at(v, i_read), ff = at(v, i_ffma);
            // Every pass's metrics must belong to this kernel: DRAM reads, L2 bytes (reads +
            // writes) and the FFMA count come from different passes of the set.
            const double l2 = at(v, i_l2);
            const bool ok = k.ffma > 0 ? ff == k.ffma && rd < 1e6
                                       : std::abs(rd / k.read_bytes - 1) < 0.02 && ff == 0 &&
                                             l2 > 1.5 * k.read_bytes && l2 < 4 * k.read_bytes;
            n_ok += ok ? 1 : 0;
        }
        fmt::print("{:<32} {:>9.1f} {:>9.1f} {:>6} {:>7} {:>5} {:>5}  ", s.name, median(totals),
                   totals.empty() ? 0.0
                                  : *std::max_element(totals.begin(), totals.end()) -
                                        *std::min_element(totals.begin(), totals.end()),
                   last.size(), fmt::format("{}/{}", n_ok, n_ranges), n_nan, dropped);
        for (const auto& [name, v] : g_ms)
            fmt::print("{} {:.3f}x{} ", name, median(v), v.size() / std::max<std::size_t>(reps, 1));
        fmt::print("| passes {}{}\n", passes, verdict.empty() ? "" : " | FAILED: " + verdict);
        // The ranges of the last repetition, for the log.
        for (std::size_t i = 0; i < last.size(); ++i) {
            const auto& v = last[i].v;
            fmt::print("    range {:2} {:<40} expect {:<8} read {:9.3f} MB write {:9.3f} MB L2 "
                       "{:9.3f} MB ffma {:.6g} time {:.2f} us\n",
                       i, last[i].name.substr(0, 40), expect[i] ? expect[i]->name : "-",
                       at(v, i_read) / 1e6, at(v, i_write) / 1e6, at(v, i_l2) / 1e6, at(v, i_ffma),
                       at(v, i_time) / 1e3);
        }
    }
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "bench_range_probe: {}\n", e.what());
    return 1;
}
