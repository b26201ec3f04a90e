// Host cost of one run-time GEMM call (ktune::gemm::session::gemm: a hash lookup, then
// cublasLtMatmul) against a plain cublasLtMatmul with the same descriptors and algorithm, on a
// decode shape. Batches of 200 calls are timed on the host clock, then the stream is drained
// outside the timing; the median of 50 batches per variant, alternated. JSON line on stdout.
//
//   bench_gemm_overhead [MxNxK] [dtype]
#include "gemm/lt_descs.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/gemm/gemm.hpp"
#include "ktune/measure/sample_stats.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>

using namespace ktune;
using namespace ktune::gemm;

int main(int argc, char** argv) try {
    const problem p =
        parse_problem(argc > 1 ? argv[1] : "1x4096x4096", argc > 2 ? argv[2] : "bf16");
    const std::size_t ws = std::size_t{32} << 20;
    device_buffer a(std::size_t(p.m * p.k) * 2), b(std::size_t(p.k * p.n) * 2),
        d(std::size_t(p.m * p.n) * 2), work(ws);
    KTUNE_CUDA_CALL(cudaMemset(a.data(), 0, a.size()));
    KTUNE_CUDA_CALL(cudaMemset(b.data(), 0, b.size()));
    cuda_stream st;
    const auto empty_cache = std::filesystem::temp_directory_path() / "ktune_overhead_none.json";
    std::filesystem::remove(empty_cache);
    session s({empty_cache, ws});
    s.gemm(p, a.data(), b.data(), d.data(), st.get()); // resolve once, outside the timing

    auto handle = gemm::detail::make_handle();
    const gemm::detail::lt_descs descs = gemm::detail::make_descs(p);
    const cublasLtMatmulAlgo_t algo = gemm::detail::make_algo(handle.get(), p, s.algorithm(p));
    const float alpha = 1, beta = 0;
    const auto plain = [&] {
        KTUNE_LT_CALL(gemm::detail::cublaslt().cublasLtMatmul(
            handle.get(), descs.op.get(), &alpha, a.data(), descs.a.get(), b.data(), descs.b.get(),
            &beta, d.data(), descs.c.get(), d.data(), descs.d.get(), &algo, work.data(), ws,
            st.get()));
    };
    const auto ktune_call = [&] { s.gemm(p, a.data(), b.data(), d.data(), st.get()); };
    constexpr int calls = 200, batches = 50;
    std::vector<double> t_plain, t_ktune;
    const auto batch = [&](auto&& f, std::vector<double>& out) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            f();
        out.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count() /
            calls);
        KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
    };
    for (int w = 0; w < 3; ++w) {
        batch(plain, t_plain);
        batch(ktune_call, t_ktune);
    }
    t_plain.clear();
    t_ktune.clear();
    for (int i = 0; i < batches; ++i) {
        batch(plain, t_plain);
        batch(ktune_call, t_ktune);
    }
    const auto sp = measure::summarize(t_plain), sk = measure::summarize(t_ktune);
    fmt::print(
        "{{\"bench\": \"gemm_overhead\", \"shape\": \"{}\", \"calls_per_batch\": {}, "
        "\"batches\": {}, \"plain_us\": {{\"median\": {:.3f}, \"min\": {:.3f}, \"max\": {:.3f}}}, "
        "\"ktune_us\": {{\"median\": {:.3f}, \"min\": {:.3f}, \"max\": {:.3f}}}, "
        "\"overhead_us\": {:.3f}, \"source\": \"{}\"}}\n",
        describe(p), calls, batches, sp.median, sp.min, sp.max, sk.median, sk.min, sk.max,
        sk.median - sp.median, to_string(s.source(p)));
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "bench_gemm_overhead: {}\n", e.what());
    return 1;
}
