// The enumeration seam answered by the loaded cuBLASLt on the current device.
#include "gemm/lt_backend.hpp"
#include "gemm/lt_descs.hpp"

#include "ktune/core/check.hpp"
#include "ktune/core/error.hpp"

#include <cuda_runtime.h>

#include <map>
#include <tuple>

namespace ktune::gemm::detail {
namespace {

class real_backend final : public lt_backend {
public:
    real_backend() : handle_(make_handle()) {
        int dev = 0, cluster = 0;
        KTUNE_CUDA_CALL(cudaGetDevice(&dev));
        KTUNE_CUDA_CALL(cudaDeviceGetAttribute(&cluster, cudaDevAttrClusterLaunch, dev));
        cluster_ = cluster != 0;
    }

    [[nodiscard]] std::size_t version() const override { return cublaslt().cublasLtGetVersion(); }
    [[nodiscard]] bool cluster_launch() const override { return cluster_; }

    std::vector<std::int32_t> algo_ids(const problem& p) override {
        const lt_types t = types_of(p.type);
        std::vector<int> ids(256);
        int n = 0;
        KTUNE_LT_CALL(cublaslt().cublasLtMatmulAlgoGetIds(handle_.get(), t.compute, t.scale, t.ab,
                                                          t.ab, t.cd, t.cd, int(ids.size()),
                                                          ids.data(), &n));
        ids.resize(static_cast<std::size_t>(n));
        return {ids.begin(), ids.end()};
    }

    algo_caps caps(const problem& p, std::int32_t id) override {
        const cublaslt_api& lt = cublaslt();
        const lt_types t = types_of(p.type);
        cublasLtMatmulAlgo_t algo{};
        KTUNE_LT_CALL(lt.cublasLtMatmulAlgoInit(handle_.get(), t.compute, t.scale, t.ab, t.ab, t.cd,
                                                t.cd, id, &algo));
        algo_caps c;
        c.algo_id = id;
        const auto ids = [&](cublasLtMatmulAlgoCapAttributes_t attr) {
            std::size_t bytes = 0;
            KTUNE_LT_CALL(lt.cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &bytes));
            std::vector<std::uint32_t> v(bytes / sizeof(std::uint32_t));
            if (!v.empty())
                KTUNE_LT_CALL(lt.cublasLtMatmulAlgoCapGetAttribute(
                    &algo, attr, v.data(), v.size() * sizeof(std::uint32_t), &bytes));
            return v;
        };
        const auto scalar = [&](cublasLtMatmulAlgoCapAttributes_t attr, auto& v) {
            std::size_t bytes = 0;
            // An attribute this library version does not know leaves the default (0).
            (void)lt.cublasLtMatmulAlgoCapGetAttribute(&algo, attr, &v, sizeof v, &bytes);
        };
        c.tiles = ids(CUBLASLT_ALGO_CAP_TILE_IDS);
        c.stages = ids(CUBLASLT_ALGO_CAP_STAGES_IDS);
        std::int32_t splitk = 0;
        scalar(CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, splitk);
        c.splitk = splitk != 0;
        scalar(CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, c.reduction_mask);
        scalar(CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, c.swizzle_max);
        scalar(CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, c.custom_max);
        scalar(CUBLASLT_ALGO_CAP_EPILOGUE_MASK, c.epilogue_mask);
        scalar(CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES, c.min_align_a);
        scalar(CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES, c.min_align_b);
        scalar(CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES, c.min_align_c);
        scalar(CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES, c.min_align_d);
        return c;
    }

    check_result check(const problem& p, const algo_config& a) override {
        const lt_descs& d = descs(p);
        check_result r;
        cublasLtMatmulAlgo_t algo{};
        try {
            algo = make_algo(handle_.get(), p, a);
        } catch (const error& e) {
            r.why = e.what();
            return r;
        }
        cublasLtMatmulHeuristicResult_t res{};
        const cublasStatus_t st = cublaslt().cublasLtMatmulAlgoCheck(
            handle_.get(), d.op.get(), d.a.get(), d.b.get(), d.c.get(), d.d.get(), &algo, &res);
        r.ok = st == CUBLAS_STATUS_SUCCESS;
        if (!r.ok) r.why = lt_status_name(st);
        r.workspace = res.workspaceSize;
        r.waves = res.wavesCount;
        return r;
    }

    std::vector<heuristic_pick> heuristic(const problem& p, int count,
                                          std::size_t max_workspace) override {
        const cublaslt_api& lt = cublaslt();
        const lt_descs& d = descs(p);
        cublasLtMatmulPreference_t raw = nullptr;
        KTUNE_LT_CALL(lt.cublasLtMatmulPreferenceCreate(&raw));
        lt_ptr<cublasLtMatmulPreference_t> pref(raw, lt.cublasLtMatmulPreferenceDestroy);
        KTUNE_LT_CALL(lt.cublasLtMatmulPreferenceSetAttribute(
            pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace,
            sizeof max_workspace));
        std::vector<cublasLtMatmulHeuristicResult_t> res(static_cast<std::size_t>(count));
        int found = 0;
        const cublasStatus_t st = lt.cublasLtMatmulAlgoGetHeuristic(
            handle_.get(), d.op.get(), d.a.get(), d.b.get(), d.c.get(), d.d.get(), pref.get(),
            count, res.data(), &found);
        std::vector<heuristic_pick> out;
        if (st != CUBLAS_STATUS_SUCCESS) return out; // no algorithm: an empty answer
        for (int i = 0; i < found; ++i)
            if (res[i].state == CUBLAS_STATUS_SUCCESS)
                out.push_back({read_algo(res[i].algo), res[i].workspaceSize, res[i].wavesCount});
        return out;
    }

private:
    const lt_descs& descs(const problem& p) {
        const auto key = std::make_tuple(p.m, p.n, p.k, int(p.type), int(p.op), int(p.epi));
        auto it = descs_.find(key);
        if (it == descs_.end()) it = descs_.emplace(key, make_descs(p)).first;
        return it->second;
    }

    lt_ptr<cublasLtHandle_t> handle_;
    bool cluster_ = false;
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, int, int, int>, lt_descs> descs_;
};

} // namespace

std::unique_ptr<lt_backend> make_real_backend() {
    return std::make_unique<real_backend>();
}

} // namespace ktune::gemm::detail
