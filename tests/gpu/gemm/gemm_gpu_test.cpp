// ktune tune gemm on a real GPU: every candidate passes the reference check or gets a status,
// cuBLAS's default is never beaten by a tie, the winner's cache entry drives the run-time call,
// and a stale entry falls back to the heuristic; the padded-K form copies exactly.
#include "catch.hpp"

#include "gemm/gemv.hpp"
#include "gemm/lt_runner.hpp"
#include "gemm/mma.hpp"
#include "gemm/pad.hpp"
#include "gemm/reference.hpp"
#include "gemm/sm90.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/gemm/cache.hpp"
#include "ktune/gemm/gemm.hpp"
#include "ktune/gemm/tune.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <unistd.h>

using namespace ktune;
using namespace ktune::gemm;

namespace {

std::filesystem::path temp_cache() {
    auto p = std::filesystem::temp_directory_path() /
             ("ktune_gpu_gemm_" + std::to_string(getpid()) + ".json");
    std::filesystem::remove(p);
    return p;
}

device_buffer upload(dtype t, std::uint64_t seed, std::size_t count) {
    const std::size_t w = input_bytes(t);
    std::vector<std::uint8_t> host(count * w);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint16_t bits = gemm::detail::encode(t, gemm::detail::input_value(seed, i));
        std::memcpy(&host[i * w], &bits, w);
    }
    device_buffer d(host.size());
    KTUNE_CUDA_CALL(cudaMemcpy(d.data(), host.data(), host.size(), cudaMemcpyHostToDevice));
    return d;
}

// Checks D (column-major, D's type) against alpha times the fp64 reference at spread positions
// (alpha a power of two: the scaling is exact in bf16 and fp16).
void check_d(const problem& p, const void* d, float alpha = 1.0f) {
    const gemm::detail::input_seeds seeds;
    std::vector<std::uint16_t> host(std::size_t(p.m * p.n));
    KTUNE_CUDA_CALL(cudaMemcpy(host.data(), d, host.size() * 2, cudaMemcpyDeviceToHost));
    for (const auto& [i, j] : gemm::detail::check_positions(p, 64)) {
        const auto ref = gemm::detail::reference_at(p, seeds, i, j);
        const double got = gemm::detail::decode_output(
            p.type == dtype::fp16 ? dtype::fp16 : dtype::bf16, host[std::size_t(i + j * p.m)]);
        CHECK(std::fabs(got / alpha - ref.value) <= gemm::detail::tolerance(p, ref));
    }
}

// A, B (the reference's inputs), D and, where p has an epilogue, the bias (M values of D's
// type) of p on the GPU.
struct operands {
    device_buffer a, b, d, bias;
};
operands operands_for(const problem& p) {
    const gemm::detail::input_seeds seeds;
    operands o{upload(p.type, seeds.a, std::size_t(p.m * p.k)),
               upload(p.type, seeds.b, std::size_t(p.k * p.n)),
               device_buffer(std::size_t(p.m * p.n) * 2),
               p.epi == epilogue::none ? device_buffer()
                                       : upload(p.type == dtype::fp16 ? dtype::fp16 : dtype::bf16,
                                                seeds.bias, std::size_t(p.m))};
    // The uploads may still be in flight (pageable cudaMemcpy); the callers' streams are
    // non-blocking and would not wait for them.
    KTUNE_CUDA_CALL(cudaDeviceSynchronize());
    return o;
}

// `enqueue(operands, stream)`'s GEMM of p captured in a CUDA graph, replayed twice into a D that
// starts as NaN.
template <class Enqueue>
void check_captured(const problem& p, const Enqueue& enqueue) {
    const operands o = operands_for(p);
    const auto& d = o.d;
    cuda_stream st;
    cudaGraph_t graph = nullptr;
    KTUNE_CUDA_CALL(cudaStreamBeginCapture(st.get(), cudaStreamCaptureModeGlobal));
    enqueue(o, st.get());
    KTUNE_CUDA_CALL(cudaStreamEndCapture(st.get(), &graph));
    cudaGraphExec_t exec = nullptr;
    KTUNE_CUDA_CALL(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 2; ++replay) {
        KTUNE_CUDA_CALL(cudaMemsetAsync(d.data(), 0xff, std::size_t(p.m * p.n) * 2, st.get()));
        KTUNE_CUDA_CALL(cudaGraphLaunch(exec, st.get()));
        KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
        check_d(p, d.data());
    }
    KTUNE_CUDA_CALL(cudaGraphExecDestroy(exec));
    KTUNE_CUDA_CALL(cudaGraphDestroy(graph));
}

// The session's call of p, captured and replayed.
void check_session_graph(session& s, const problem& p) {
    check_captured(p, [&](const operands& o, cudaStream_t st) {
        s.gemm(p, o.a.data(), o.b.data(), o.d.data(), st, o.bias.data());
    });
}

// Runs p through a session (D = alpha op(A) op(B)) and checks D against the fp64 reference at
// spread positions.
void check_session(session& s, const problem& p, float alpha = 1.0f) {
    auto [a, b, d, bias] = operands_for(p);
    cuda_stream st;
    s.gemm(p, a.data(), b.data(), d.data(), st.get(), bias.data(), alpha);
    KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
    check_d(p, d.data(), alpha);
}

// `cfg`, measured as `t` on p, stored as a tune's winner: the session launches it, eagerly (with
// alpha 2 where there is no epilogue: D / alpha is checked) and captured in a graph.
void check_as_cached_winner(const problem& p, const algo_config& cfg,
                            const gemm::detail::timing& t) {
    tune_result r;
    r.prob = p;
    r.cublaslt_version = 0;
    r.winner.algo = cfg;
    r.winner.median_us = t.median_us;
    r.winner.ci_lo_us = t.ci_lo_us;
    r.winner.ci_hi_us = t.ci_hi_us;
    r.winner.samples = t.samples_us.size();
    const auto file = temp_cache();
    cache::store(file, to_cache_entry(r, cache::environment::current(), {}));
    session s({file, std::size_t{32} << 20});
    CHECK(s.algorithm(p) == cfg);
    check_session(s, p);
    if (p.epi == epilogue::none) check_session(s, p, 2.0f);
    check_session_graph(s, p);
    std::filesystem::remove(file);
}

// A config of one of ktune's kernels, and a problem to run it on (its type and epilogue).
algo_config sm90(gemm::sm90_params c) {
    algo_config a;
    a.provider = provider::ktune_sm90;
    a.sm90 = c;
    return a;
}
algo_config mma(gemm::mma_params c) {
    algo_config a;
    a.provider = provider::ktune_mma;
    a.mma = c;
    return a;
}
algo_config gemv(gemm::gemv_params c) {
    algo_config a;
    a.provider = provider::ktune_gemv;
    a.gemv = c;
    return a;
}
struct form_case {
    const char* shape;
    algo_config cfg;
    const char* type = "bf16";
    const char* epi = "none";
};

// Each case's config through the runner's fp64-sampled check, then as a cached winner.
void check_cases(std::initializer_list<form_case> cases) {
    for (const auto& [shape, cfg, type, epi] : cases) {
        const problem p = parse_problem(shape, type, "tn", epi);
        INFO(describe(p) << " " << describe(cfg));
        gemm::detail::lt_runner runner(p, std::size_t{32} << 20, gemm_policy());
        const gemm::detail::timing t = runner.run(cfg);
        INFO(t.message);
        REQUIRE(t.status == ktune::tune::eval_status::ok);
        CHECK(t.max_error_ratio <= 1.0);
        CHECK(t.median_us > 0);
        check_as_cached_winner(p, cfg, t);
    }
}

tune_options quick() {
    tune_options o;
    o.strategy = "random";
    o.budget = 12;
    o.heuristic_count = 6;
    return o;
}

} // namespace

TEST_CASE("a bf16 tune measures checked candidates and never loses to the default") {
    for (const char* lay : {"tn", "nn"}) {
        const problem p = parse_problem("64x2048x1024", "bf16", lay);
        const tune_result r = gemm::tune(p, quick());
        INFO(format_text(r, 0, ""));
        REQUIRE(r.default_pick.ok());
        REQUIRE(r.winner.ok());
        CHECK(r.space.candidates > r.space.algo_ids);
        CHECK(r.evaluated.size() >= 6);
        for (const auto& c : r.evaluated)
            if (c.ok()) CHECK(c.max_error_ratio <= 1.0);
        if (r.replaces_default) CHECK(r.speedup > 1.0);
        CHECK(r.tune_seconds < 30);
    }
}

TEST_CASE("fp8 and a bias epilogue tune and pass the reference check") {
    for (const auto& [shape, type, epi] : {std::tuple{"128x1024x1024", "fp8", "none"},
                                           std::tuple{"64x1024x1024", "bf16", "gelu_bias"}}) {
        const tune_result r = gemm::tune(parse_problem(shape, type, "tn", epi), quick());
        INFO(format_text(r, 0, ""));
        CHECK(r.default_pick.ok());
        CHECK(r.winner.ok());
    }
}

TEST_CASE("the tuned entry drives the run-time call; a stale one falls back to the heuristic") {
    const problem p = parse_problem("32x1024x2048", "bf16", "tn");
    const tune_result r = gemm::tune(p, quick());
    REQUIRE(r.winner.ok());
    const auto file = temp_cache();
    const auto env = cache::environment::current();
    cache::store(file, to_cache_entry(r, env, {}));
    {
        session s({file, std::size_t{32} << 20});
        CHECK(s.source(p) == algo_source::cache);
        CHECK(s.algorithm(p) == r.winner.algo);
        INFO("cached winner: " << describe(s.algorithm(p)));
        check_session(s, p);
    }
    // An entry whose attributes this library rejects (a tile id that does not exist; where
    // ktune's own kernel won, a tile width its rules refuse).
    auto stale = to_cache_entry(r, env, {});
    stale.cfg.set(r.winner.algo.provider == provider::cublaslt ? "tile" : "bn",
                  std::int64_t{99999});
    std::filesystem::remove(file);
    cache::store(file, stale);
    {
        session s({file, std::size_t{32} << 20});
        CHECK(s.source(p) == algo_source::heuristic);
        INFO("heuristic's pick: " << describe(s.algorithm(p)));
        check_session(s, p);
    }
    std::filesystem::remove(file);
}

TEST_CASE("an odd K tunes the padded form, which passes the check and drives the run-time call") {
    // docs/perf/gemm.md#padded-k: tn pads both operands per column, nn copies A whole (K is its
    // column count) and B per column; the bias epilogue runs on the padded descriptors too.
    for (const auto& [shape, type, lay, epi] :
         {std::tuple{"64x1024x1027", "bf16", "tn", "none"},
          std::tuple{"48x512x1021", "fp16", "nn", "none"},
          std::tuple{"32x256x9001", "bf16", "tn", "none"}, // K over two of the copy's chunks
          std::tuple{"64x1024x1021", "bf16", "tn", "gelu_bias"}}) {
        const problem p = parse_problem(shape, type, lay, epi);
        const tune_result r = gemm::tune(p, quick());
        INFO(format_text(r, 0, ""));
        REQUIRE(r.default_pick.ok());
        CHECK(r.default_pick.algo.pad_k == 0);
        const candidate_result* pad = nullptr;
        for (const auto& c : r.evaluated)
            if (c.algo.pad_k && c.ok() && (!pad || c.median_us < pad->median_us)) pad = &c;
        REQUIRE(pad != nullptr); // the padded form ran and passed the reference check
        CHECK(pad->max_error_ratio <= 1.0);
        if (p.epi != epilogue::none) continue;
        // The padded candidate as the cached winner: the session pads and stays correct, twice
        // (the second call reuses the plan's zeroed buffers).
        tune_result as_winner = r;
        as_winner.winner = *pad;
        const auto file = temp_cache();
        cache::store(file, to_cache_entry(as_winner, cache::environment::current(), {}));
        session s({file, std::size_t{32} << 20});
        CHECK(s.source(p) == algo_source::cache);
        CHECK(s.algorithm(p).pad_k == 1);
        check_session(s, p);
        check_session(s, p);
        std::filesystem::remove(file);
        // A fresh session whose padded buffers were never written: the first call that touches
        // them is captured, and the replays must write the padding's zeros themselves.
        cache::store(file, to_cache_entry(as_winner, cache::environment::current(), {}));
        session captured({file, std::size_t{32} << 20});
        REQUIRE(captured.algorithm(p).pad_k == 1);
        check_session_graph(captured, p);
        std::filesystem::remove(file);
    }
}

TEST_CASE("the padded copies write every element and zeros past K, kernel and driver forms") {
    // docs/perf/gemm.md#padded-k. K over three of the kernel's chunks; the sources start one
    // element past a 16-byte boundary (a sub-tensor's pointer), the destinations hold 0xff.
    for (const char* lay : {"tn", "nn"})
        for (const auto form : {gemm::detail::pad_copy::kernel, gemm::detail::pad_copy::driver}) {
            const problem p = parse_problem("40x24x9001", "bf16", lay);
            const std::int64_t k8 = gemm::detail::padded(p).k;
            INFO(lay << (form == gemm::detail::pad_copy::kernel ? " kernel" : " driver"));
            // Stored column-major: A is K x M (tn) or M x K (nn); B is K x N either way.
            struct stored {
                std::int64_t rows, cols;
                bool k_leading;
            };
            const stored sa = p.transa() ? stored{p.k, p.m, true} : stored{p.m, p.k, false};
            const stored sb{p.k, p.n, true};
            const auto host_of = [](const stored& s, std::uint16_t salt) {
                std::vector<std::uint16_t> h(std::size_t(s.rows * s.cols));
                for (std::size_t i = 0; i < h.size(); ++i)
                    h[i] = static_cast<std::uint16_t>((i * 2654435761u >> 7) ^ salt) | 1u;
                return h;
            };
            const auto ha = host_of(sa, 0x1234), hb = host_of(sb, 0x4321);
            device_buffer da((ha.size() + 8) * 2), db((hb.size() + 8) * 2);
            auto* a_src = static_cast<std::uint16_t*>(da.data()) + 1;
            auto* b_src = static_cast<std::uint16_t*>(db.data()) + 1;
            KTUNE_CUDA_CALL(cudaMemcpy(a_src, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
            KTUNE_CUDA_CALL(cudaMemcpy(b_src, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
            const auto sz = gemm::detail::padded_bytes(p);
            device_buffer a_pad(sz.a), b_pad(sz.b);
            KTUNE_CUDA_CALL(cudaMemset(a_pad.data(), 0xff, sz.a));
            KTUNE_CUDA_CALL(cudaMemset(b_pad.data(), 0xff, sz.b));
            KTUNE_CUDA_CALL(cudaDeviceSynchronize());
            cuda_stream st;
            REQUIRE(gemm::detail::enqueue_pad(p, a_src, b_src, a_pad.data(), b_pad.data(), st.get(),
                                              form) == cudaSuccess);
            KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
            const auto expect = [&](const stored& s, const std::vector<std::uint16_t>& h,
                                    const device_buffer& pad) {
                std::vector<std::uint16_t> got(pad.size() / 2);
                KTUNE_CUDA_CALL(
                    cudaMemcpy(got.data(), pad.data(), pad.size(), cudaMemcpyDeviceToHost));
                const std::int64_t rows = s.k_leading ? k8 : s.rows;
                const std::int64_t cols = s.k_leading ? s.cols : k8;
                REQUIRE(got.size() == std::size_t(rows * cols));
                std::size_t wrong = 0;
                for (std::int64_t c = 0; c < cols; ++c)
                    for (std::int64_t r = 0; r < rows; ++r) {
                        const bool inside = r < s.rows && c < s.cols;
                        const std::uint16_t want = inside ? h[std::size_t(c * s.rows + r)] : 0;
                        wrong += got[std::size_t(c * rows + r)] != want;
                    }
                CHECK(wrong == 0);
            };
            expect(sa, ha, a_pad);
            expect(sb, hb, b_pad);
        }
}

TEST_CASE("ktune's Hopper template: configs pass the check on ragged shapes and drive the run "
          "time") {
    // docs/perf/gemm.md#hopper-template. Partial tiles in both directions, an odd M (D's rows
    // stored element by element), K not a multiple of the 64-wide slab, clusters, one consumer,
    // the deferred epilogue, a single tile, and the TMA store clipping partial tiles.
    int dev = 0, major = 0, minor = 0;
    KTUNE_CUDA_CALL(cudaGetDevice(&dev));
    KTUNE_CUDA_CALL(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    KTUNE_CUDA_CALL(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    if (major != 9 || minor != 0) {
        WARN("skipped: ktune's Hopper template needs an sm_90 GPU, this is sm_" << major << minor);
        return;
    }
    check_cases(
        {form_case{"200x300x136", sm90({256, 4, 2, 8, 1, 0})},
         form_case{"33x1000x264", sm90({128, 4, 2, 4, 1, 4})},
         form_case{"1000x777x520", sm90({192, 3, 2, 16, 2, 2})},
         form_case{"512x2048x1024", sm90({64, 6, 1, 1, 1, 8})},
         form_case{"1x64x8", sm90({64, 2, 1, 1, 2, 0})},
         form_case{"2048x1024x4096", sm90({240, 4, 2, 8, 1, 4})},
         form_case{"200x300x136", sm90({256, 3, 2, 8, 1, 0, 1})},
         form_case{"1000x777x520", sm90({128, 4, 1, 2, 2, 0, 1})},
         // Split-K (docs/perf/gemm.md#hopper-split-k): slices of
         // one slab, of uneven counts, several column tiles, and
         // repeated calls (each tile's counter back at 0).
         form_case{"1x4096x4096", sm90({8, 6, 1, 8, 1, 0, 0, 4})},
         form_case{"7x1000x520", sm90({8, 4, 1, 1, 1, 0, 0, 3})},
         form_case{"33x777x200", sm90({16, 4, 1, 8, 1, 0, 0, 4})},
         form_case{"64x2048x4096", sm90({64, 6, 2, 8, 1, 0, 0, 8})},
         form_case{"16x4096x136", sm90({16, 4, 2, 2, 1, 0, 0, 3})},
         // Clusters sharing B (docs/perf/gemm.md#cluster-b): an odd count of column
         // tiles (the last cluster's second block past M) in the direct, deferred and
         // TMA-store epilogues, a single column tile, partial row tiles.
         form_case{"33x777x200", sm90({16, 4, 1, 8, 2, 0, 0, 1, 1})},
         form_case{"1x64x8", sm90({8, 2, 1, 1, 2, 0, 0, 1, 1})},
         form_case{"150x300x136", sm90({64, 4, 1, 8, 2, 2, 0, 1, 1})},
         form_case{"328x777x520", sm90({128, 4, 2, 2, 2, 0, 1, 1, 1})},
         form_case{"48x4096x4096", sm90({16, 8, 1, 8, 2, 0, 0, 1, 1}), "fp8", "bias"},
         // Swapped (docs/perf/gemm.md#swap-ab): D's tile stored transposed, a partial
         // last weight tile, fewer tokens than the tile's rows, two consumers, one
         // token, a row's bias, fp16 and fp8.
         form_case{"64x11008x4096", sm90({96, 10, 1, 8, 1, 0, 0, 1, 0, 1})},
         form_case{"33x777x200", sm90({24, 4, 1, 8, 1, 0, 0, 1, 0, 1})},
         form_case{"100x300x136", sm90({56, 4, 2, 8, 1, 0, 0, 1, 0, 1}), "fp16"},
         form_case{"1x64x8", sm90({8, 2, 1, 8, 1, 0, 0, 1, 0, 1})},
         form_case{"7x1000x520", sm90({40, 6, 1, 8, 1, 0, 0, 1, 0, 1}), "bf16", "gelu_bias"},
         form_case{"48x4096x4096", sm90({32, 8, 1, 8, 1, 0, 0, 1, 0, 1}), "fp8", "bias"},
         // Every type and epilogue (docs/perf/gemm.md#hopper-types): fp16 (fp16 D), fp8
         // (128-element slabs: K over two and a part), in each epilogue form.
         form_case{"200x300x136", sm90({256, 3, 2, 8, 1, 0, 1}), "fp16"},
         form_case{"33x1000x264", sm90({128, 4, 2, 4, 1, 4}), "fp16", "gelu_bias"},
         form_case{"208x300x272", sm90({256, 4, 2, 8, 1, 0}), "fp8"},
         form_case{"1008x777x528", sm90({128, 4, 1, 2, 2, 0, 1}), "fp8", "relu_bias"},
         form_case{"16x4096x4096", sm90({16, 8, 1, 8, 1, 0, 0, 4}), "fp8", "bias"},
         form_case{"1000x777x520", sm90({192, 3, 2, 16, 2, 2}), "bf16", "bias"},
         form_case{"7x1000x520", sm90({8, 4, 1, 1, 1, 0, 0, 3}), "bf16", "gelu_bias"},
         form_case{"200x300x136", sm90({256, 3, 2, 8, 1, 0, 1}), "bf16", "relu_bias"}});
    // A split config's first call inside a stream capture allocates and zeroes its workspace
    // then (relaxed capture mode, a private stream: docs/perf/gemm.md#hopper-split-k), and the
    // graph's replays run on it.
    {
        const problem p = parse_problem("16x4096x4096", "bf16", "tn");
        const gemm::detail::sm90_kernel k({16, 8, 1, 8, 1, 0, 0, 8},
                                          gemm::detail::kernel_form_of(p));
        check_captured(p, [&](const operands& o, cudaStream_t st) {
            k.run(p, o.a.data(), o.b.data(), o.d.data(), st);
        });
    }
    // Early weights (docs/perf/gemm.md#early-weights): told that B is weights, the template
    // requests B before waiting for the kernel before it. A chain of two GEMMs whose second reads
    // the first's D as A, 20 times back to back from a D of NaN: the second must wait for the
    // first (its D bit for bit as without early weights); and the form captured in a graph.
    {
        const problem p = parse_problem("1x4096x4096", "bf16", "tn");
        for (const gemm::sm90_params c :
             {gemm::sm90_params{8, 16, 1, 8, 1, 0, 0, 1}, gemm::sm90_params{8, 6, 1, 8, 1, 0, 0, 4},
              gemm::sm90_params{8, 16, 1, 8, 2, 0, 0, 1, 1},
              gemm::sm90_params{32, 8, 1, 8, 1, 0, 0, 1, 0, 1}}) {
            const gemm::detail::sm90_kernel first(c, gemm::detail::kernel_form_of(p)),
                second(c, gemm::detail::kernel_form_of(p));
            const operands o = operands_for(p);
            const device_buffer w2 = upload(dtype::bf16, 77, std::size_t(p.k * p.n));
            device_buffer d2(std::size_t(p.n) * 2);
            cuda_stream st;
            std::vector<std::vector<std::uint16_t>> out;
            for (const b_operand b_is : {b_operand::written_before, b_operand::weights}) {
                for (int i = 0; i < 20; ++i) {
                    KTUNE_CUDA_CALL(
                        cudaMemsetAsync(o.d.data(), 0xff, std::size_t(p.n) * 2, st.get()));
                    first.run(p, o.a.data(), o.b.data(), o.d.data(), st.get(), 1.0f, nullptr, b_is);
                    second.run(p, o.d.data(), w2.data(), d2.data(), st.get(), 1.0f, nullptr, b_is);
                }
                KTUNE_CUDA_CALL(cudaStreamSynchronize(st.get()));
                check_d(p, o.d.data());
                out.emplace_back(std::size_t(p.n));
                KTUNE_CUDA_CALL(cudaMemcpy(out.back().data(), d2.data(), out.back().size() * 2,
                                           cudaMemcpyDeviceToHost));
            }
            CHECK(out[0] == out[1]);
            check_captured(p, [&](const operands& op, cudaStream_t s) {
                first.run(p, op.a.data(), op.b.data(), op.d.data(), s, 1.0f, nullptr,
                          b_operand::weights);
            });
        }
    }
    // A tune of a large shape measures the template's picks beside cuBLAS's.
    const problem big = parse_problem("2048x2048x2048", "bf16", "tn");
    const tune_result r = gemm::tune(big, quick());
    INFO(format_text(r, 0, ""));
    CHECK(r.space.sm90 > 1000);
    std::size_t measured = 0;
    for (const auto& c : r.evaluated)
        if (c.algo.provider == provider::ktune_sm90) {
            ++measured;
            CHECK(c.ok());
        }
    CHECK(measured >= 2);
    // A decode tune: the prior's picks split K, and pass the check.
    const tune_result dec = gemm::tune(parse_problem("8x4096x4096", "bf16", "tn"), quick());
    INFO(format_text(dec, 0, ""));
    std::size_t split = 0;
    for (const auto& c : dec.evaluated)
        if (c.algo.provider == provider::ktune_sm90 && c.algo.sm90.splits > 1) {
            ++split;
            CHECK(c.ok());
        }
    CHECK(split >= 1);
    // The correctness gate under planted bugs (docs/perf/gemm.md#hopper-faults): with every
    // template candidate faulty, each is rejected and cuBLAS keeps the win.
    for (const char* shape : {"2048x2048x2048", "8x4096x4096"}) {
        tune_options o = quick();
        o.inject_faults = 1.0;
        const tune_result f = gemm::tune(parse_problem(shape, "bf16", "tn"), o);
        INFO(shape << "\n" << format_text(f, 0, ""));
        std::size_t planted = 0;
        for (const auto& c : f.evaluated)
            if (c.algo.provider == provider::ktune_sm90) {
                ++planted;
                CHECK(!c.injected_fault.empty());
                CHECK(c.status == "wrong_result");
            }
        CHECK(planted >= 2);
        CHECK(f.winner.algo.provider == provider::cublaslt);
        CHECK(f.winner.injected_fault.empty());
    }
}

TEST_CASE("ktune's mma.sync form: configs pass the check on ragged shapes and drive the run time") {
    // docs/perf/gemm.md#mma-fallback: partial tiles both ways, an odd M (element stores), K over
    // several slabs and a partial one, one warp and sixteen, two to five stages, fp16 and the
    // epilogues; then a tune that searches the form beside cuBLAS (and the template on sm_90).
    if (!gemm::detail::mma_device_here()) {
        WARN("skipped: ktune's mma.sync GEMM needs an sm_80 or later GPU");
        return;
    }
    check_cases({form_case{"200x300x136", mma({128, 128, 32, 2, 2, 3})},
                 form_case{"33x1000x264", mma({64, 32, 32, 1, 1, 2})},
                 form_case{"1000x777x520", mma({256, 128, 64, 4, 2, 3}), "fp16", "gelu_bias"},
                 form_case{"1x4096x4096", mma({128, 32, 64, 4, 1, 5})},
                 form_case{"512x2048x1024", mma({128, 256, 32, 2, 4, 4}), "bf16", "bias"},
                 form_case{"7x1000x520", mma({64, 64, 32, 4, 4, 2}), "fp16", "relu_bias"},
                 form_case{"2048x2048x2048", mma({128, 128, 32, 2, 2, 4})}});
    // A tune with the form in the space: its picks are measured and pass the check.
    tune_options o = quick();
    o.mma_on_hopper = true;
    for (const char* shape : {"2048x2048x2048", "16x4096x4096"}) {
        const tune_result r = gemm::tune(parse_problem(shape, "bf16", "tn"), o);
        INFO(shape << "\n" << format_text(r, 0, ""));
        CHECK(r.space.mma > 100);
        std::size_t measured = 0;
        for (const auto& c : r.evaluated)
            if (c.algo.provider == provider::ktune_mma) {
                ++measured;
                CHECK(c.ok());
            }
        CHECK(measured >= 2);
    }
}

TEST_CASE("ktune's GEMV: configs pass the check at every M it takes and drive the run time") {
    // docs/perf/gemm.md#gemv-decode: both forms, one to eight rows, a row of B over many loads
    // and one shorter than a warp's, more warps than rows, fp16, fp8 and the epilogues; then a tune
    // that searches it beside cuBLAS (and the template on sm_90) and measures its picks.
    if (!gemm::detail::gemv_device_here()) {
        WARN("skipped: ktune's GEMV needs an sm_80 or later GPU");
        return;
    }
    check_cases(
        {form_case{"1x4096x4096", gemv({2, 2, 8})}, form_case{"1x28672x8192", gemv({1, 4, 8})},
         form_case{"3x1000x520", gemv({1, 8, 2}), "fp16", "gelu_bias"},
         form_case{"8x777x136", gemv({2, 1, 16}), "bf16", "relu_bias"},
         form_case{"2x300x8", gemv({2, 4, 4}), "fp16"},
         form_case{"5x11008x4096", gemv({2, 8, 2}), "bf16", "bias"},
         form_case{"4x64x2056", gemv({1, 1, 16})}, form_case{"1x4096x4096", gemv({2, 1, 8}), "fp8"},
         form_case{"3x1000x528", gemv({1, 2, 4}), "fp8", "bias"}});
    tune_options o = quick();
    for (const char* shape : {"1x4096x4096", "4x8192x1024"}) {
        const tune_result r = gemm::tune(parse_problem(shape, "bf16", "tn"), o);
        INFO(shape << "\n" << format_text(r, 0, ""));
        CHECK(r.space.gemv == 32);
        std::size_t measured = 0;
        for (const auto& c : r.evaluated)
            if (c.algo.provider == provider::ktune_gemv) {
                ++measured;
                CHECK(c.ok());
            }
        CHECK(measured >= 2);
    }
}
