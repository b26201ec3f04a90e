// The run-time launcher against a plain cuLaunchKernel of the same cubin, on a GPU
// (docs/perf/kernel.md#launch-overhead-on-the-gpu). Both launch the tests' `scale` kernel
// (N = 1024, one block) on one stream; each batch of `batch` launches is timed on the host
// (steady_clock) and then synchronised outside the timed span, so the GPU's queue never fills
// and the figure is the host's cost of one launch. Batches alternate between the two so drift
// hits both. Also the plan lookup (plan_for) on this host.
//
//   kernel_launch_overhead_gpu [launches=100000] [batch=256]
#include "core/driver_api.hpp"
#include "ktune/kernel/launcher.hpp"
#include "ktune/kernel/space.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace {
namespace kk = ktune::kernel;
using clk = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void check(CUresult rc, const char* what) {
    if (rc != CUDA_SUCCESS) {
        fmt::print(stderr, "{}: {}\n", what, ktune::detail::driver_error_name(rc));
        std::exit(1);
    }
}
} // namespace

int main(int argc, char** argv) {
    const long launches = argc > 1 ? std::atol(argv[1]) : 100000;
    const long batch = argc > 2 ? std::atol(argv[2]) : 256;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        fmt::print(stderr, "kernel_launch_overhead_gpu: no CUDA GPU\n");
        return 77;
    }
    cudaFree(nullptr);
    const auto tmp = std::filesystem::temp_directory_path() /
                     fmt::format("ktune_launch_overhead_{}", ::getpid());
    std::filesystem::create_directories(tmp);
    kk::launcher_options o;
    o.cache_file = tmp / "tuned.json"; // empty: the default config
    o.cubin_dir = tmp / "cubin";
    o.record_misses = false;
    kk::launcher l(std::filesystem::path(KTUNE_LAUNCH_SPEC), o);
    const std::int64_t n = 1024;
    const std::span<const std::int64_t> dims(&n, 1);
    const kk::launch_plan& plan = l.prepare(dims);

    // The same cubin, loaded and launched by hand.
    const auto limits = kk::device_limits::for_arch(l.environment().arch);
    const auto rq = kk::compile_request_for(l.spec(), plan.cfg, plan.prob, limits);
    const ktune::compile::cubin_cache cc(o.cubin_dir);
    const auto compiled = ktune::compile::compile_cached(rq, &cc);
    if (!compiled.ok) {
        fmt::print(stderr, "compile: {}\n", compiled.log);
        return 1;
    }
    using load_t = CUresult (*)(CUmodule*, const void*);
    using getf_t = CUresult (*)(CUfunction*, CUmodule, const char*);
    using launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  unsigned, unsigned, CUstream, void**, void**);
    const auto load = ktune::detail::driver_fn<load_t>("cuModuleLoadData");
    const auto getf = ktune::detail::driver_fn<getf_t>("cuModuleGetFunction");
    const auto launch = ktune::detail::driver_fn<launch_t>("cuLaunchKernel");
    CUmodule mod = nullptr;
    CUfunction fn = nullptr;
    check(load(&mod, compiled.cubin.data()), "cuModuleLoadData");
    check(getf(&fn, mod, compiled.lowered_name.c_str()), "cuModuleGetFunction");

    float *x = nullptr, *y = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&x), n * 4);
    cudaMalloc(reinterpret_cast<void**>(&y), n * 4);
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    const auto cu_stream = reinterpret_cast<CUstream>(stream);
    std::int32_t n32 = static_cast<std::int32_t>(n);
    std::int64_t stride = 1;
    void* params[] = {&x, &y, &n32, &stride};
    const auto& g = plan.geo;
    const auto raw = [&] {
        check(launch(fn, static_cast<unsigned>(g.grid[0]), static_cast<unsigned>(g.grid[1]),
                     static_cast<unsigned>(g.grid[2]), static_cast<unsigned>(g.block[0]),
                     static_cast<unsigned>(g.block[1]), static_cast<unsigned>(g.block[2]),
                     static_cast<unsigned>(g.shared_bytes), cu_stream, params, nullptr),
              "cuLaunchKernel");
    };
    const auto via = [&] { l.launch(dims, {x, y, n32, stride}, stream); };
    for (int i = 0; i < 1000; ++i) { // warm-up: modules loaded, clocks up
        raw();
        via();
    }
    cudaStreamSynchronize(stream);
    std::vector<double> raw_ns, via_ns;
    for (long done = 0; done < launches; done += batch) {
        for (int which = 0; which < 2; ++which) {
            const auto t0 = clk::now();
            for (long i = 0; i < batch; ++i)
                which == 0 ? raw() : via();
            const auto t1 = clk::now();
            cudaStreamSynchronize(stream);
            (which == 0 ? raw_ns : via_ns)
                .push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                           static_cast<double>(batch));
        }
    }
    const auto spread = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return fmt::format("min {:.0f} .. p90 {:.0f}", v.front(), v[v.size() * 9 / 10]);
    };
    const double r = median(raw_ns), v = median(via_ns);
    fmt::print("launches        {} each, batches of {} (host time per launch; sync outside)\n",
               launches, batch);
    fmt::print("cuLaunchKernel  median {:.0f} ns ({})\n", r, spread(raw_ns));
    fmt::print("launcher        median {:.0f} ns ({})\n", v, spread(via_ns));
    fmt::print("overhead        {:.0f} ns per launch (target <= 500 ns)\n", v - r);
    // The lookup alone, on this host.
    std::vector<double> look;
    std::int64_t sink = 0;
    for (int run = 0; run < 7; ++run) {
        const auto t0 = clk::now();
        for (long i = 0; i < 1000000; ++i)
            sink += l.plan_for(dims).geo.grid[0];
        look.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / 1e6);
    }
    fmt::print("plan_for        median {:.1f} ns ({}; target <= 50 ns) (checksum {})\n",
               median(look), spread(look), sink);
    fmt::print("tier            {} (config {})\n", ktune::cache::to_string(plan.tier),
               plan.cfg.to_string());
    cudaFree(x);
    cudaFree(y);
    std::filesystem::remove_all(tmp);
    return 0;
}
