#pragma once
// A small synthetic trace for the store tests, written with the project's trace writer.
#include "ktune/trace/trace_file.hpp"

#include <string>
#include <vector>

namespace ktune::store::test {

inline trace::kernel_record kernel(std::uint32_t name, std::uint64_t start, std::uint64_t dur,
                                   std::uint32_t grid = 128) {
    trace::kernel_record k;
    k.name_id = name;
    k.start_ns = start;
    k.end_ns = start + dur;
    k.grid = {grid, 1, 1};
    k.block = {256, 1, 1};
    return k;
}

// gemm: 30 x 100 us at two grids; softmax (PyTorch's name): 40 x 20 us; ktune's own op
// kernel: 10 x 5 us, recorded under `ktune tune softmax --shape 4096x1024`.
// `slow` ns are added to every gemm launch; `driver` is the recorded driver version.
inline std::string write_trace(const std::string& path, const std::string& host,
                               std::uint64_t slow = 0, const std::string& driver = "580.159.04") {
    trace::trace_environment env;
    env.host = host;
    env.command_line = {"ktune", "tune", "softmax", "--shape", "4096x1024", "--dtype", "bf16"};
    env.toolkit_version = 13000;
    env.start_unix_ns = 1'700'000'000'000'000'000;
    trace::trace_writer w(path, env);
    const auto gemm = w.intern("_Z4gemmPKfS0_Pf");
    const auto softmax = w.intern(
        "_ZN2at6native43_GLOBAL__N__softmax_warp_forwardIN3c108BFloat16EfLi10EEEvPT_PKS4_iii");
    const auto own = w.intern("ktune_op_kernel");
    std::vector<trace::kernel_record> ks;
    std::uint64_t t = 1000;
    for (int i = 0; i < 30; ++i) {
        ks.push_back(
            kernel(gemm, t, 100000 + slow + static_cast<std::uint64_t>(i), i % 2 ? 64 : 128));
        t += 200000;
    }
    for (int i = 0; i < 40; ++i) {
        ks.push_back(kernel(softmax, t, 20000 + static_cast<std::uint64_t>(i)));
        t += 30000;
    }
    for (int i = 0; i < 10; ++i) {
        ks.push_back(kernel(own, t, 5000));
        t += 6000;
    }
    w.write(std::span(ks));
    auto end = env;
    trace::gpu_identity gpu;
    gpu.name = "NVIDIA H200";
    end.gpus.push_back(gpu);
    end.driver_version = driver;
    w.finish(end, {});
    return path;
}

} // namespace ktune::store::test
