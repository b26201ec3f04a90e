#include "gemm/lt_runner.hpp"

#include "gemm/gemv.hpp"
#include "gemm/lt_descs.hpp"
#include "gemm/mma.hpp"
#include "gemm/pad.hpp"
#include "gemm/reference.hpp"
#include "gemm/sm90.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/error.hpp"
#include "ktune/measure/l2_flush.hpp"
#include "ktune/measure/sample_stats.hpp"
#include "ktune/measure/stopping.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <thread>
#include <type_traits>

namespace ktune::gemm::detail {
namespace {

constexpr int batch = 8;
constexpr std::size_t checked_positions = 512;

// Fills `bytes` of host memory with the encoded inputs of one matrix, on every core: the largest
// LLM weights hold 235 M elements.
std::vector<std::uint8_t> make_input(dtype t, std::uint64_t seed, std::size_t count) {
    const std::size_t width = input_bytes(t);
    std::vector<std::uint8_t> host(count * width);
    const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < threads; ++w)
        pool.emplace_back([&, w] {
            const std::size_t lo = count * w / threads, hi = count * (w + 1) / threads;
            for (std::size_t i = lo; i < hi; ++i) {
                const std::uint16_t bits = encode(t, input_value(seed, i));
                if (width == 1)
                    host[i] = static_cast<std::uint8_t>(bits);
                else
                    std::memcpy(&host[2 * i], &bits, 2);
            }
        });
    for (auto& th : pool)
        th.join();
    return host;
}

struct graph_exec {
    cudaGraphExec_t exec = nullptr;
    graph_exec() = default;
    graph_exec(const graph_exec&) = delete;
    graph_exec& operator=(const graph_exec&) = delete;
    ~graph_exec() {
        if (exec) KTUNE_CUDA_CALL_NOEXCEPT(cudaGraphExecDestroy(exec));
    }
};

} // namespace

struct lt_runner::impl {
    problem p;
    std::size_t max_ws;
    measure::measure_policy policy;
    lt_ptr<cublasLtHandle_t> handle;
    lt_descs descs;
    cuda_stream stream;
    int sets = 1;
    std::size_t a_bytes = 0, b_bytes = 0, d_bytes = 0;
    device_buffer a, b, d, bias, workspace;
    // The padded-K form (pad.hpp): its descriptors and the buffers the copies write, made on its
    // first candidate. The copies read the rotating sets, so the timed launch pays them cold.
    std::optional<lt_descs> pad_descs;
    device_buffer a_pad, b_pad;
    std::optional<measure::l2_flusher> flush;
    std::vector<cuda_event> events;
    input_seeds seeds;
    std::vector<std::pair<std::int64_t, std::int64_t>> positions;
    std::vector<reference_value> refs;
    int graph_fallbacks = 0; ///< candidates timed without a graph (capture failed)
    b_operand b_is;          ///< how the template's candidates launch
    // ktune's template: the configs loaded so far (a tune measures a config once, the
    // confirmation twice more), and the device's limits (nullopt: not an sm_90 GPU).
    struct planted {
        sm90_config cfg;
        sm90_fault fault;
        std::unique_ptr<sm90_kernel> kernel;
    };
    std::vector<planted> sm90_kernels;
    std::optional<sm90_device> sm90_here = sm90_device_here();
    // The mma.sync form's loaded configs, and the device's limits (nullopt: before sm_80).
    std::vector<std::pair<mma_config, std::unique_ptr<mma_kernel>>> mma_kernels;
    std::optional<mma_device> mma_here = mma_device_here();
    // The GEMV's loaded configs (one M a runner), and the device's limits (nullopt: before sm_80).
    std::vector<std::pair<gemv_config, std::unique_ptr<gemv_kernel>>> gemv_kernels;
    std::optional<gemv_device> gemv_here = gemv_device_here();
    using launch_fn = std::function<std::string(int)>;

    impl(const problem& prob, std::size_t ws, const measure::measure_policy& pol, b_operand b_as)
        : p(prob), max_ws(ws), policy(pol), handle(make_handle()), descs(make_descs(prob)),
          b_is(b_as) {
        const auto mk = std::size_t(p.m) * std::size_t(p.k),
                   kn = std::size_t(p.k) * std::size_t(p.n);
        a_bytes = mk * input_bytes(p.type);
        b_bytes = kn * input_bytes(p.type);
        d_bytes = std::size_t(p.m) * std::size_t(p.n) * output_bytes(p.type);
        int dev = 0, l2 = 0;
        KTUNE_CUDA_CALL(cudaGetDevice(&dev));
        KTUNE_CUDA_CALL(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        // Copies of the weights until they exceed 2 × L2 (each launch then reads cold ones),
        // at most 64 and 4 GiB.
        const std::size_t ab = a_bytes + b_bytes;
        sets =
            static_cast<int>(std::clamp<std::size_t>((2 * std::size_t(l2) + ab - 1) / ab, 1, 64));
        while (sets > 1 && ab * std::size_t(sets) > (std::size_t{4} << 30))
            --sets;
        if (sets == 1) flush.emplace();
        a = device_buffer(a_bytes * std::size_t(sets));
        b = device_buffer(b_bytes * std::size_t(sets));
        d = device_buffer(d_bytes);
        workspace = device_buffer(std::max<std::size_t>(max_ws, 256));
        const auto upload = [&](device_buffer& dst, std::size_t bytes,
                                const std::vector<std::uint8_t>& host) {
            KTUNE_CUDA_CALL(cudaMemcpy(dst.data(), host.data(), bytes, cudaMemcpyHostToDevice));
            for (int s = 1; s < sets; ++s)
                KTUNE_CUDA_CALL(cudaMemcpy(static_cast<char*>(dst.data()) + bytes * std::size_t(s),
                                           dst.data(), bytes, cudaMemcpyDeviceToDevice));
        };
        upload(a, a_bytes, make_input(p.type, seeds.a, mk));
        upload(b, b_bytes, make_input(p.type, seeds.b, kn));
        if (p.epi != epilogue::none) {
            // The bias has D's type (bf16 for fp8 inputs).
            const dtype bt = p.type == dtype::fp8_e4m3 ? dtype::bf16 : p.type;
            bias = device_buffer(std::size_t(p.m) * 2);
            const auto host = make_input(bt, seeds.bias, std::size_t(p.m));
            KTUNE_CUDA_CALL(
                cudaMemcpy(bias.data(), host.data(), host.size(), cudaMemcpyHostToDevice));
            set_bias(descs, p, bias.data());
        }
        // cudaMemcpy from pageable memory may return before its DMA lands, and device-to-device
        // copies are asynchronous: the GEMMs run on a non-blocking stream that does not wait for
        // them, so under load a candidate could read half-written inputs and fail its check.
        KTUNE_CUDA_CALL(cudaDeviceSynchronize());
        events.resize(2 * batch);
        positions = check_positions(p, checked_positions);
        for (const auto& [i, j] : positions)
            refs.push_back(reference_at(p, seeds, i, j));
    }

    void make_pad_form() {
        if (pad_descs) return;
        prepare_pad(); // its compile stays out of the check and the timed graph
        const problem q = padded(p);
        pad_descs = make_descs(q);
        if (p.epi != epilogue::none) set_bias(*pad_descs, q, bias.data());
        const padded_sizes sz = padded_bytes(p);
        a_pad = device_buffer(sz.a);
        b_pad = device_buffer(sz.b);
    }

    const void* a_set(int set) const {
        return static_cast<const char*>(a.data()) + a_bytes * std::size_t(set);
    }
    const void* b_set(int set) const {
        return static_cast<const char*>(b.data()) + b_bytes * std::size_t(set);
    }

    // One GEMM on rotation set `set`; in the padded form, its copies first (a failed copy reads
    // as an execution failure of the launch).
    cublasStatus_t launch(const cublasLtMatmulAlgo_t& algo, int set, bool pad) {
        const float alpha = 1.0f, beta = 0.0f;
        const void* a_in = a_set(set);
        const void* b_in = b_set(set);
        if (pad) {
            if (enqueue_pad(p, a_in, b_in, a_pad.data(), b_pad.data(), stream.get()) != cudaSuccess)
                return CUBLAS_STATUS_EXECUTION_FAILED;
            a_in = a_pad.data();
            b_in = b_pad.data();
        }
        const lt_descs& ds = pad ? *pad_descs : descs;
        return cublaslt().cublasLtMatmul(handle.get(), ds.op.get(), &alpha, a_in, ds.a.get(), b_in,
                                         ds.b.get(), &beta, d.data(), ds.c.get(), d.data(),
                                         ds.d.get(), &algo, workspace.data(), max_ws, stream.get());
    }

    bool verify(timing& out) {
        std::vector<std::uint16_t> got(positions.size());
        if (d_bytes <= (std::size_t{64} << 20)) {
            std::vector<std::uint16_t> all(d_bytes / 2);
            KTUNE_CUDA_CALL(cudaMemcpy(all.data(), d.data(), d_bytes, cudaMemcpyDeviceToHost));
            for (std::size_t q = 0; q < positions.size(); ++q)
                got[q] = all[std::size_t(positions[q].first + positions[q].second * p.m)];
        } else {
            for (std::size_t q = 0; q < positions.size(); ++q)
                KTUNE_CUDA_CALL(cudaMemcpy(&got[q],
                                           static_cast<const std::uint16_t*>(d.data()) +
                                               positions[q].first + positions[q].second * p.m,
                                           2, cudaMemcpyDeviceToHost));
        }
        const dtype out_type = p.type == dtype::fp16 ? dtype::fp16 : dtype::bf16;
        for (std::size_t q = 0; q < positions.size(); ++q) {
            const double v = decode_output(out_type, got[q]);
            const double err = std::fabs(v - refs[q].value), tol = tolerance(p, refs[q]);
            if (!std::isfinite(v) || err > tol) ++out.bad_elements;
            if (std::isfinite(v)) {
                out.max_error = std::max(out.max_error, err);
                out.max_error_ratio = std::max(out.max_error_ratio, err / tol);
            } else {
                out.max_error_ratio = INFINITY;
            }
        }
        if (out.bad_elements == 0) return true;
        out.status = tune::eval_status::wrong_result;
        out.message = fmt::format("{} of {} checked elements outside tolerance (worst {:.3g}x it)",
                                  out.bad_elements, positions.size(), out.max_error_ratio);
        return false;
    }

    timing run(const cublasLtMatmulAlgo_t& algo, bool pad) {
        timing out;
        if (pad) make_pad_form();
        const lt_descs& ds = pad ? *pad_descs : descs;
        cublasLtMatmulHeuristicResult_t res{};
        if (const auto st =
                cublaslt().cublasLtMatmulAlgoCheck(handle.get(), ds.op.get(), ds.a.get(),
                                                   ds.b.get(), ds.c.get(), ds.d.get(), &algo, &res);
            st != CUBLAS_STATUS_SUCCESS) {
            out.status = tune::eval_status::invalid;
            out.message = "cublasLtMatmulAlgoCheck: " + lt_status_name(st);
            return out;
        }
        if (res.workspaceSize > max_ws) {
            out.status = tune::eval_status::resource_limit;
            out.message =
                fmt::format("needs {} B of workspace (limit {})", res.workspaceSize, max_ws);
            return out;
        }
        return run_with([&](int set) -> std::string {
            const cublasStatus_t st = launch(algo, set, pad);
            return st == CUBLAS_STATUS_SUCCESS ? std::string()
                                               : "cublasLtMatmul: " + lt_status_name(st);
        });
    }

    // One of ktune's own kernels: refused with the rules' reason (`why_not`, "" where it runs),
    // else loaded by `load` (compiled on its first use; the cubin cache keeps it), then checked
    // and timed as any candidate, each launch by `launch(kernel, set)`.
    template <class Load, class Launch>
    timing run_own(const std::string& why_not, const Load& load, const Launch& launch) {
        timing out;
        if (!why_not.empty()) {
            out.status = tune::eval_status::invalid;
            out.message = why_not;
            return out;
        }
        const std::remove_reference_t<decltype(load())>* k = nullptr;
        try {
            k = &load();
        } catch (const error& e) {
            out.status = e.kind() == error_kind::nvrtc ? tune::eval_status::compile_error
                                                       : tune::eval_status::launch_error;
            out.message = e.what();
            return out;
        }
        return run_with([&](int set) -> std::string {
            try {
                launch(*k, set);
                return {};
            } catch (const error& e) {
                return e.what();
            }
        });
    }

    // A config of ktune's template (sm90.hpp).
    timing run_sm90(const sm90_config& c, sm90_fault fault) {
        return run_own(
            sm90_here ? sm90_rejects(c, p, sm90_here->max_shared)
                      : "ktune's Hopper template needs an sm_90 GPU",
            [&]() -> const sm90_kernel& { return sm90_for(c, fault); },
            [&](const sm90_kernel& k, int set) {
                k.run(p, a_set(set), b_set(set), d.data(), stream.get(), 1.0f, bias.data(), b_is);
            });
    }

    // A config of its mma.sync form (mma.hpp).
    timing run_mma(const mma_config& c) {
        return run_own(
            mma_here ? mma_rejects(c, p, *mma_here)
                     : "ktune's mma.sync GEMM needs an sm_80 or later GPU",
            [&]() -> const mma_kernel& {
                for (const auto& [cfg, kernel] : mma_kernels)
                    if (cfg == c) return *kernel;
                mma_kernels.emplace_back(c, std::make_unique<mma_kernel>(c, kernel_form_of(p)));
                return *mma_kernels.back().second;
            },
            [&](const mma_kernel& k, int set) {
                k.run(p, a_set(set), b_set(set), d.data(), stream.get(), 1.0f, bias.data());
            });
    }

    // A config of its GEMV (gemv.hpp).
    timing run_gemv(const gemv_config& c) {
        return run_own(
            gemv_here ? gemv_rejects(c, p, *gemv_here) : "ktune's GEMV needs an sm_80 or later GPU",
            [&]() -> const gemv_kernel& {
                for (const auto& [cfg, kernel] : gemv_kernels)
                    if (cfg == c) return *kernel;
                gemv_kernels.emplace_back(
                    c, std::make_unique<gemv_kernel>(c, static_cast<int>(p.m), kernel_form_of(p)));
                return *gemv_kernels.back().second;
            },
            [&](const gemv_kernel& k, int set) {
                k.run(p, a_set(set), b_set(set), d.data(), stream.get(), 1.0f, bias.data());
            });
    }

    const sm90_kernel& sm90_for(const sm90_config& c, sm90_fault fault) {
        for (const auto& k : sm90_kernels)
            if (k.cfg == c && k.fault == fault) return *k.kernel;
        sm90_kernels.push_back(
            {c, fault, std::make_unique<sm90_kernel>(c, kernel_form_of(p), fault)});
        return *sm90_kernels.back().kernel;
    }

    // Checks then times one candidate, `launch(set)` enqueuing its GEMM on rotation set `set`
    // ("" or what failed).
    timing run_with(const launch_fn& launch) {
        timing out;
        // D starts as NaN (0xFF bytes): an element the algorithm leaves unwritten fails the check.
        KTUNE_CUDA_CALL(cudaMemsetAsync(d.data(), 0xff, d_bytes, stream.get()));
        if (auto err = launch(0); !err.empty()) {
            out.status = tune::eval_status::launch_error;
            out.message = err;
            return out;
        }
        if (const cudaError_t e = cudaStreamSynchronize(stream.get()); e != cudaSuccess) {
            out.status = tune::eval_status::launch_error;
            out.message = cudaGetErrorString(e);
            return out;
        }
        if (!verify(out)) return out;
        if (sets > 1 ? !time_graph(launch, out) : !time_flushed(launch, out)) return out;
        const auto sum = measure::summarize(out.samples_us);
        out.median_us = sum.median;
        out.ci_lo_us = sum.median_ci.lo;
        out.ci_hi_us = sum.median_ci.hi;
        return out;
    }

    float elapsed_ms(int i) {
        float ms = 0;
        KTUNE_CUDA_CALL(cudaEventElapsedTime(&ms, events[2 * i].get(), events[2 * i + 1].get()));
        return ms;
    }

    // Runs batches of `enqueue_one` samples until the stopping rule holds.
    template <class Enqueue>
    bool sample_loop(timing& out, double per_sample_launches, Enqueue enqueue_one) {
        const auto t0 = std::chrono::steady_clock::now();
        for (;;) {
            for (int i = 0; i < batch; ++i) {
                if (!enqueue_one(i)) return false;
            }
            if (const cudaError_t e = cudaEventSynchronize(events[2 * batch - 1].get());
                e != cudaSuccess) {
                out.status = tune::eval_status::launch_error;
                out.message = cudaGetErrorString(e);
                return false;
            }
            for (int i = 0; i < batch; ++i)
                out.samples_us.push_back(1000.0 * elapsed_ms(i) / per_sample_launches);
            const double el =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            if (measure::should_stop(out.samples_us, policy, el).stop) return true;
        }
    }

    bool time_graph(const launch_fn& launch, timing& out) {
        graph_exec g;
        cudaGraph_t graph = nullptr;
        KTUNE_CUDA_CALL(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
        std::string err;
        for (int s = 0; s < sets && err.empty(); ++s)
            err = launch(s);
        const cudaError_t ce = cudaStreamEndCapture(stream.get(), &graph);
        cudaError_t ie = cudaErrorUnknown;
        if (err.empty() && ce == cudaSuccess) ie = cudaGraphInstantiate(&g.exec, graph, 0);
        if (graph) KTUNE_CUDA_CALL_NOEXCEPT(cudaGraphDestroy(graph));
        if (ie != cudaSuccess) {
            // Not capturable (this algorithm or library): the same rotation, launched back to
            // back from the host inside one event pair, which still keeps one host call per
            // launch out of the pair's window only while the GPU is the slower side.
            (void)cudaGetLastError();
            graph_fallbacks++;
            return time_direct(launch, out);
        }
        for (int i = 0; i < policy.warmup; ++i)
            KTUNE_CUDA_CALL(cudaGraphLaunch(g.exec, stream.get()));
        return sample_loop(out, sets, [&](int i) {
            KTUNE_CUDA_CALL(cudaEventRecord(events[2 * i].get(), stream.get()));
            KTUNE_CUDA_CALL(cudaGraphLaunch(g.exec, stream.get()));
            KTUNE_CUDA_CALL(cudaEventRecord(events[2 * i + 1].get(), stream.get()));
            return true;
        });
    }

    bool time_direct(const launch_fn& launch, timing& out) {
        for (int i = 0; i < policy.warmup; ++i)
            (void)launch(i % sets);
        return sample_loop(out, sets, [&](int i) {
            KTUNE_CUDA_CALL(cudaEventRecord(events[2 * i].get(), stream.get()));
            std::string err;
            for (int s = 0; s < sets && err.empty(); ++s)
                err = launch(s);
            KTUNE_CUDA_CALL(cudaEventRecord(events[2 * i + 1].get(), stream.get()));
            if (!err.empty()) {
                out.status = tune::eval_status::launch_error;
                out.message = err;
                return false;
            }
            return true;
        });
    }

    bool time_flushed(const launch_fn& launch, timing& out) {
        for (int i = 0; i < policy.warmup; ++i)
            (void)launch(0);
        return sample_loop(out, 1, [&](int i) {
            // The flush runs outside the events: every timed launch reads A and B from DRAM.
            if (policy.flush_l2) flush->enqueue(stream.get());
            KTUNE_CUDA_CALL(cudaEventRecord(events[2 * i].get(), stream.get()));
            const std::string err = launch(0);
            KTUNE_CUDA_CALL(cudaEventRecord(events[2 * i + 1].get(), stream.get()));
            if (!err.empty()) {
                out.status = tune::eval_status::launch_error;
                out.message = err;
                return false;
            }
            return true;
        });
    }
};

lt_runner::lt_runner(const problem& p, std::size_t max_workspace,
                     const measure::measure_policy& policy, b_operand b_is)
    : impl_(std::make_unique<impl>(p, max_workspace, policy, b_is)) {}
lt_runner::~lt_runner() = default;

timing lt_runner::run(const algo_config& a, sm90_fault fault) {
    if (a.provider == provider::ktune_sm90) return impl_->run_sm90(a.sm90, fault);
    if (a.provider == provider::ktune_mma) return impl_->run_mma(a.mma);
    if (a.provider == provider::ktune_gemv) return impl_->run_gemv(a.gemv);
    cublasLtMatmulAlgo_t algo{};
    try {
        algo = make_algo(impl_->handle.get(), a.pad_k ? padded(impl_->p) : impl_->p, a);
    } catch (const error& e) {
        timing t;
        t.status = tune::eval_status::invalid;
        t.message = e.what();
        return t;
    }
    return impl_->run(algo, a.pad_k != 0);
}

timing lt_runner::run_default() {
    const cublaslt_api& lt = cublaslt();
    cublasLtMatmulPreference_t raw = nullptr;
    KTUNE_LT_CALL(lt.cublasLtMatmulPreferenceCreate(&raw));
    lt_ptr<cublasLtMatmulPreference_t> pref(raw, lt.cublasLtMatmulPreferenceDestroy);
    KTUNE_LT_CALL(lt.cublasLtMatmulPreferenceSetAttribute(pref.get(),
                                                          CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                          &impl_->max_ws, sizeof impl_->max_ws));
    cublasLtMatmulHeuristicResult_t res{};
    int found = 0;
    const auto& d = impl_->descs;
    const cublasStatus_t st =
        lt.cublasLtMatmulAlgoGetHeuristic(impl_->handle.get(), d.op.get(), d.a.get(), d.b.get(),
                                          d.c.get(), d.d.get(), pref.get(), 1, &res, &found);
    if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
        timing t;
        t.status = tune::eval_status::invalid;
        t.message = "cuBLASLt's heuristic has no algorithm for this problem";
        return t;
    }
    return impl_->run(res.algo, false);
}

int lt_runner::graph_fallbacks() const noexcept {
    return impl_->graph_fallbacks;
}

int lt_runner::rotation_sets() const noexcept {
    return impl_->sets;
}

} // namespace ktune::gemm::detail
