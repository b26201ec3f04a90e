// The run-time GEMM: one resolution per distinct problem, then a hash lookup and one
// cublasLtMatmul per call (in the padded-K form, two copies before it: pad.hpp), or one launch
// of ktune's Hopper template or its mma.sync form where the cache entry names one (sm90.hpp,
// mma.hpp).
#include "core/fnv1a.hpp"
#include "ktune/gemm/gemm.hpp"

#include "gemm/lt_descs.hpp"
#include "gemm/mma.hpp"
#include "gemm/pad.hpp"
#include "gemm/resolve.hpp"
#include "gemm/sm90.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/error.hpp"

#include <cuda_runtime.h>

#include <optional>
#include <unordered_map>

namespace ktune::gemm {
namespace {

struct problem_hash {
    std::size_t operator()(const problem& p) const noexcept {
        const std::uint64_t words[] = {std::uint64_t(p.m), std::uint64_t(p.n), std::uint64_t(p.k),
                                       std::uint64_t(p.type) | std::uint64_t(p.op) << 8 |
                                           std::uint64_t(p.epi) << 16};
        return static_cast<std::size_t>(
            ktune::detail::fnv1a_bytes(ktune::detail::fnv1a_basis, words, sizeof words));
    }
};

struct plan {
    detail::lt_descs descs;
    cublasLtMatmulAlgo_t algo{};
    algo_config attrs;
    algo_source source = algo_source::heuristic;
    const void* bias = nullptr; ///< the bias pointer last set on descs.op
    // The padded-K form: descs are the padded problem's, and the copies of A and B land here.
    // One pair per problem: an eager call on another stream first waits for the last eager
    // call's GEMM (`last_use`), so two streams never write the buffers under each other's reads.
    // Graph replays are the application's to order (gemm.hpp).
    device_buffer a_pad, b_pad;
    std::optional<cuda_event> last_use; ///< made with the padded form's buffers
    CUstream_st* last_stream = nullptr;
    // ktune's template: the loaded config (compiled when the problem is first resolved, not
    // inside a call the application may be capturing).
    std::unique_ptr<detail::sm90_kernel> sm90;
    std::unique_ptr<detail::mma_kernel> mma;   ///< the mma.sync form's, the same way
    std::unique_ptr<detail::gemv_kernel> gemv; ///< the GEMV's, the same way
};

} // namespace

struct session::impl {
    session_options opt;
    detail::lt_ptr<cublasLtHandle_t> handle;
    std::unique_ptr<detail::lt_backend> backend;
    std::vector<cache::entry> entries;
    cache::environment env;
    device_buffer workspace;
    std::unordered_map<problem, plan, problem_hash> plans;

    explicit impl(session_options o)
        : opt(std::move(o)), handle(detail::make_handle()), backend(detail::make_real_backend()),
          env(cache::environment::current()) {
        entries = cache::read_cache(opt.cache_file.empty() ? cache::default_cache_path()
                                                           : opt.cache_file);
    }

    plan& get(const problem& p) {
        if (auto it = plans.find(p); it != plans.end()) return it->second;
        plan pl;
        detail::resolved r = detail::resolve(*backend, entries, p, env, opt.max_workspace,
                                             detail::sm90_device_here(), detail::mma_device_here(),
                                             detail::gemv_device_here());
        if (r.found && r.algo.provider != provider::cublaslt) {
            try {
                if (r.algo.provider == provider::ktune_sm90)
                    pl.sm90 = std::make_unique<detail::sm90_kernel>(r.algo.sm90,
                                                                    detail::kernel_form_of(p));
                else if (r.algo.provider == provider::ktune_gemv)
                    pl.gemv = std::make_unique<detail::gemv_kernel>(
                        r.algo.gemv, static_cast<int>(p.m), detail::kernel_form_of(p));
                else
                    pl.mma =
                        std::make_unique<detail::mma_kernel>(r.algo.mma, detail::kernel_form_of(p));
                pl.attrs = r.algo;
                pl.source = r.source;
                return plans.emplace(p, std::move(pl)).first->second;
            } catch (const error&) {
                // It does not compile or load here: cuBLASLt's heuristic answers instead.
                r = detail::resolve(*backend, {}, p, env, opt.max_workspace);
            }
        }
        if (!r.found)
            throw error(error_kind::unsupported,
                        "cuBLASLt has no algorithm for " + describe(p) + " on this GPU");
        const problem runs = r.algo.pad_k ? detail::padded(p) : p;
        pl.descs = detail::make_descs(runs);
        pl.attrs = r.algo;
        pl.source = r.source;
        pl.algo = detail::make_algo(handle.get(), runs, r.algo);
        if (r.algo.pad_k) {
            detail::prepare_pad(); // compiled here, not inside a call the application captures
            const detail::padded_sizes sz = detail::padded_bytes(p);
            pl.a_pad = device_buffer(sz.a);
            pl.b_pad = device_buffer(sz.b);
            pl.last_use.emplace();
        }
        if (workspace.size() < opt.max_workspace) workspace = device_buffer(opt.max_workspace);
        return plans.emplace(p, std::move(pl)).first->second;
    }
};

session::session() : session(session_options{}) {}
session::session(session_options o) : impl_(std::make_unique<impl>(std::move(o))) {}
session::~session() = default;
session::session(session&&) noexcept = default;
session& session::operator=(session&&) noexcept = default;

void session::gemm(const problem& p, const void* a, const void* b, void* d, CUstream_st* stream,
                   const void* bias, float alpha, b_operand b_is) {
    plan& pl = impl_->get(p);
    if (pl.sm90) {
        pl.sm90->run(p, a, b, d, stream, alpha, bias, b_is);
        return;
    }
    if (pl.mma) {
        pl.mma->run(p, a, b, d, stream, alpha, bias);
        return;
    }
    if (pl.gemv) {
        pl.gemv->run(p, a, b, d, stream, alpha, bias);
        return;
    }
    if (p.epi != epilogue::none && bias != pl.bias) {
        detail::set_bias(pl.descs, p, bias);
        pl.bias = bias;
    }
    // A captured call is ordered by the graph's replays, not by the event (an event recorded in
    // a capture cannot be waited on outside it).
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (pl.attrs.pad_k) KTUNE_CUDA_CALL(cudaStreamIsCapturing(stream, &capture));
    const bool captured = capture != cudaStreamCaptureStatusNone;
    if (pl.attrs.pad_k) {
        if (!captured && pl.last_stream != nullptr && pl.last_stream != stream)
            KTUNE_CUDA_CALL(cudaStreamWaitEvent(stream, pl.last_use->get(), 0));
        KTUNE_CUDA_CALL(detail::enqueue_pad(p, a, b, pl.a_pad.data(), pl.b_pad.data(), stream));
        a = pl.a_pad.data();
        b = pl.b_pad.data();
    }
    const float beta = 0.0f;
    KTUNE_LT_CALL(detail::cublaslt().cublasLtMatmul(
        impl_->handle.get(), pl.descs.op.get(), &alpha, a, pl.descs.a.get(), b, pl.descs.b.get(),
        &beta, d, pl.descs.c.get(), d, pl.descs.d.get(), &pl.algo, impl_->workspace.data(),
        impl_->opt.max_workspace, stream));
    if (pl.attrs.pad_k && !captured) {
        KTUNE_CUDA_CALL(cudaEventRecord(pl.last_use->get(), stream));
        pl.last_stream = stream;
    }
}

algo_config session::algorithm(const problem& p) {
    return impl_->get(p).attrs;
}

algo_source session::source(const problem& p) {
    return impl_->get(p).source;
}

} // namespace ktune::gemm
