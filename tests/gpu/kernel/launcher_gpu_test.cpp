// The run-time launcher on a real GPU: each example kernel (matmul, reduction, stencil) is
// launched through kernel::launcher at its default config (an empty cache) and at a tuned
// config (an exact entry written for this GPU), and its output is checked against a host
// reference with the spec's tolerances.
#include "catch.hpp"
#include "examples.hpp"

#include "ktune/cache/store.hpp"
#include "ktune/kernel/launcher.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <filesystem>
#include <unistd.h>
#include <vector>

using namespace ktune::kernel;
namespace fs = std::filesystem;

namespace {

fs::path example(const char* name) {
    return ktune_test::example_spec(name);
}

struct device_buffer {
    float* p = nullptr;
    explicit device_buffer(const std::vector<float>& host) {
        REQUIRE(cudaMalloc(reinterpret_cast<void**>(&p), host.size() * 4) == cudaSuccess);
        REQUIRE(cudaMemcpy(p, host.data(), host.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    }
    ~device_buffer() { cudaFree(p); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    std::vector<float> read(std::size_t n) const {
        std::vector<float> out(n);
        REQUIRE(cudaMemcpy(out.data(), p, n * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
        return out;
    }
};

std::vector<float> pattern(std::size_t n, int mul, int mod) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = static_cast<float>(static_cast<int>(i * mul % mod) - mod / 2) / 8.0f;
    return v;
}

std::size_t mismatches(const std::vector<float>& got, const std::vector<double>& ref,
                       const kernel_spec& s) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < ref.size(); ++i)
        if (std::abs(got[i] - ref[i]) > s.correctness.atol + s.correctness.rtol * std::abs(ref[i]))
            ++bad;
    return bad;
}

/// Launchers at the default config and at the last valid config of the space (a tuned entry).
template <class F>
void for_each_config(const char* name, const problem& p, F&& f) {
    const kernel_spec s = load_spec(example(name));
    const fs::path dir = fs::temp_directory_path() /
                         ("ktune_gpu_launch_" + std::string(name) + std::to_string(::getpid()));
    fs::create_directories(dir);
    launcher_options o;
    o.cache_file = dir / "tuned.json";
    launcher plain(s, o);
    f(plain, s);
    CHECK(plain.plan_for(p).tier == ktune::cache::lookup_tier::op_default);

    const auto cs = enumerate(s, p, device_limits::for_arch(plain.environment().arch));
    ktune::cache::entry e;
    e.key = kernel_cache_key(s, p, plain.environment());
    e.cfg = cs.at(cs.size() - 1);
    e.time = {10, 9, 11, 100};
    ktune::cache::write_cache(o.cache_file, std::vector<ktune::cache::entry>{e});
    launcher tuned(s, o);
    CHECK(tuned.plan_for(p).tier == ktune::cache::lookup_tier::exact);
    CHECK(tuned.plan_for(p).cfg == cs.at(cs.size() - 1));
    f(tuned, s);
    fs::remove_all(dir);
}

} // namespace

TEST_CASE("matmul through the launcher matches the host at the default and a tuned config") {
    const std::int32_t M = 300, N = 200, K = 70; // not multiples of any tile
    const std::size_t m = M, n = N, kk = K;
    const auto a = pattern(m * kk, 7, 13), b = pattern(kk * n, 5, 11);
    std::vector<double> ref(m * n);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t k = 0; k < kk; ++k)
                ref[i * n + j] += double{a[i * kk + k]} * b[k * n + j];
    const std::int64_t dims[] = {M, N, K};
    for_each_config("matmul", parse_problem("M=300,N=200,K=70"),
                    [&](launcher& l, const kernel_spec& s) {
                        device_buffer da(a), db(b), dc(std::vector<float>(ref.size(), -1.0f));
                        l.launch(dims, {da.p, db.p, dc.p, M, N, K}, nullptr);
                        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
                        CHECK(mismatches(dc.read(ref.size()), ref, s) == 0);
                    });
}

TEST_CASE("reduction through the launcher matches the host sum") {
    const std::int64_t n = 1 << 20;
    const auto in = pattern(static_cast<std::size_t>(n), 3, 17);
    double sum = 0;
    for (float v : in)
        sum += v;
    const std::int64_t dims[] = {n};
    for_each_config("reduction", parse_problem("N=1048576"),
                    [&](launcher& l, const kernel_spec& s) {
                        device_buffer din(in), dout(std::vector<float>(1, 0.0f));
                        l.launch(dims, {din.p, dout.p, n}, nullptr);
                        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
                        CHECK(mismatches(dout.read(1), {sum}, s) == 0);
                    });
}

TEST_CASE("stencil through the launcher matches the host Jacobi step") {
    const std::int32_t nx = 333, ny = 257;
    const std::size_t w = nx, h = ny;
    const auto in = pattern(w * h, 11, 29);
    std::vector<double> ref(in.size());
    for (std::size_t y = 0; y < h; ++y)
        for (std::size_t x = 0; x < w; ++x) {
            const std::size_t at = y * w + x;
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
                ref[at] = in[at];
                continue;
            }
            const double k = 0.5; // CENTER_WEIGHT_X1000 = 500
            ref[at] =
                k * in[at] + (1 - k) * 0.25 * (in[at - w] + in[at + w] + in[at + 1] + in[at - 1]);
        }
    const std::int64_t dims[] = {nx, ny};
    for_each_config("stencil", parse_problem("NX=333,NY=257"),
                    [&](launcher& l, const kernel_spec& s) {
                        device_buffer din(in), dout(std::vector<float>(in.size(), -1.0f));
                        l.launch(dims, {din.p, dout.p, nx, ny}, nullptr);
                        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
                        CHECK(mismatches(dout.read(ref.size()), ref, s) == 0);
                    });
}
