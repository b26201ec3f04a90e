// An application launching the matmul example (matmul.json) through ktune's run-time launcher:
// the config comes from the config cache (exact -> nearest -> the spec's default), is compiled
// once (cubin cache on disk) and launched on a stream; the result is checked against a host
// reference with the spec's tolerances. Without a GPU it prints the plan for sm_90 and exits 0.
//
//   example_kernel_matmul [matmul.json] [M N K]        # exit 0: result matches, 1: it does not
//
// A problem no tuned entry answers is appended to "<cache>.misses.jsonl" for a later tune;
// KTUNE_CAPTURE=dir also captures the launch with its data (docs/formats.md#ktunekernel_capture).
#include "ktune/core/error.hpp"
#include "ktune/kernel/launcher.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}

void print_plan(const ktune::kernel::launch_plan& p) {
    std::printf("%s: tier %s, config %s, grid %lldx%lld block %lldx%lld, %lld B shared\n",
                p.key.to_string().c_str(), ktune::cache::to_string(p.tier).data(),
                p.cfg.to_string().c_str(), static_cast<long long>(p.geo.grid[0]),
                static_cast<long long>(p.geo.grid[1]), static_cast<long long>(p.geo.block[0]),
                static_cast<long long>(p.geo.block[1]), static_cast<long long>(p.geo.shared_bytes));
    if (!p.fallback_reason.empty()) std::printf("  (%s)\n", p.fallback_reason.c_str());
}

int run(int argc, char** argv) {
    namespace kk = ktune::kernel;
    const std::string spec = argc > 1 ? argv[1] : KTUNE_MATMUL_SPEC;
    const std::int32_t M = argc > 4 ? std::atoi(argv[2]) : 512;
    const std::int32_t N = argc > 4 ? std::atoi(argv[3]) : 384;
    const std::int32_t K = argc > 4 ? std::atoi(argv[4]) : 256;
    const std::int64_t dims[] = {M, N, K}; // the spec's dimension order: M, N, K

    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        kk::launcher_options o;
        o.env = ktune::cache::environment{"sm_90", 13000, 580, ktune::cache::current_protocol};
        o.record_misses = false; // a plan printed on a machine that cannot run it is no miss
        kk::launcher l(spec, o);
        std::printf("no GPU: the plan on an sm_90 / CUDA 13.0 / driver 580 machine\n");
        print_plan(l.plan_for(dims));
        return 0;
    }
    kk::launcher mm(spec); // once at start-up: the spec, the cache file, this GPU's key
    print_plan(mm.plan_for(dims));

    const auto mk = static_cast<std::size_t>(M) * K, kn = static_cast<std::size_t>(K) * N,
               mn = static_cast<std::size_t>(M) * N;
    std::vector<float> a(mk), b(kn), c(mn);
    for (std::size_t i = 0; i < mk; ++i)
        a[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 8.0f;
    for (std::size_t i = 0; i < kn; ++i)
        b[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) / 4.0f;
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    cudaStream_t stream = nullptr;
    if (check(cudaMalloc(reinterpret_cast<void**>(&da), mk * 4), "cudaMalloc") ||
        check(cudaMalloc(reinterpret_cast<void**>(&db), kn * 4), "cudaMalloc") ||
        check(cudaMalloc(reinterpret_cast<void**>(&dc), mn * 4), "cudaMalloc") ||
        check(cudaStreamCreate(&stream), "cudaStreamCreate") ||
        check(cudaMemcpy(da, a.data(), mk * 4, cudaMemcpyHostToDevice), "cudaMemcpy") ||
        check(cudaMemcpy(db, b.data(), kn * 4, cudaMemcpyHostToDevice), "cudaMemcpy"))
        return 1;

    // Per launch: a hash lookup and the driver's launch; the first one compiles and loads.
    mm.launch(dims, {da, db, dc, M, N, K}, stream);
    if (check(cudaStreamSynchronize(stream), "matmul") ||
        check(cudaMemcpy(c.data(), dc, mn * 4, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return 1;

    const double rtol = mm.spec().correctness.rtol, atol = mm.spec().correctness.atol;
    // Every row on the host while that is cheap; beyond 2^31 multiply-adds, 64 rows spread over
    // C (the first and the last among them), so a 4096^3 check takes a second, not minutes.
    const bool all_rows = static_cast<double>(M) * N * K <= 2147483648.0;
    const std::int32_t rows = all_rows ? M : std::min<std::int32_t>(M, 64);
    std::size_t bad = 0, checked = 0;
    for (std::int32_t r = 0; r < rows; ++r) {
        const std::int32_t i =
            all_rows || rows == 1
                ? r
                : static_cast<std::int32_t>(static_cast<std::int64_t>(r) * (M - 1) / (rows - 1));
        for (std::int32_t j = 0; j < N; ++j, ++checked) {
            double ref = 0;
            for (std::int32_t k = 0; k < K; ++k)
                ref += static_cast<double>(a[static_cast<std::size_t>(i) * K + k]) *
                       b[static_cast<std::size_t>(k) * N + j];
            const double got = c[static_cast<std::size_t>(i) * N + j];
            if (std::abs(got - ref) > atol + rtol * std::abs(ref) && bad++ < 5)
                std::fprintf(stderr, "C[%d][%d] = %g, the host says %g\n", i, j, got, ref);
        }
    }
    const auto st = mm.stats();
    std::printf("%zu of %zu checked outputs (of %zu) outside rtol %g atol %g; %llu NVRTC "
                "compile(s), %llu cubin cache hit(s)\n",
                bad, checked, mn, rtol, atol, static_cast<unsigned long long>(st.nvrtc_compiles),
                static_cast<unsigned long long>(st.cubin_hits));
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaStreamDestroy(stream);
    return bad == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const ktune::error& e) {
        std::fprintf(stderr, "example_kernel_matmul: %s\n", e.what());
        return 2;
    }
}
