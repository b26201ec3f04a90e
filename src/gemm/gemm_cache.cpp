#include "gemm/enumerate.hpp"
#include "gemm/pad.hpp"
#include "gemm/resolve.hpp"
#include "ktune/core/error.hpp"
#include "ktune/gemm/cache.hpp"

#include <fmt/format.h>

namespace ktune::gemm {
namespace {

std::string op_version(std::size_t lt_version) {
    return fmt::format("cublasLt{}", lt_version);
}

bool same_problem(const cache::cache_key& a, const cache::cache_key& b) {
    return a.op == b.op && a.dtype == b.dtype && a.bucket == b.bucket && a.arch == b.arch &&
           a.protocol == b.protocol && a.op_version.starts_with("cublasLt");
}

} // namespace

std::string_view to_string(algo_source s) noexcept {
    switch (s) {
    case algo_source::cache:
        return "cache";
    case algo_source::revalidated:
        return "revalidated";
    case algo_source::heuristic:
    default:
        return "heuristic";
    }
}

cache::cache_key cache_key_for(const problem& p, std::size_t lt_version,
                               const cache::environment& env) {
    cache::cache_key k;
    k.op = std::string(cache_op);
    k.op_version = op_version(lt_version);
    k.dtype = std::string(to_string(p.type));
    k.bucket = {p.m, p.n, p.k, static_cast<std::int64_t>(p.op), static_cast<std::int64_t>(p.epi)};
    k.arch = env.arch;
    k.toolkit = env.toolkit;
    k.driver_major = env.driver_major;
    k.protocol = env.protocol;
    return k;
}

cache::entry to_cache_entry(const tune_result& r, const cache::environment& env,
                            const cache::provenance& origin) {
    cache::entry e;
    e.key = cache_key_for(r.prob, r.cublaslt_version, env);
    e.cfg = to_config(r.winner.algo);
    e.time = {r.winner.median_us, r.winner.ci_lo_us, r.winner.ci_hi_us,
              static_cast<std::int64_t>(r.winner.samples)};
    e.origin = origin;
    return e;
}

std::optional<cache::entry> find_entry(std::span<const cache::entry> entries, const problem& p,
                                       std::size_t lt_version, const cache::environment& env,
                                       bool& exact) {
    const cache::cache_key want = cache_key_for(p, lt_version, env);
    const cache::entry* other = nullptr;
    for (const auto& e : entries) {
        if (!same_problem(e.key, want)) continue;
        if (e.key.op_version == want.op_version) {
            exact = true;
            return e;
        }
        if (!other || e.origin.date > other->origin.date) other = &e;
    }
    exact = false;
    if (other) return *other;
    return std::nullopt;
}

namespace detail {

resolved resolve(lt_backend& lt, std::span<const cache::entry> entries, const problem& p,
                 const cache::environment& env, std::size_t max_workspace,
                 const std::optional<sm90_device>& sm90, const std::optional<mma_device>& mma,
                 const std::optional<gemv_device>& gemv) {
    bool exact = false;
    if (const auto e = find_entry(entries, p, lt.version(), env, exact)) {
        // Whether this entry's algorithm runs here: ktune's template where the GPU and its rules
        // take it, cuBLASLt's where AlgoCheck does (the padded form on the padded problem,
        // pad.hpp).
        const auto runs = [&](const algo_config& a) {
            if (a.provider == provider::ktune_sm90)
                return sm90 && sm90_rejects(a.sm90, p, sm90->max_shared).empty();
            if (a.provider == provider::ktune_mma)
                return mma && mma_rejects(a.mma, p, *mma).empty();
            if (a.provider == provider::ktune_gemv)
                return gemv && gemv_rejects(a.gemv, p, *gemv).empty();
            const check_result c = lt.check(a.pad_k ? padded(p) : p, a);
            return c.ok && c.workspace <= max_workspace;
        };
        try {
            const algo_config a = algo_from_config(e->cfg);
            if (runs(a)) return {a, exact ? algo_source::cache : algo_source::revalidated, true};
        } catch (const error&) {
            // A malformed entry is no reason to fail the application: the heuristic answers.
        }
    }
    if (lt_takes(p)) {
        const auto picks = lt.heuristic(p, 1, max_workspace);
        if (picks.empty()) return {};
        return {picks.front().algo, algo_source::heuristic, true};
    }
    // A problem only ktune's kernels run (fp8 at M % 16 != 0): the template prior's first config
    // is the heuristic answer, as cuBLASLt's first pick is elsewhere; without the template (fp8
    // on sm_89, M <= 8) the GEMV's first.
    if (sm90)
        if (const auto own = sm90_ranked(p, *sm90); !own.empty())
            return {sm90_algo(own.front()), algo_source::heuristic, true};
    if (gemv)
        if (const auto own = gemv_ranked(p, *gemv); !own.empty())
            return {gemv_algo(own.front()), algo_source::heuristic, true};
    return {};
}

} // namespace detail
} // namespace ktune::gemm
