// ktune device [--list] [--measure] [--json]
#include "command.hpp"

#include "ktune/core/clocks.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/core/gpu_peaks.hpp"
#include "ktune/metrics/device_measure.hpp"

#include <fmt/format.h>

#include <memory>

namespace ktune::cli {
namespace {

struct device_options {
    bool list = false;
    bool measure = false;
    bool json = false;
};

void print_peaks_table() {
    fmt::print("{:<16} {:<7} {:>8} {:>8} {:>11} {:>9} {:>9} {:>9} {:>7}  {}\n", "GPU", "arch",
               "FP32", "FP64", "FP16/BF16", "TF32", "FP8", "DRAM", "memory", "source");
    fmt::print("{:<16} {:<7} {:>8} {:>8} {:>11} {:>9} {:>9} {:>9} {:>7}\n", "", "", "TFLOP/s",
               "TFLOP/s", "TFLOP/s", "TFLOP/s", "TFLOP/s", "GB/s", "GB");
    for (const auto& g : known_gpus())
        fmt::print(
            "{:<16} {:<7} {:>8.1f} {:>8.2f} {:>11.1f} {:>9.1f} {:>9.1f} {:>9.0f} {:>7.0f}  {}\n",
            g.name, g.arch, g.fp32_tflops, g.fp64_tflops, g.fp16_tensor_tflops,
            g.tf32_tensor_tflops, g.fp8_tensor_tflops, g.dram_gbs, g.memory_gb, g.source);
    fmt::print("Dense tensor rates (datasheets quote 2x with structured sparsity); 0 = not "
               "supported.\n");
}

int print_devices(const device_options& o) {
    const device_query q = query_devices();
    if (o.json) {
        fmt::print("{}\n", device_report_json(q));
        return q.devices.empty() ? usage_error : ok;
    }
    if (q.devices.empty()) {
        fmt::print(stderr,
                   "ktune device: {}\n  CUDA runtime {}, driver {}.\n  `ktune device --list` "
                   "shows the GPUs ktune knows without one.\n",
                   q.no_device_reason, format_cuda_version(q.versions.runtime),
                   q.versions.driver.empty() ? std::string("not found") : q.versions.driver);
        return usage_error;
    }
    for (const auto& d : q.devices) {
        fmt::print("GPU {}: {}\n", d.ordinal, d.name);
        fmt::print("  arch          {} (compute capability {}.{})\n", d.arch(), d.cc_major,
                   d.cc_minor);
        fmt::print("  SMs           {} at up to {} MHz\n", d.sm_count, d.sm_clock_khz / 1000);
        fmt::print("  L2            {:.1f} MiB\n", d.l2_bytes / 1048576.0);
        fmt::print("  memory        {} MiB ({} MiB usable by CUDA), {}-bit bus at {} MHz ({:.0f} "
                   "GB/s theoretical)\n",
                   (d.memory_total_bytes ? d.memory_total_bytes : d.memory_bytes) / 1048576,
                   d.memory_bytes / 1048576, d.memory_bus_bits, d.memory_clock_khz / 1000,
                   d.memory_bandwidth_gbs());
        fmt::print("  UUID          {}\n", d.uuid);
        fmt::print("  PCI bus       {}\n", d.pci_bus_id);
        fmt::print("  driver        {} (CUDA {} driver API)\n",
                   q.versions.driver.empty() ? std::string("unknown") : q.versions.driver,
                   format_cuda_version(q.versions.driver_api));
        fmt::print("  toolkit       CUDA {} runtime (built against {})\n",
                   format_cuda_version(q.versions.runtime),
                   format_cuda_version(q.versions.toolkit_compiled));
        if (auto c = read_clocks(d))
            fmt::print("  clocks now    SM {} MHz, memory {} MHz, {} C, {:.0f} W, throttle: {}\n",
                       c->sm_mhz, c->memory_mhz, c->temperature_c, c->power_mw / 1000.0,
                       describe_throttle_reasons(c->throttle_reasons));
        if (auto p = find_gpu_peaks(d.name)) {
            fmt::print("  spec peaks    {} ({})\n", p->name, p->source);
            fmt::print("                FP32 {:.1f}, FP64 {:.1f}, FP16/BF16 tensor {:.1f}, TF32 "
                       "tensor {:.1f}, FP8 tensor {:.1f} TFLOP/s; DRAM {:.0f} GB/s\n",
                       p->fp32_tflops, p->fp64_tflops, p->fp16_tensor_tflops, p->tf32_tensor_tflops,
                       p->fp8_tensor_tflops, p->dram_gbs);
        } else {
            fmt::print("  spec peaks    unknown GPU: not in `ktune device --list`\n");
        }
    }
    return ok;
}

// --measure: measured peaks next to the datasheet's (logic in ktune::metrics::measure_device).
int print_measured(const device_options& o) {
    const device_query q = query_devices();
    if (q.devices.empty())
        throw error(error_kind::no_device, "ktune device --measure: " + q.no_device_reason);
    const auto& d = q.devices.front();
    if (stderr_is_tty()) fmt::print(stderr, "measuring {} (a few seconds)...\n", d.name);
    const auto m = metrics::measure_device(d.ordinal);
    // Kept per GPU so `ktune profile --metrics` records these roofs in the trace by itself.
    const auto saved = metrics::save_measured_peaks(d.name, m.peaks);
    if (o.json) {
        fmt::print("{}\n", metrics::device_measure_json(d.name, m, saved));
        return ok;
    }
    fmt::print("GPU {}: {} — measured, median of repeats (min..max)\n", d.ordinal, d.name);
    for (const auto& r : m.rates) {
        if (!r.error.empty()) {
            fmt::print("  {:<10} not measured: {}\n", r.what, r.error);
            continue;
        }
        const double s = metrics::spec_rate(d.name, r.what);
        fmt::print("  {:<10} {:>8.1f} {:<8} ({:.1f}..{:.1f}, {} runs; {})", r.what, r.median,
                   r.unit, r.min, r.max, r.repeats, r.detail);
        if (s > 0) fmt::print("  spec {:.1f}: {:.0f} %", s, 100 * r.median / s);
        fmt::print("\n");
    }
    fmt::print("saved to {} (ktune profile --metrics records it in the trace)\n", saved.string());
    return ok;
}

} // namespace

command add_device(CLI::App& root) {
    auto o = std::make_shared<device_options>();
    auto* app = root.add_subcommand("device", "GPU identity and peaks; --list: known GPUs");
    app->add_flag("--list", o->list, "Print the spec peaks of every GPU ktune knows");
    app->add_flag("--measure", o->measure, "Measure copy bandwidth and FMA/tensor rates");
    app->add_flag("--json", o->json, "Machine-readable output (schema ktune.device 1.0.0)");
    return {app, [o] {
                if (o->list) {
                    print_peaks_table();
                    return static_cast<int>(ok);
                }
                if (o->measure) return print_measured(*o);
                return print_devices(*o);
            }};
}

} // namespace ktune::cli
