// Session start, stop and save times around 200 000 kernels, and bytes per kernel on disk.
//   profile_session_bench out.ktrace [kernels]
#include "kernels.hpp"

#include "ktune/trace/session.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

int main(int argc, char** argv) {
    const char* out = argc > 1 ? argv[1] : "session_bench.ktrace";
    const int kernels = argc > 2 ? std::atoi(argv[2]) : 200000;
    if (!bench_init()) return 1; // CUDA initialised first: start() measures ktune, not cuInit
    using clock = std::chrono::steady_clock;
    const auto ms = [](clock::time_point a, clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    ktune::trace::session_options o;
    o.output = out;
    ktune::trace::session s(o);
    const auto t0 = clock::now();
    if (!s.start()) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
    }
    const auto t1 = clock::now();
    bench_tiny_launches(kernels);
    bench_sync();
    const auto t2 = clock::now();
    s.stop();
    const auto t3 = clock::now();
    const bool saved = s.save();
    const auto t4 = clock::now();
    const auto c = s.counters();
    const auto bytes = std::filesystem::file_size(out);
    std::printf("{\"bench\":\"session\",\"kernels\":%llu,\"start_ms\":%.3f,\"workload_ms\":%.3f,"
                "\"stop_ms\":%.3f,\"save_ms\":%.3f,\"stop_and_save_ms\":%.3f,\"bytes\":%llu,"
                "\"bytes_per_kernel\":%.2f,\"dropped\":%llu,\"saved\":%s}\n",
                static_cast<unsigned long long>(c.kernels), ms(t0, t1), ms(t1, t2), ms(t2, t3),
                ms(t3, t4), ms(t2, t4), static_cast<unsigned long long>(bytes),
                c.kernels ? static_cast<double>(bytes) / static_cast<double>(c.kernels) : 0.0,
                static_cast<unsigned long long>(c.dropped()), saved ? "true" : "false");
    return saved ? 0 : 1;
}
