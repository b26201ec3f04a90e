#include "gemm/lt_descs.hpp"

#include "gemm/lt_backend.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

namespace ktune::gemm::detail {

std::string lt_status_name(cublasStatus_t st) {
    const char* n = cublaslt().cublasLtGetStatusName(st);
    return n ? n : fmt::format("status {}", int(st));
}

void lt_check(cublasStatus_t st, const char* call) {
    if (st != CUBLAS_STATUS_SUCCESS)
        throw error(error_kind::unsupported,
                    fmt::format("{} failed: {} ({})", call, lt_status_name(st), int(st)));
}

lt_ptr<cublasLtHandle_t> make_handle() {
    const cublaslt_api& lt = cublaslt();
    cublasLtHandle_t h = nullptr;
    KTUNE_LT_CALL(lt.cublasLtCreate(&h));
    return {h, lt.cublasLtDestroy};
}

lt_types types_of(dtype t) noexcept {
    switch (t) {
    case dtype::fp16:
        return {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case dtype::fp8_e4m3:
        return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case dtype::bf16:
    default:
        return {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    }
}

std::uint32_t lt_epilogue(epilogue e) noexcept {
    switch (e) {
    case epilogue::bias:
        return CUBLASLT_EPILOGUE_BIAS;
    case epilogue::relu_bias:
        return CUBLASLT_EPILOGUE_RELU_BIAS;
    case epilogue::gelu_bias:
        return CUBLASLT_EPILOGUE_GELU_BIAS;
    case epilogue::none:
    default:
        return CUBLASLT_EPILOGUE_DEFAULT;
    }
}

lt_descs make_descs(const problem& p) {
    const cublaslt_api& lt = cublaslt();
    const lt_types t = types_of(p.type);
    lt_descs d;
    cublasLtMatmulDesc_t op = nullptr;
    KTUNE_LT_CALL(lt.cublasLtMatmulDescCreate(&op, t.compute, t.scale));
    d.op = {op, lt.cublasLtMatmulDescDestroy};
    const cublasOperation_t ta = p.transa() ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = p.transb() ? CUBLAS_OP_T : CUBLAS_OP_N;
    KTUNE_LT_CALL(
        lt.cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    KTUNE_LT_CALL(
        lt.cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (p.epi != epilogue::none) {
        const auto e = static_cast<cublasLtEpilogue_t>(lt_epilogue(p.epi));
        KTUNE_LT_CALL(
            lt.cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof e));
        const cudaDataType_t bt = t.bias;
        KTUNE_LT_CALL(lt.cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                                                        &bt, sizeof bt));
    }
    const auto layout = [&](cudaDataType_t type, std::int64_t rows, std::int64_t cols) {
        cublasLtMatrixLayout_t l = nullptr;
        KTUNE_LT_CALL(lt.cublasLtMatrixLayoutCreate(&l, type, static_cast<std::uint64_t>(rows),
                                                    static_cast<std::uint64_t>(cols), rows));
        return lt_ptr<cublasLtMatrixLayout_t>(l, lt.cublasLtMatrixLayoutDestroy);
    };
    d.a = p.transa() ? layout(t.ab, p.k, p.m) : layout(t.ab, p.m, p.k);
    d.b = p.transb() ? layout(t.ab, p.n, p.k) : layout(t.ab, p.k, p.n);
    d.c = layout(t.cd, p.m, p.n);
    d.d = layout(t.cd, p.m, p.n);
    return d;
}

void set_bias(const lt_descs& d, const problem& p, const void* bias) {
    if (p.epi == epilogue::none) return;
    KTUNE_LT_CALL(cublaslt().cublasLtMatmulDescSetAttribute(
        d.op.get(), CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
}

cublasLtMatmulAlgo_t make_algo(cublasLtHandle_t h, const problem& p, const algo_config& a) {
    const cublaslt_api& lt = cublaslt();
    const lt_types t = types_of(p.type);
    cublasLtMatmulAlgo_t algo{};
    KTUNE_LT_CALL(
        lt.cublasLtMatmulAlgoInit(h, t.compute, t.scale, t.ab, t.ab, t.cd, t.cd, a.algo_id, &algo));
    const auto set = [&](cublasLtMatmulAlgoConfigAttributes_t attr, const auto& v) {
        KTUNE_LT_CALL(lt.cublasLtMatmulAlgoConfigSetAttribute(&algo, attr, &v, sizeof v));
    };
    set(CUBLASLT_ALGO_CONFIG_TILE_ID, a.tile);
    set(CUBLASLT_ALGO_CONFIG_STAGES_ID, a.stages);
    set(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, a.splitk);
    set(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, a.reduction);
    set(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, a.swizzle);
    set(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, a.custom);
    set(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, a.inner_shape);
    set(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, a.cluster);
    return algo;
}

algo_config read_algo(const cublasLtMatmulAlgo_t& algo) {
    const cublaslt_api& lt = cublaslt();
    algo_config a;
    const auto get = [&](cublasLtMatmulAlgoConfigAttributes_t attr, auto& v) {
        std::size_t written = 0;
        KTUNE_LT_CALL(lt.cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &v, sizeof v, &written));
    };
    get(CUBLASLT_ALGO_CONFIG_ID, a.algo_id);
    get(CUBLASLT_ALGO_CONFIG_TILE_ID, a.tile);
    get(CUBLASLT_ALGO_CONFIG_STAGES_ID, a.stages);
    get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, a.splitk);
    get(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, a.reduction);
    get(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, a.swizzle);
    get(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, a.custom);
    get(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, a.inner_shape);
    get(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, a.cluster);
    return a;
}

} // namespace ktune::gemm::detail
