#pragma once
// cuBLASLt handles for one GEMM problem: the library handle, the operation descriptor (types,
// transposes, epilogue) and the four matrix layouts, each move-only and destroyed through the
// loaded library. Shared by the enumeration backend, the timing runner and the run-time call.

#include "core/cublaslt_api.hpp"
#include "ktune/gemm/algo.hpp"
#include "ktune/gemm/problem.hpp"

#include <memory>
#include <string>
#include <type_traits>

namespace ktune::gemm::detail {

using ktune::detail::cublaslt;
using ktune::detail::cublaslt_api;

/// Throws ktune::error(unsupported) naming the call and cuBLAS's status name.
void lt_check(cublasStatus_t st, const char* call);
#define KTUNE_LT_CALL(expr) ::ktune::gemm::detail::lt_check((expr), #expr)
/// cuBLAS's name of a status ("CUBLAS_STATUS_NOT_SUPPORTED").
std::string lt_status_name(cublasStatus_t st);

template <class T>
using lt_ptr = std::unique_ptr<std::remove_pointer_t<T>, cublasStatus_t (*)(T)>;

/// A cuBLASLt handle (one per thread of use; cheap to share within a thread).
lt_ptr<cublasLtHandle_t> make_handle();

struct lt_types {
    cudaDataType_t ab, cd, scale, bias;
    cublasComputeType_t compute;
};
lt_types types_of(dtype t) noexcept;

struct lt_descs {
    lt_ptr<cublasLtMatmulDesc_t> op{nullptr, nullptr};
    lt_ptr<cublasLtMatrixLayout_t> a{nullptr, nullptr}, b{nullptr, nullptr}, c{nullptr, nullptr},
        d{nullptr, nullptr};
};
lt_descs make_descs(const problem& p);
/// Sets the bias pointer of an epilogue with bias (no-op otherwise).
void set_bias(const lt_descs& d, const problem& p, const void* bias);

/// An algorithm blob from its attributes; throws unsupported when the library rejects one.
cublasLtMatmulAlgo_t make_algo(cublasLtHandle_t h, const problem& p, const algo_config& a);
/// The attributes of a blob (what the heuristic answered).
algo_config read_algo(const cublasLtMatmulAlgo_t& algo);

} // namespace ktune::gemm::detail
