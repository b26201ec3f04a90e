// ktune's Hopper GEMM template (src/gemm/sm90.hpp) beside cuBLAS on the same problems, in one
// process (docs/perf/gemm.md#hopper-template). Per shape: random bf16 A and B; cuBLAS through
// ktune::gemm::session (its heuristic's first pick, or the algorithm a --cache file from
// `ktune tune gemm` holds: cuBLAS's best found); each config checked element by element against
// cuBLAS's D, and both against an fp64 host dot product on sampled elements; then timed
// back to back (10 launches between two events, 15 rounds alternating with cuBLAS, after
// warm-up): medians and ranges per launch, and the median of each round's cuBLAS / ktune ratio
// (vs_cublas_paired). One JSON line per (shape, config) on stdout. --rotate N (decode GEMMs,
// whose weights would stay in L2 back to back): N copies of A and B, launch i on copy i % N,
// and each batch of 10 captured once in a CUDA graph per side and replayed between the events
// (no host launch cost in the time; docs/perf/gemm.md#hopper-split-k). --epilogue E (bias,
// relu_bias, gelu_bias): both sides fuse it with a random bf16 bias, checked against cuBLAS's D
// only (docs/perf/gemm.md#hopper-types). --early-b: each config also timed told that B is
// weights (early_b_us, and each round's plain / early ratio; docs/perf/gemm.md#early-weights).
//
//   bench_sm90 [--cache FILE] [--configs "256,4,2,8,2;128,6,2,16,1"] [--rotate N]
//              [--epilogue E] [--early-b] 4096x4096x4096
//   bench_sm90 --read-roof 32,86,128,224,470     (MiB: the read roof of weights of that size)
//   bench_sm90 --gemv [--cache FILE] --rotate 8 1x28672x8192   (a CUDA-core GEMV beside cuBLAS)
//   ... bench_sm90 --brute FILE 4096x4096x4096 bench_sm90 --prior N 4096x4096x4096     (the cost
//   model's first N configs; no GPU)
//
// --brute measures every config of the template's space that the rules keep for the shape
// (sm90_space.hpp), each checked against cuBLAS's D at 4096 sampled elements and timed back to
// back (5 batches of 5 launches after 2 warm-up launches, the median batch), compiled first on
// every core; FILE is the space recorded in Kernel Tuner's cache format
// (docs/formats.md#recorded-spaces), which `ktune tune --space FILE` replays.
#include "core/driver_api.hpp"
#include "gemm/gemv.hpp"
#include "gemm/own_module.hpp"
#include "gemm/sm90.hpp"
#include "gemm/sm90_space.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/error.hpp"
#include "ktune/gemm/gemm.hpp"
#include "ktune/measure/copy_bandwidth.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <vector>

using namespace ktune;
using namespace ktune::gemm;
using namespace ktune::gemm::detail;

namespace {

std::uint16_t to_bf16(float f) {
    std::uint32_t u = 0;
    std::memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
    return static_cast<std::uint16_t>(u >> 16);
}
float from_bf16(std::uint16_t h) {
    const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
    float f = 0;
    std::memcpy(&f, &u, 4);
    return f;
}

// Random bf16 A and B of p on the host and the GPU, and two D buffers (cuBLAS's, ktune's).
struct operands {
    std::vector<std::uint16_t> ha, hb;
    device_buffer a, b, d_ref, d, bias;
    std::mt19937 rng{1};
    std::size_t elems_d = 0;
    explicit operands(const problem& p) {
        const auto elems_a = static_cast<std::size_t>(p.m * p.k),
                   elems_b = static_cast<std::size_t>(p.n * p.k);
        elems_d = static_cast<std::size_t>(p.m * p.n);
        ha.resize(elems_a);
        hb.resize(elems_b);
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        for (auto& x : ha)
            x = to_bf16(u(rng));
        for (auto& x : hb)
            x = to_bf16(u(rng));
        a = device_buffer(elems_a * 2);
        b = device_buffer(elems_b * 2);
        d_ref = device_buffer(elems_d * 2);
        d = device_buffer(elems_d * 2);
        KTUNE_CUDA_CALL(cudaMemcpy(a.data(), ha.data(), elems_a * 2, cudaMemcpyHostToDevice));
        KTUNE_CUDA_CALL(cudaMemcpy(b.data(), hb.data(), elems_b * 2, cudaMemcpyHostToDevice));
        if (p.epi != epilogue::none) {
            std::vector<std::uint16_t> hbias(static_cast<std::size_t>(p.m));
            for (auto& x : hbias)
                x = to_bf16(u(rng));
            bias = device_buffer(hbias.size() * 2);
            KTUNE_CUDA_CALL(
                cudaMemcpy(bias.data(), hbias.data(), hbias.size() * 2, cudaMemcpyHostToDevice));
        }
    }
};

// |x - r| relative to max(|r|, 1).
double rel_off(double x, double r) {
    return std::abs(x - r) / std::max(std::abs(r), 1.0);
}
// fp64 dot product of A's row m and B's row n: D[m + n M] = sum_k A[k + m K] B[k + n K].
double exact_d(const problem& p, const operands& o, std::int64_t m, std::int64_t n) {
    double s = 0;
    for (std::int64_t k = 0; k < p.k; ++k)
        s += double(from_bf16(o.ha[m * p.k + k])) * from_bf16(o.hb[n * p.k + k]);
    return s;
}
using positions = std::vector<std::pair<std::int64_t, std::int64_t>>;
// A kernel's D against cuBLAS's, element by element (bad: over 2 % off, NaN counted; worst: the
// largest), and against the fp64 dot products at `at` (vs_fp64: the largest of `floor` and those).
struct d_check {
    std::size_t bad = 0;
    double worst = 0, vs_fp64 = 0;
};
d_check check_against(const problem& p, const operands& o, const std::vector<std::uint16_t>& got,
                      const std::vector<std::uint16_t>& ref, const positions& at, double floor) {
    d_check c;
    c.vs_fp64 = floor;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double e = rel_off(from_bf16(got[i]), from_bf16(ref[i]));
        if (!(e <= 0.02)) ++c.bad;
        c.worst = std::max(c.worst, std::isnan(e) ? 1e30 : e);
    }
    for (auto [m, n] : at)
        c.vs_fp64 = std::max(c.vs_fp64, rel_off(from_bf16(got[m + n * p.m]), exact_d(p, o, m, n)));
    return c;
}

// Copies of A and B for --rotate: set i % n, set 0 the originals (weights beyond L2 between
// launches of a decode GEMM).
struct rotation {
    const device_buffer& a;
    const device_buffer& b;
    int n;
    std::vector<device_buffer> copies; // sets 1 .. n - 1, A then B
    rotation(const device_buffer& a0, const device_buffer& b0, int sets) : a(a0), b(b0), n(sets) {
        for (int i = 1; i < n; ++i)
            for (const device_buffer* src : {&a, &b}) {
                copies.emplace_back(src->size());
                KTUNE_CUDA_CALL(cudaMemcpy(copies.back().data(), src->data(), src->size(),
                                           cudaMemcpyDeviceToDevice));
            }
    }
    [[nodiscard]] const void* a_set(int i) const {
        return i % n == 0 ? a.data() : copies[std::size_t(2 * (i % n - 1))].data();
    }
    [[nodiscard]] const void* b_set(int i) const {
        return i % n == 0 ? b.data() : copies[std::size_t(2 * (i % n - 1) + 1)].data();
    }
};

sm90_device device_here() {
    const auto d = sm90_device_here();
    if (!d) throw error(error_kind::no_device, "bench_sm90 needs an sm_90 GPU");
    return *d;
}

// A config as a recorded space's key: "bn,stages,consumers,group,cluster,epi_parts,tma_store"
// (",splits" where it splits K, its cluster shares B or it swaps A and B, then ",cluster_b"
// for the latter two, then ",1" where it swaps; the recorded spaces hold none of them).
std::string key_of(const sm90_config& c) {
    return fmt::format("{},{},{},{},{},{},{}{}", c.bn, c.stages, c.consumers, c.group, c.cluster,
                       c.epi_parts, c.tma_store,
                       c.swap_ab != 0     ? fmt::format(",{},{},1", c.splits, c.cluster_b)
                       : c.cluster_b != 0 ? fmt::format(",{},{}", c.splits, c.cluster_b)
                       : c.splits != 1    ? fmt::format(",{}", c.splits)
                                          : "");
}

std::vector<sm90_config> parse_configs(const std::string& s) {
    std::vector<sm90_config> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ';')) {
        sm90_config c = sm90_default;
        const int n = std::sscanf(item.c_str(), "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", &c.bn, &c.stages,
                                  &c.consumers, &c.group, &c.cluster, &c.epi_parts, &c.tma_store,
                                  &c.splits, &c.cluster_b, &c.swap_ab);
        if (n < 4)
            throw error(error_kind::usage,
                        fmt::format("--configs: '{}' is not bn,stages,consumers,group[,cluster[,"
                                    "epi_parts[,tma_store[,splits[,cluster_b[,swap_ab]]]]]]",
                                    item));
        out.push_back(c);
    }
    return out;
}

struct spread {
    double median = 0, min = 0, max = 0;
};
spread summarize(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

// A CUDA graph of `n` calls launch(0 .. n - 1) on `st`, instantiated.
struct batch_graph {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    template <class F>
    batch_graph(F&& launch, cudaStream_t st, int n) {
        KTUNE_CUDA_CALL(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; i < n; ++i)
            launch(i);
        KTUNE_CUDA_CALL(cudaStreamEndCapture(st, &graph));
        KTUNE_CUDA_CALL(cudaGraphInstantiate(&exec, graph, 0));
    }
    ~batch_graph() {
        if (exec) (void)cudaGraphExecDestroy(exec);
        if (graph) (void)cudaGraphDestroy(graph);
    }
    batch_graph(const batch_graph&) = delete;
    batch_graph& operator=(const batch_graph&) = delete;
};

template <class F>
double time_batch(F&& launch, cudaStream_t st, cudaEvent_t e0, cudaEvent_t e1, int n) {
    KTUNE_CUDA_CALL(cudaEventRecord(e0, st));
    for (int i = 0; i < n; ++i)
        launch();
    KTUNE_CUDA_CALL(cudaEventRecord(e1, st));
    KTUNE_CUDA_CALL(cudaEventSynchronize(e1));
    float ms = 0;
    KTUNE_CUDA_CALL(cudaEventElapsedTime(&ms, e0, e1));
    return 1000.0 * ms / n;
}

void bench_shape(const std::string& shape, const std::vector<sm90_config>& configs,
                 const std::filesystem::path& cache, int rotate, const std::string& epi,
                 bool early_b) {
    const problem p = parse_problem(shape, "bf16", "tn", epi);
    operands ops(p);
    auto& [ha, hb, a, b, d_ref, d, bias, rng, elems_d] = ops;
    const rotation rot(a, b, rotate);
    cuda_stream st;
    cuda_event e0, e1;
    session_options so;
    so.cache_file = cache;
    session cublas(so);
    const auto run_cublas = [&] {
        cublas.gemm(p, a.data(), b.data(), d_ref.data(), st.get(), bias.data());
    };
    run_cublas();
    KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
    std::vector<std::uint16_t> ref(elems_d), got(elems_d);
    KTUNE_CUDA_CALL(cudaMemcpy(ref.data(), d_ref.data(), elems_d * 2, cudaMemcpyDeviceToHost));
    // fp64 dot products on sampled elements (none with an epilogue: there cuBLAS's D is the only
    // reference, and the fields read -1).
    positions samples;
    for (int i = 0; i < (p.epi == epilogue::none ? 64 : 0); ++i)
        samples.emplace_back(std::int64_t(rng() % p.m), std::int64_t(rng() % p.n));
    double cublas_exact = p.epi == epilogue::none ? 0 : -1;
    for (auto [m, n] : samples)
        cublas_exact =
            std::max(cublas_exact, rel_off(from_bf16(ref[m + n * p.m]), exact_d(p, ops, m, n)));
    const sm90_device here = device_here();
    const double flop = 2.0 * double(p.m) * double(p.n) * double(p.k);
    const std::string cublas_algo = describe(cublas.algorithm(p));
    for (const sm90_config& c : configs) {
        std::string line =
            fmt::format(R"({{"schema": "ktune.bench_sm90", "shape": "{}", "config": "{}")", shape,
                        sm90_name(c));
        if (auto why = sm90_rejects(c, p, here.max_shared); !why.empty()) {
            fmt::print("{}, \"status\": \"rejected\", \"why\": \"{}\"}}\n", line, why);
            continue;
        }
        try {
            const sm90_kernel k(c, kernel_form_of(p));
            const auto run_ktune = [&] {
                k.run(p, a.data(), b.data(), d.data(), st.get(), 1.0f, bias.data());
            };
            KTUNE_CUDA_CALL(cudaMemsetAsync(d.data(), 0xff, elems_d * 2, st.get()));
            run_ktune();
            KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
            KTUNE_CUDA_CALL(cudaMemcpy(got.data(), d.data(), elems_d * 2, cudaMemcpyDeviceToHost));
            const auto [bad, worst, ktune_exact] =
                check_against(p, ops, got, ref, samples, cublas_exact);
            // --early-b: the same kernel told that B is weights (problem.hpp's b_operand), its D
            // compared with the plain launch's bit for bit (same slabs, same order of sums).
            std::size_t early_differ = 0;
            if (early_b) {
                KTUNE_CUDA_CALL(cudaMemsetAsync(d.data(), 0xff, elems_d * 2, st.get()));
                k.run(p, a.data(), b.data(), d.data(), st.get(), 1.0f, bias.data(),
                      b_operand::weights);
                KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
                std::vector<std::uint16_t> early(elems_d);
                KTUNE_CUDA_CALL(
                    cudaMemcpy(early.data(), d.data(), elems_d * 2, cudaMemcpyDeviceToHost));
                for (std::size_t i = 0; i < elems_d; ++i)
                    early_differ += early[i] != got[i] ? 1 : 0;
            }
            const auto run_early = [&] {
                k.run(p, a.data(), b.data(), d.data(), st.get(), 1.0f, bias.data(),
                      b_operand::weights);
            };
            // A batch: 10 launches back to back, or with --rotate one replay of a graph of 10
            // launches over the operand copies.
            std::optional<batch_graph> gk, gc, ge;
            if (rotate > 1 && early_b)
                ge.emplace(
                    [&](int i) {
                        k.run(p, rot.a_set(i), rot.b_set(i), d.data(), st.get(), 1.0f, bias.data(),
                              b_operand::weights);
                    },
                    st.get(), 10);
            if (rotate > 1) {
                gk.emplace(
                    [&](int i) {
                        k.run(p, rot.a_set(i), rot.b_set(i), d.data(), st.get(), 1.0f, bias.data());
                    },
                    st.get(), 10);
                gc.emplace(
                    [&](int i) {
                        cublas.gemm(p, rot.a_set(i), rot.b_set(i), d_ref.data(), st.get(),
                                    bias.data());
                    },
                    st.get(), 10);
            }
            const auto batch = [&](const std::function<void()>& one,
                                   const std::optional<batch_graph>& g) {
                if (!g) return time_batch(one, st.get(), e0.get(), e1.get(), 10);
                return time_batch([&] { KTUNE_CUDA_CALL(cudaGraphLaunch(g->exec, st.get())); },
                                  st.get(), e0.get(), e1.get(), 1) /
                       10.0;
            };
            for (int i = 0; i < 3; ++i) {
                batch(run_ktune, gk);
                batch(run_cublas, gc);
                if (early_b) batch(run_early, ge);
            }
            std::vector<double> tk, tc, te;
            for (int r = 0; r < 15; ++r) {
                tk.push_back(batch(run_ktune, gk));
                tc.push_back(batch(run_cublas, gc));
                if (early_b) te.push_back(batch(run_early, ge));
            }
            std::string early_fields;
            if (early_b) {
                std::vector<double> vs_plain;
                for (std::size_t r = 0; r < tk.size(); ++r)
                    vs_plain.push_back(tk[r] / te[r]);
                const spread se = summarize(te), sv = summarize(vs_plain);
                early_fields =
                    fmt::format(", \"early_b_us\": [{:.2f}, {:.2f}, {:.2f}], "
                                "\"early_b_vs_plain_paired\": [{:.3f}, {:.3f}, {:.3f}], "
                                "\"early_b_differ\": {}",
                                se.median, se.min, se.max, sv.median, sv.min, sv.max, early_differ);
            }
            const spread sk = summarize(tk), sc = summarize(tc);
            // Each round's cuBLAS batch over its ktune batch, next to each other in time: a drift
            // of the clocks over the rounds (a long GEMM heats the GPU) cancels in the ratio.
            std::vector<double> paired;
            for (std::size_t r = 0; r < tk.size(); ++r)
                paired.push_back(tc[r] / tk[r]);
            const spread sp = summarize(paired);
            fmt::print("{}, \"status\": \"{}\", \"bad\": {}, \"max_rel_vs_cublas\": {:.3g}, "
                       "\"max_rel_vs_fp64\": {:.3g}, \"cublas_rel_vs_fp64\": {:.3g}, "
                       "\"us\": [{:.2f}, {:.2f}, {:.2f}], \"cublas_us\": [{:.2f}, {:.2f}, {:.2f}], "
                       "\"tflops\": {:.1f}, \"cublas_tflops\": {:.1f}, \"vs_cublas\": {:.3f}, "
                       "\"vs_cublas_paired\": [{:.3f}, {:.3f}, {:.3f}], "
                       "\"cublas_algo\": \"{}\", \"resident_units\": {}, \"rotate\": {}{}}}\n",
                       line, bad == 0 ? "ok" : "wrong", bad, worst, ktune_exact, cublas_exact,
                       sk.median, sk.min, sk.max, sc.median, sc.min, sc.max,
                       flop / sk.median * 1e-6, flop / sc.median * 1e-6, sc.median / sk.median,
                       sp.median, sp.min, sp.max, cublas_algo, k.resident_units(), rotate,
                       early_fields);
        } catch (const error& e) {
            std::string msg = e.what();
            std::replace(msg.begin(), msg.end(), '"', '\'');
            std::replace(msg.begin(), msg.end(), '\n', ' ');
            fmt::print("{}, \"status\": \"{}\", \"why\": \"{}\"}}\n", line, to_string(e.kind()),
                       msg.substr(0, 2000));
        }
        std::fflush(stdout);
    }
}

// Kernel Tuner's cache format (docs/formats.md#recorded-spaces) for the template's space.
void brute(const std::string& shape, const std::filesystem::path& file) {
    const problem p = parse_problem(shape, "bf16", "tn");
    // Unsplit configs of clusters sharing A: the recorded spaces' keys have neither (key_of).
    std::vector<sm90_config> configs = sm90_configs(p, device_here());
    std::erase_if(configs, [](const sm90_config& c) {
        return c.splits != 1 || c.cluster_b != 0 || c.swap_ab != 0;
    });
    int dev = 0;
    cudaDeviceProp prop{};
    KTUNE_CUDA_CALL(cudaGetDevice(&dev));
    KTUNE_CUDA_CALL(cudaGetDeviceProperties(&prop, dev));
    // Compile every distinct source first, on every core (configs that differ only in the
    // raster group share one), so the loop below finds them in the cubin cache.
    const auto t0 = std::chrono::steady_clock::now();
    {
        // Compile servers (ktune-worker processes): NVRTC serialises much of its work inside one
        // process (docs/perf/tune.md).
        compile::compile_pool_options po;
        po.mode = compile::compile_mode::processes;
        compile::compile_pool pool(po, compile::cubin_cache(compile::cubin_cache::default_dir()));
        std::vector<std::future<compile::compile_result>> jobs;
        std::vector<std::string> seen;
        for (const auto& c : configs) {
            std::string src = sm90_source(c);
            if (std::find(seen.begin(), seen.end(), src) != seen.end()) continue;
            seen.push_back(src);
            jobs.push_back(pool.submit({std::move(src), sm90_kernel_name, "sm_90a", {}}));
        }
        int failed = 0;
        for (auto& j : jobs)
            failed += j.get().ok ? 0 : 1;
        fmt::print(stderr, "brute {}: {} configs, {} sources compiled ({} failed) in {:.1f} s\n",
                   shape, configs.size(), jobs.size(), failed,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    operands ops(p);
    auto& [ha, hb, a, b, d_ref, d, bias, rng, elems_d] = ops;
    cuda_stream st;
    cuda_event e0, e1;
    session cublas(session_options{std::filesystem::temp_directory_path() / "ktune_brute_none.json",
                                   std::size_t{32} << 20});
    cublas.gemm(p, a.data(), b.data(), d_ref.data(), st.get());
    KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
    std::vector<std::uint16_t> ref(elems_d), got(elems_d);
    KTUNE_CUDA_CALL(cudaMemcpy(ref.data(), d_ref.data(), elems_d * 2, cudaMemcpyDeviceToHost));
    std::vector<std::size_t> sampled;
    for (int i = 0; i < 4096; ++i)
        sampled.push_back(rng() % elems_d);
    nlohmann::json cache = nlohmann::json::object();
    int ok = 0;
    for (std::size_t i = 0; i < configs.size(); ++i) {
        const sm90_config& c = configs[i];
        nlohmann::json e{{"bn", c.bn},
                         {"stages", c.stages},
                         {"consumers", c.consumers},
                         {"group", c.group},
                         {"cluster", c.cluster},
                         {"epi_parts", c.epi_parts},
                         {"tma_store", c.tma_store}};
        try {
            const auto tc = std::chrono::steady_clock::now();
            const sm90_kernel k(c);
            e["compile_time"] =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tc)
                    .count();
            const auto run = [&] { k.run(p, a.data(), b.data(), d.data(), st.get()); };
            KTUNE_CUDA_CALL(cudaMemsetAsync(d.data(), 0xff, elems_d * 2, st.get()));
            run();
            KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
            KTUNE_CUDA_CALL(cudaMemcpy(got.data(), d.data(), elems_d * 2, cudaMemcpyDeviceToHost));
            int bad = 0;
            for (const std::size_t q : sampled) {
                const double r = from_bf16(ref[q]), g = from_bf16(got[q]);
                if (!(std::abs(g - r) <= 0.02 * std::max(std::abs(r), 1.0))) ++bad;
            }
            if (bad > 0) {
                e["time"] = "RuntimeFailedConfig";
                e["ktune_status"] = fmt::format("wrong_result: {} of 4096 sampled elements", bad);
            } else {
                run();
                run();
                std::vector<double> batches;
                for (int r = 0; r < 5; ++r)
                    batches.push_back(time_batch(run, st.get(), e0.get(), e1.get(), 5) / 1000.0);
                e["times"] = batches;
                std::sort(batches.begin(), batches.end());
                e["time"] = batches[2];
                ++ok;
            }
        } catch (const error& err) {
            e["time"] =
                err.kind() == error_kind::nvrtc ? "CompilationFailedConfig" : "RuntimeFailedConfig";
            e["ktune_status"] = err.what();
            (void)cudaGetLastError();
        }
        std::string key = key_of(c);
        cache[key] = std::move(e);
        if ((i + 1) % 500 == 0)
            fmt::print(stderr, "brute {}: {} of {} measured\n", shape, i + 1, configs.size());
    }
    // tune_params: every knob's values over the grid (the rules' gaps read as absent configs).
    const auto values = [](auto field) {
        std::vector<int> v;
        for (const auto& c : sm90_grid())
            if (std::find(v.begin(), v.end(), field(c)) == v.end()) v.push_back(field(c));
        return v;
    };
    nlohmann::json out{
        {"device_name", prop.name},
        {"kernel_name", "gemm_sm90_bf16"},
        {"problem_size", {p.m, p.n, p.k}},
        {"tune_params_keys",
         {"bn", "stages", "consumers", "group", "cluster", "epi_parts", "tma_store"}},
        {"tune_params",
         {{"bn", values([](const sm90_config& c) { return c.bn; })},
          {"stages", values([](const sm90_config& c) { return c.stages; })},
          {"consumers", values([](const sm90_config& c) { return c.consumers; })},
          {"group", values([](const sm90_config& c) { return c.group; })},
          {"cluster", values([](const sm90_config& c) { return c.cluster; })},
          {"epi_parts", values([](const sm90_config& c) { return c.epi_parts; })},
          {"tma_store", values([](const sm90_config& c) { return c.tma_store; })}}},
        {"objective", "time"},
        {"ktune",
         {{"what", "gemm_sm90"},
          {"problem", describe(p)},
          {"flops", 2.0 * double(p.m) * double(p.n) * double(p.k)},
          {"protocol", "back to back: 2 warm-up launches, 5 batches of 5 launches between two "
                       "events, the median batch; checked against cuBLAS at 4096 sampled "
                       "elements"}}},
        {"cache", std::move(cache)}};
    std::ofstream(file) << out.dump(1) << "\n";
    fmt::print("{{\"schema\": \"ktune.bench_sm90_brute\", \"shape\": \"{}\", \"configs\": {}, "
               "\"ok\": {}, \"seconds\": {:.1f}, \"file\": \"{}\"}}\n",
               shape, configs.size(), ok,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
               file.string());
}

// The read roof of a decode GEMM's weights at their size (docs/perf/gemm.md#decode-read-roof):
// kernels that only read S bytes (16-byte streaming loads, U in flight a thread, grid-stride
// over B blocks of 256 a SM), timed as the decode GEMMs are: batches of 10 launches over 8
// copies captured in a CUDA graph, 15 rounds after warm-up, each launch with programmatic
// stream serialization and a griddepcontrol.wait before its loads (the template's launch). The
// best of U in {4, 8, 16} x B in {2, 4, 8}: what a kernel that reads its weights once, and does
// nothing else, takes at that size, beside the copy roof.
const char* const read_roof_source = R"(
template <int U>
__device__ __forceinline__ void read_all(const uint4* __restrict__ src, long long n16,
                                         unsigned* out) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    unsigned acc = 0;
    const long long step = (long long)gridDim.x * U * blockDim.x;
    for (long long base = (long long)blockIdx.x * U * blockDim.x + threadIdx.x; base < n16;
         base += step) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const long long i = base + (long long)k * blockDim.x;
            v[k] = i < n16 ? __ldcs(src + i) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int k = 0; k < U; ++k)
            acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    }
    if (acc == 0x9e3779b9u) out[0] = acc; // keeps the loads; never true for the zeroed input
}
extern "C" __global__ void __launch_bounds__(256) ktune_read_u4(const uint4* s, long long n,
                                                                unsigned* o) { read_all<4>(s, n, o); }
extern "C" __global__ void __launch_bounds__(256) ktune_read_u8(const uint4* s, long long n,
                                                                unsigned* o) { read_all<8>(s, n, o); }
extern "C" __global__ void __launch_bounds__(256) ktune_read_u16(const uint4* s, long long n,
                                                                 unsigned* o) { read_all<16>(s, n, o); }
)";

void read_roof(const std::vector<double>& sizes_mib) {
    const sm90_device here = device_here();
    const measure::copy_bandwidth copy = measure::measure_copy_bandwidth();
    std::vector<std::pair<int, own_module>> kernels;
    for (const int u : {4, 8, 16})
        kernels.emplace_back(u,
                             own_module(read_roof_source, fmt::format("ktune_read_u{}", u).c_str(),
                                        "sm_90a", 0, "read roof"));
    auto launch_ex = ktune::detail::need_driver_fn<decltype(&cuLaunchKernelEx)>(
        "bench_sm90 --read-roof", "cuLaunchKernelEx");
    device_buffer out(16);
    cuda_stream st;
    cuda_event e0, e1;
    for (const double mib : sizes_mib) {
        const std::size_t bytes = std::size_t(mib * 1048576.0) & ~std::size_t{15};
        std::vector<device_buffer> copies;
        for (int i = 0; i < 8; ++i) {
            copies.emplace_back(bytes);
            KTUNE_CUDA_CALL(cudaMemset(copies.back().data(), 0, bytes));
        }
        long long n16 = static_cast<long long>(bytes / 16);
        void* out_p = out.data();
        std::string forms, best_form;
        spread best{1e30, 0, 0};
        for (const auto& [u, mod] : kernels)
            for (const int per_sm : {2, 4, 8}) {
                const CUfunction fn = mod.function();
                const auto one = [&](int i) {
                    const void* src = copies[std::size_t(i % 8)].data();
                    void* args[] = {const_cast<void**>(&src), &n16, &out_p};
                    CUlaunchAttribute attr{};
                    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
                    attr.value.programmaticStreamSerializationAllowed = 1;
                    CUlaunchConfig l{};
                    l.gridDimX = static_cast<unsigned>(per_sm * here.sms);
                    l.gridDimY = l.gridDimZ = 1;
                    l.blockDimX = 256;
                    l.blockDimY = l.blockDimZ = 1;
                    l.hStream = reinterpret_cast<CUstream>(st.get());
                    l.attrs = &attr;
                    l.numAttrs = 1;
                    ktune::detail::check_driver(launch_ex(&l, fn, args, nullptr), "bench_sm90",
                                                "cuLaunchKernelEx", "read roof");
                };
                const batch_graph g(one, st.get(), 10);
                const auto batch = [&] {
                    return time_batch([&] { KTUNE_CUDA_CALL(cudaGraphLaunch(g.exec, st.get())); },
                                      st.get(), e0.get(), e1.get(), 1) /
                           10.0;
                };
                for (int i = 0; i < 3; ++i)
                    batch();
                std::vector<double> t;
                for (int r = 0; r < 15; ++r)
                    t.push_back(batch());
                const spread s = summarize(t);
                const std::string name = fmt::format("u{} b{}", u, per_sm);
                forms += fmt::format("{}\"{}\": {:.2f}", forms.empty() ? "" : ", ", name, s.median);
                if (s.median < best.median) {
                    best = s;
                    best_form = name;
                }
            }
        const double gbs = double(bytes) / (best.median * 1e-6) / 1e9;
        fmt::print("{{\"schema\": \"ktune.bench_sm90_read_roof\", \"mib\": {}, \"us\": [{:.2f}, "
                   "{:.2f}, {:.2f}], \"form\": \"{}\", \"read_gbs\": {:.0f}, \"copy_gbs\": {:.0f}, "
                   "\"read_over_copy\": {:.3f}, \"forms_us\": {{{}}}}}\n",
                   mib, best.median, best.min, best.max, best_form, gbs, copy.median_gbs,
                   gbs / copy.median_gbs, forms);
        std::fflush(stdout);
    }
}

// ktune's GEMV (src/gemm/gemv.hpp) beside cuBLAS at decode shapes (docs/perf/gemm.md#gemv-decode),
// every config of its grid: what a kernel that streams the weights as the read roof does, with
// the dot products on the way, reaches where the template's tensor-core tiles trail cuBLAS.
void bench_gemv(const std::string& shape, const std::filesystem::path& cache, int rotate) {
    const problem p = parse_problem(shape, "bf16", "tn");
    operands ops(p);
    auto& [ha, hb, a, b, d_ref, d, bias, rng, elems_d] = ops;
    const rotation rot(a, b, rotate);
    cuda_stream st;
    cuda_event e0, e1;
    session_options so;
    so.cache_file = cache;
    session cublas(so);
    cublas.gemm(p, a.data(), b.data(), d_ref.data(), st.get());
    KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
    std::vector<std::uint16_t> ref(elems_d), got(elems_d);
    KTUNE_CUDA_CALL(cudaMemcpy(ref.data(), d_ref.data(), elems_d * 2, cudaMemcpyDeviceToHost));
    double cublas_exact = 0;
    positions samples;
    for (int i = 0; i < 64; ++i)
        samples.emplace_back(std::int64_t(rng() % p.m), std::int64_t(rng() % p.n));
    for (auto [m, n] : samples)
        cublas_exact =
            std::max(cublas_exact, rel_off(from_bf16(ref[m + n * p.m]), exact_d(p, ops, m, n)));
    const auto dev = gemv_device_here();
    if (!dev) throw error(error_kind::no_device, "bench_sm90 --gemv needs an sm_80 or later GPU");
    const std::string cublas_algo = describe(cublas.algorithm(p));
    const double bytes = double(p.n) * double(p.k) * 2.0;
    for (const gemv_config& c : gemv_ranked(p, *dev)) {
        const gemv_kernel k(c, static_cast<int>(p.m), kernel_form_of(p));
        const auto launch = [&](const void* A, const void* B) {
            k.run(p, A, B, d.data(), st.get());
        };
        KTUNE_CUDA_CALL(cudaMemsetAsync(d.data(), 0xff, elems_d * 2, st.get()));
        launch(a.data(), b.data());
        KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
        KTUNE_CUDA_CALL(cudaMemcpy(got.data(), d.data(), elems_d * 2, cudaMemcpyDeviceToHost));
        const auto [bad, worst, gemv_exact] = check_against(p, ops, got, ref, samples, 0);
        const batch_graph gk([&](int i) { launch(rot.a_set(i), rot.b_set(i)); }, st.get(), 10);
        const batch_graph gc(
            [&](int i) { cublas.gemm(p, rot.a_set(i), rot.b_set(i), d_ref.data(), st.get()); },
            st.get(), 10);
        const auto batch = [&](const batch_graph& g) {
            return time_batch([&] { KTUNE_CUDA_CALL(cudaGraphLaunch(g.exec, st.get())); }, st.get(),
                              e0.get(), e1.get(), 1) /
                   10.0;
        };
        for (int i = 0; i < 3; ++i) {
            batch(gk);
            batch(gc);
        }
        std::vector<double> tk, tc, paired;
        for (int r = 0; r < 15; ++r) {
            tk.push_back(batch(gk));
            tc.push_back(batch(gc));
            paired.push_back(tc.back() / tk.back());
        }
        const spread sk = summarize(tk), sc = summarize(tc), sp = summarize(paired);
        fmt::print(R"({{"schema": "ktune.bench_sm90_gemv", "shape": "{}", "form": "{}", )"
                   R"("status": "{}", "bad": {}, "max_rel_vs_cublas": {:.3g}, )"
                   R"("max_rel_vs_fp64": {:.3g}, "cublas_rel_vs_fp64": {:.3g}, )"
                   R"("us": [{:.2f}, {:.2f}, {:.2f}], "cublas_us": [{:.2f}, {:.2f}, {:.2f}], )"
                   R"("weights_gbs": {:.0f}, "vs_cublas_paired": [{:.3f}, {:.3f}, {:.3f}], )"
                   R"("cublas_algo": "{}", "rotate": {}}})"
                   "\n",
                   shape, gemv_name(c), bad == 0 ? "ok" : "wrong", bad, worst, gemv_exact,
                   cublas_exact, sk.median, sk.min, sk.max, sc.median, sc.min, sc.max,
                   bytes / (sk.median * 1e-6) / 1e9, sp.median, sp.min, sp.max, cublas_algo,
                   rotate);
        std::fflush(stdout);
    }
}

} // namespace

int main(int argc, char** argv) try {
    std::filesystem::path cache =
        std::filesystem::temp_directory_path() / "ktune_bench_sm90_none.json";
    std::vector<sm90_config> configs = {{256, 4, 2, 8, 1},  {256, 3, 2, 16, 1}, {256, 4, 2, 8, 2},
                                        {256, 3, 2, 16, 2}, {128, 6, 2, 8, 2},  {192, 4, 2, 8, 2}};
    std::vector<std::string> shapes;
    std::filesystem::path brute_file;
    int prior = 0, rotate = 1;
    bool early_b = false, gemv = false;
    std::vector<double> read_sizes;
    std::string epi = "none";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--cache" && i + 1 < argc)
            cache = argv[++i];
        else if (arg == "--brute" && i + 1 < argc)
            brute_file = argv[++i];
        else if (arg == "--prior" && i + 1 < argc)
            prior = std::stoi(argv[++i]);
        else if (arg == "--rotate" && i + 1 < argc)
            rotate = std::max(1, std::stoi(argv[++i]));
        else if (arg == "--early-b")
            early_b = true;
        else if (arg == "--gemv")
            gemv = true;
        else if (arg == "--read-roof" && i + 1 < argc) {
            std::stringstream ss(argv[++i]);
            std::string item;
            while (std::getline(ss, item, ','))
                read_sizes.push_back(std::stod(item));
        } else if (arg == "--epilogue" && i + 1 < argc)
            epi = argv[++i];
        else if (arg == "--configs" && i + 1 < argc)
            configs = parse_configs(argv[++i]);
        else
            shapes.push_back(arg);
    }
    if (!read_sizes.empty()) {
        read_roof(read_sizes);
        return 0;
    }
    if (shapes.empty()) shapes = {"4096x4096x4096"};
    if (gemv) {
        for (const auto& s : shapes)
            bench_gemv(s, cache, rotate);
        return 0;
    }
    if (prior > 0) {
        // The cost model's picks (sm90_space.hpp) on an H100 (132 SMs, 227 KiB, its DRAM), as
        // recorded-space keys: what a tune measures first. No GPU needed.
        for (const auto& s : shapes) {
            const problem p = parse_problem(s, "bf16", "tn");
            const sm90_device h100;
            const auto picks = sm90_picks(sm90_ranked(p, h100), p, h100, std::size_t(prior));
            std::string keys;
            for (std::size_t i = 0; i < picks.size(); ++i)
                keys += fmt::format("{}\"{}\"", i ? ", " : "", key_of(picks[i]));
            fmt::print("{{\"schema\": \"ktune.bench_sm90_prior\", \"shape\": \"{}\", "
                       "\"picks\": [{}]}}\n",
                       s, keys);
        }
        return 0;
    }
    if (!brute_file.empty()) {
        for (const auto& s : shapes)
            brute(s, shapes.size() == 1 ? brute_file
                                        : brute_file.parent_path() /
                                              (brute_file.stem().string() + "_" + s + ".json"));
        return 0;
    }
    for (const auto& s : shapes)
        bench_shape(s, configs, cache, rotate, epi, early_b);
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "bench_sm90: {}\n", e.what());
    return 2;
}
