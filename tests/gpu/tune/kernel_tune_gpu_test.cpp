// Tuning a user kernel on a real GPU (tune_request::kernel_spec, `ktune tune --kernel`): each
// example kernel is tuned at a small problem with every candidate checked against its
// reference (no correct kernel may read as wrong), the winner is filed under the key the
// run-time launcher looks up (exact tier), and a kernel that is wrong for one config value is
// caught for exactly those configs; a captured launch is tuned on the application's own data;
// the tensor-core decode GEMM (bf16 and fp8 weights) is right for every config it tries.
#include "catch.hpp"
#include "examples.hpp"

#include "ktune/kernel/launcher.hpp"
#include "ktune/tune/tuner.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ktune;
namespace fs = std::filesystem;

namespace {
fs::path example(const char* name) {
    return ktune_test::example_spec(name);
}

tune::tune_request request(const fs::path& spec, const char* problem, const fs::path& cache) {
    tune::tune_request rq;
    rq.kernel_spec = spec;
    rq.kernel_problem = kernel::parse_problem(problem);
    rq.budget = 24;
    rq.seed = 3;
    rq.cache_file = cache;
    rq.read_cache = false;
    rq.policy.min_samples = 8;
    rq.policy.max_samples = 32;
    return rq;
}

std::size_t count(const tune::tune_report& r, tune::eval_status s) {
    std::size_t n = 0;
    for (const auto& c : r.candidates)
        n += c.status == s;
    return n;
}
} // namespace

TEST_CASE("each example kernel tunes, passes its check, and the launcher finds the winner") {
    const fs::path cache =
        fs::temp_directory_path() / ("ktune_gpu_kernel_tune_" + std::to_string(getpid()) + ".json");
    fs::remove(cache);
    for (auto [name, problem] :
         {std::pair{"matmul", "M=512,N=384,K=256"}, std::pair{"reduction", "N=1048576"},
          std::pair{"stencil", "NX=1024,NY=768"}}) {
        INFO(name);
        const auto rq = request(example(name), problem, cache);
        const auto r = tune::tune_op(rq);
        REQUIRE_FALSE(r.winner.cfg.empty());
        CHECK(r.baseline.status == tune::eval_status::ok);
        CHECK(count(r, tune::eval_status::wrong_result) == 0);
        CHECK(count(r, tune::eval_status::launch_error) == 0);
        CHECK(count(r, tune::eval_status::ok) >= r.candidates.size() / 2);
        CHECK(r.winner.time.median_us <= r.baseline.run.median_ms * 1000 * 1.05);

        kernel::launcher_options lo;
        lo.cache_file = cache;
        lo.record_misses = false;
        kernel::launcher l(rq.kernel_spec, lo);
        const auto& plan = l.plan_for(rq.kernel_problem);
        CHECK(plan.tier == cache::lookup_tier::exact);
        CHECK(plan.cfg == r.winner.cfg);
    }
    fs::remove(cache);
}

TEST_CASE("the tensor-core decode GEMM is right for every config, split-K workspace included") {
    // Shapes off every tile: N not a multiple of 16, K not of the 32 (64) of a chunk, M not
    // of 8. The exhaustive order varies XSTAGE fastest, then SPLITK, so configs whose blocks
    // add into the workspace run one after another: one that left it dirty would fail the next.
    // At M > 8 a third of the first 32 stage X in shared memory (XSTAGE 1).
    const fs::path dir = ktune_test::example_spec("decode_gemm_tc").parent_path();
    const fs::path cache =
        fs::temp_directory_path() / ("ktune_gpu_decode_tc_" + std::to_string(getpid()) + ".json");
    for (auto [spec, problem] : {std::pair{"decode_gemm_tc.json", "M=13,N=4104,K=4104"},
                                 std::pair{"decode_gemm_tc_fp8.json", "M=13,N=4104,K=4112"},
                                 std::pair{"decode_gemm_tc.json", "M=1,N=4096,K=4096"},
                                 std::pair{"decode_gemm_tc.json", "M=40,N=4104,K=4104"},
                                 std::pair{"decode_gemm_tc_fp8.json", "M=33,N=4104,K=4112"}}) {
        INFO(spec << " " << problem);
        auto rq = request(dir / spec, problem, cache);
        rq.strategy = "exhaustive";
        rq.budget = 32;
        const auto r = tune::tune_op(rq);
        REQUIRE_FALSE(r.winner.cfg.empty());
        CHECK(r.baseline.status == tune::eval_status::ok);
        std::size_t split = 0, staged = 0;
        for (const auto& c : r.candidates) {
            INFO(c.cfg.to_string() << ": " << c.message);
            CHECK(c.status == tune::eval_status::ok);
            split += c.cfg.get<std::int64_t>("SPLITK") > 1;
            staged += c.cfg.get<std::int64_t>("XSTAGE") == 1;
        }
        CHECK(split >= 4);
        if (std::string(problem).rfind("M=1,", 0) != 0) CHECK(staged >= 4);
    }
    fs::remove(cache);
}

TEST_CASE("a kernel wrong for one parameter value is caught for those configs only") {
    const fs::path dir =
        fs::temp_directory_path() / ("ktune_gpu_kernel_wrong_" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "axpy.cu") << R"(
template <int BLOCK>
__global__ void axpy(const float* x, float* y, int a, int n) {
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) y[i] = a * x[i] + (BLOCK == 128 && i == n / 2 ? 1.0f : 0.0f);
}
)";
    std::ofstream(dir / "axpy.json") << R"json({
  "schema": "ktune.kernel", "version": "1.0.0", "name": "axpy_wrong_at_128",
  "sources": ["axpy.cu"], "kernel": "axpy<BLOCK>",
  "dimensions": {"N": 100003},
  "parameters": {"BLOCK": {"values": [64, 128, 256, 512], "default": 256}},
  "launch": {"grid": ["ceil_div(N, BLOCK)"], "block": ["BLOCK"]},
  "arguments": [
    {"name": "x", "kind": "buffer", "dtype": "fp32", "size": "N", "input": "normal"},
    {"name": "y", "kind": "buffer", "dtype": "fp32", "size": "N", "output": true},
    {"name": "a", "kind": "scalar", "dtype": "int32", "value": "2"},
    {"name": "n", "kind": "scalar", "dtype": "int32", "value": "N"}
  ],
  "correctness": {"reference": "default_config", "rtol": 1e-6, "atol": 1e-6},
  "model": {"bytes": "8 * N"}
})json";
    auto rq = request(dir / "axpy.json", "N=100003", dir / "cache.json");
    rq.strategy = "exhaustive";
    const auto r = tune::tune_op(rq);
    REQUIRE(r.candidates.size() >= 4);
    for (const auto& c : r.candidates) {
        INFO(c.cfg.to_string() << ": " << c.message);
        const bool bad = c.cfg.get<std::int64_t>("BLOCK") == 128;
        CHECK((c.status == tune::eval_status::wrong_result) == bad);
        if (!bad) CHECK(c.status == tune::eval_status::ok);
        if (bad) CHECK(c.run.bad_elements == 1);
    }
    CHECK(r.winner.cfg.get<std::int64_t>("BLOCK") != 128);
    fs::remove_all(dir);
}

TEST_CASE("a captured launch is tuned on the application's data, its output the reference") {
    const fs::path root =
        fs::temp_directory_path() / ("ktune_gpu_kernel_capture_" + std::to_string(getpid()));
    fs::remove_all(root);
    kernel::launcher_options lo;
    lo.cache_file = root / "app.json";
    lo.capture_dir = root / "captures";
    lo.record_misses = false;
    kernel::launcher app(example("matmul"), lo);
    const std::int32_t M = 256, N = 128, K = 64;
    const std::int64_t dims[] = {M, N, K};
    std::vector<float> a(static_cast<std::size_t>(M) * K), b(static_cast<std::size_t>(K) * N);
    for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = static_cast<float>(static_cast<int>(i % 17) - 8) / 4.0f;
    for (std::size_t i = 0; i < b.size(); ++i)
        b[i] = static_cast<float>(static_cast<int>(i % 13) - 6) / 2.0f;
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    REQUIRE(cudaMalloc(reinterpret_cast<void**>(&da), a.size() * 4) == cudaSuccess);
    REQUIRE(cudaMalloc(reinterpret_cast<void**>(&db), b.size() * 4) == cudaSuccess);
    REQUIRE(cudaMalloc(reinterpret_cast<void**>(&dc), static_cast<std::size_t>(M) * N * 4) ==
            cudaSuccess);
    REQUIRE(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    app.launch(dims, {da, db, dc, M, N, K}, nullptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    REQUIRE(app.stats().captures == 1);
    fs::path captured;
    for (const auto& e : fs::directory_iterator(root / "captures"))
        captured = e.path();
    REQUIRE_FALSE(captured.empty());

    auto rq = request(example("matmul"), "M=1,N=1,K=1", root / "tuned.json");
    rq.kernel_capture = captured; // its problem, inputs and output replace these
    const auto r = tune::tune_op(rq);
    REQUIRE_FALSE(r.winner.cfg.empty());
    CHECK(count(r, tune::eval_status::wrong_result) == 0);
    CHECK(r.winner.key.bucket == std::vector<std::int64_t>{256, 128, 64});

    // The application's output altered: no config reproduces it.
    const fs::path out = captured / "2-C.out";
    REQUIRE(fs::exists(out));
    std::string bytes;
    {
        std::ifstream in(out, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    // A change far outside any tolerance: the first element (fp32) plus 1000.
    float first = 0;
    std::memcpy(&first, bytes.data(), sizeof first);
    first += 1000.0f;
    std::memcpy(bytes.data(), &first, sizeof first);
    std::ofstream(out, std::ios::binary | std::ios::trunc) << bytes;
    auto bad = rq;
    bad.budget = 4;
    bad.cache_file = root / "tuned2.json";
    const auto r2 = tune::tune_op(bad);
    CHECK(r2.winner.cfg.empty());
    CHECK(count(r2, tune::eval_status::wrong_result) == r2.candidates.size());
    fs::remove_all(root);
}
