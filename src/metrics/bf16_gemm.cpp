#include "bf16_gemm.hpp"

#include "core/cublaslt_api.hpp"

#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/error.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <memory>
#include <type_traits>

namespace ktune::metrics::detail {
using ktune::detail::cublaslt;
using ktune::detail::cublaslt_api;
namespace {

void check(cublasStatus_t st, const char* call) {
    if (st != CUBLAS_STATUS_SUCCESS)
        throw error(
            error_kind::unsupported,
            fmt::format("{} failed: {} ({})", call, cublaslt().cublasLtGetStatusName(st), int(st)));
}
#define KTUNE_LT(expr) check((expr), #expr)

// The destroy functions come from the loaded library, so the deleter holds a pointer to one.
template <class T>
using lt_ptr = std::unique_ptr<std::remove_pointer_t<T>, cublasStatus_t (*)(T)>;

} // namespace

void time_bf16_gemm(std::size_t n, int repeats, std::vector<double>& ms) {
    const auto dim = static_cast<std::uint64_t>(n);
    const cublaslt_api& lt = cublaslt();
    cublasLtHandle_t raw_handle = nullptr;
    KTUNE_LT(lt.cublasLtCreate(&raw_handle));
    lt_ptr<cublasLtHandle_t> handle(raw_handle, lt.cublasLtDestroy);

    cublasLtMatmulDesc_t raw_op = nullptr;
    KTUNE_LT(lt.cublasLtMatmulDescCreate(&raw_op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    lt_ptr<cublasLtMatmulDesc_t> op(raw_op, lt.cublasLtMatmulDescDestroy);
    // A transposed, B not: the layout cuBLAS's fastest Hopper kernels (and PyTorch) use.
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    KTUNE_LT(
        lt.cublasLtMatmulDescSetAttribute(op.get(), CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    KTUNE_LT(
        lt.cublasLtMatmulDescSetAttribute(op.get(), CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));

    cublasLtMatrixLayout_t raw_layout = nullptr;
    KTUNE_LT(lt.cublasLtMatrixLayoutCreate(&raw_layout, CUDA_R_16BF, dim, dim,
                                           static_cast<std::int64_t>(dim)));
    lt_ptr<cublasLtMatrixLayout_t> layout(raw_layout, lt.cublasLtMatrixLayoutDestroy);

    cublasLtMatmulPreference_t raw_pref = nullptr;
    KTUNE_LT(lt.cublasLtMatmulPreferenceCreate(&raw_pref));
    lt_ptr<cublasLtMatmulPreference_t> pref(raw_pref, lt.cublasLtMatmulPreferenceDestroy);
    const std::size_t workspace_bytes = std::size_t{64} << 20;
    KTUNE_LT(lt.cublasLtMatmulPreferenceSetAttribute(pref.get(),
                                                     CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                     &workspace_bytes, sizeof workspace_bytes));
    cublasLtMatmulHeuristicResult_t heuristic{};
    int found = 0;
    KTUNE_LT(lt.cublasLtMatmulAlgoGetHeuristic(handle.get(), op.get(), layout.get(), layout.get(),
                                               layout.get(), layout.get(), pref.get(), 1,
                                               &heuristic, &found));
    if (found == 0)
        throw error(error_kind::unsupported, "cuBLASLt has no bf16 GEMM algorithm here");

    const std::size_t bytes = n * n * 2;
    device_buffer a(bytes), b(bytes), c(bytes), workspace(workspace_bytes);
    // Small finite values: zeros would let the hardware idle on some paths, NaNs would trap.
    KTUNE_CUDA_CALL(cudaMemset(a.data(), 0x3c, bytes));
    KTUNE_CUDA_CALL(cudaMemset(b.data(), 0x3c, bytes));
    // The memsets run on the legacy stream, which the non-blocking stream below does not wait for.
    KTUNE_CUDA_CALL(cudaDeviceSynchronize());
    const float alpha = 1.0f, beta = 0.0f;
    cuda_stream stream;
    cuda_event start, stop;
    const auto run = [&] {
        KTUNE_LT(lt.cublasLtMatmul(handle.get(), op.get(), &alpha, a.data(), layout.get(), b.data(),
                                   layout.get(), &beta, c.data(), layout.get(), c.data(),
                                   layout.get(), &heuristic.algo, workspace.data(), workspace_bytes,
                                   stream.get()));
    };
    for (int i = 0; i < 3; ++i)
        run();
    for (int i = 0; i < repeats; ++i) {
        KTUNE_CUDA_CALL(cudaEventRecord(start.get(), stream.get()));
        run();
        KTUNE_CUDA_CALL(cudaEventRecord(stop.get(), stream.get()));
        KTUNE_CUDA_CALL(cudaEventSynchronize(stop.get()));
        float t = 0;
        KTUNE_CUDA_CALL(cudaEventElapsedTime(&t, start.get(), stop.get()));
        ms.push_back(t);
    }
}

} // namespace ktune::metrics::detail
