#include "gemm/enumerate.hpp"

#include "gemm/pad.hpp"
#include "gemm/sm90_space.hpp"

#include <algorithm>
#include <chrono>
#include <set>

namespace ktune::gemm::detail {
namespace {

bool aligned(const algo_caps& c, const problem& p) {
    const std::size_t in = input_bytes(p.type), out = output_bytes(p.type);
    // Leading dimensions of the stored (not the op'd) matrices, column-major.
    const std::int64_t lda = p.transa() ? p.k : p.m;
    const std::int64_t ldb = p.transb() ? p.n : p.k;
    return c.min_align_a <= alignment_bytes(lda, in) && c.min_align_b <= alignment_bytes(ldb, in) &&
           c.min_align_c <= alignment_bytes(p.m, out) && c.min_align_d <= alignment_bytes(p.m, out);
}

bool has_epilogue(const algo_caps& c, const problem& p) {
    const std::uint32_t e = lt_epilogue(p.epi);
    return p.epi == epilogue::none || (c.epilogue_mask & e) == e;
}

std::vector<std::uint32_t> or_undefined(const std::vector<std::uint32_t>& v) {
    return v.empty() ? std::vector<std::uint32_t>{0} : v;
}

} // namespace

std::uint32_t alignment_bytes(std::int64_t leading_dim, std::size_t elem_bytes) noexcept {
    const auto bytes = static_cast<std::uint64_t>(leading_dim) * elem_bytes;
    std::uint32_t a = 1;
    while (a < 256 && bytes % (2 * a) == 0)
        a *= 2;
    return a;
}

namespace {

using seen_set = std::set<std::vector<std::uint64_t>>;

std::vector<std::uint64_t> identity(const algo_config& a) {
    const auto u = [](std::int32_t v) { return std::uint64_t(std::uint32_t(v)); };
    const sm90_params& k = a.sm90;
    return std::vector<std::uint64_t>{u(a.algo_id),
                                      a.tile,
                                      a.stages,
                                      a.inner_shape,
                                      a.cluster,
                                      u(a.splitk),
                                      a.reduction,
                                      a.swizzle,
                                      a.custom,
                                      a.pad_k,
                                      std::uint64_t(a.provider),
                                      u(a.sm90.bn),
                                      u(a.sm90.stages),
                                      u(a.sm90.consumers),
                                      u(k.group),
                                      u(k.cluster),
                                      u(k.epi_parts),
                                      u(k.tma_store),
                                      u(k.splits),
                                      u(k.cluster_b),
                                      u(k.swap_ab),
                                      u(a.mma.bm),
                                      u(a.mma.bn),
                                      u(a.mma.bk),
                                      u(a.mma.warps_m),
                                      u(a.mma.warps_n),
                                      u(a.mma.stages),
                                      u(a.gemv.form),
                                      u(a.gemv.unroll),
                                      u(a.gemv.blocks)};
}

algo_config mma_algo(const mma_config& c) {
    algo_config a;
    a.provider = provider::ktune_mma;
    a.mma = c;
    return a;
}

// Adds q's heuristic picks to `out` (heuristic and all), each marked with `pad_k` (the form q
// stands for), skipping configurations already seen.
void add_picks(lt_backend& lt, const problem& q, std::uint8_t pad_k, const enumerate_options& o,
               enumeration& out, seen_set& seen) {
    int rank = 0;
    for (const auto& h : lt.heuristic(q, o.heuristic_count, o.max_workspace)) {
        candidate c{h.algo, h.workspace, h.waves, rank};
        c.algo.pad_k = pad_k;
        if (h.workspace > o.max_workspace || !seen.insert(identity(c.algo)).second) continue;
        ++rank;
        out.heuristic.push_back(c);
        out.all.push_back(c);
    }
}

// Adds q's enumeration to out.all, marked and deduplicated as add_picks.
void add_enumeration(lt_backend& lt, const problem& q, std::uint8_t pad_k,
                     const enumerate_options& o, enumeration& out, seen_set& seen) {
    const auto ids = lt.algo_ids(q);
    out.stats.algo_ids += ids.size();
    const std::vector<std::uint16_t> clusters =
        lt.cluster_launch() ? o.clusters : std::vector<std::uint16_t>{0};
    // Each algorithm gets an equal share of the checks, so one with a huge product (many tiles
    // × stages) cannot starve the others when the cap bites.
    const std::size_t per_algo =
        ids.empty() ? 0 : std::max<std::size_t>(1, o.max_checks / ids.size());
    for (const std::int32_t id : ids) {
        const algo_caps caps = lt.caps(q, id);
        if (!aligned(caps, q)) {
            ++out.stats.rejected_alignment;
            continue;
        }
        if (!has_epilogue(caps, q)) {
            ++out.stats.rejected_epilogue;
            continue;
        }
        std::vector<std::pair<std::int32_t, std::uint32_t>> splits{{1, 0}};
        if (caps.splitk)
            for (const std::int32_t s : o.splitk)
                if (s > 1)
                    for (std::uint32_t bit = 1; bit <= 4; bit <<= 1)
                        if (caps.reduction_mask & bit) splits.emplace_back(s, bit);
        std::size_t checks = 0;
        bool stop = false;
        for (const std::uint32_t tile : or_undefined(caps.tiles))
            for (const std::uint32_t stage : or_undefined(caps.stages))
                for (const std::uint16_t cluster : clusters)
                    for (std::int32_t custom = 0; custom <= caps.custom_max && !stop; ++custom)
                        for (std::uint32_t swz = 0; swz <= caps.swizzle_max && !stop; ++swz)
                            for (const auto& [splitk, red] : splits) {
                                algo_config a;
                                a.algo_id = id;
                                a.tile = tile;
                                a.stages = stage;
                                a.cluster = cluster;
                                a.splitk = splitk;
                                a.reduction = red;
                                a.swizzle = swz;
                                a.custom = static_cast<std::uint32_t>(custom);
                                a.pad_k = pad_k;
                                ++out.stats.combinations;
                                if (checks == per_algo) {
                                    out.stats.truncated = stop = true;
                                    break;
                                }
                                ++checks;
                                ++out.stats.checked;
                                const check_result r = lt.check(q, a);
                                if (!r.ok) {
                                    ++out.stats.rejected_check;
                                    continue;
                                }
                                if (r.workspace > o.max_workspace) {
                                    ++out.stats.rejected_workspace;
                                    continue;
                                }
                                if (!seen.insert(identity(a)).second) continue;
                                out.all.push_back({a, r.workspace, r.waves, -1});
                            }
    }
}

} // namespace

algo_config sm90_algo(const sm90_config& c) {
    algo_config a;
    a.provider = provider::ktune_sm90;
    a.sm90 = c;
    return a;
}

algo_config gemv_algo(const gemv_config& c) {
    algo_config a;
    a.provider = provider::ktune_gemv;
    a.gemv = c;
    return a;
}

enumeration enumerate(lt_backend& lt, const problem& p, const enumerate_options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    enumeration out;
    seen_set seen;
    // Every heuristic pick before any enumerated candidate (the tune measures out.all's first
    // heuristic.size() first): cuBLAS's own (whose first stays the default pick), then the
    // padded form's; then the two enumerations in the same order.
    // cuBLASLt only where it runs the problem (fp8 at M % 16 != 0: the template alone).
    const bool lt_runs = lt_takes(p);
    const bool pads = lt_runs && pads_k(p);
    if (lt_runs) add_picks(lt, p, 0, o, out, seen);
    if (pads) add_picks(lt, padded(p), 1, o, out, seen);
    // ktune's own kernels where the device and problem allow them: each one's first configs
    // beside the heuristic's picks (`add_first`), the rest of its space after the enumerations
    // (`add_rest`). The template's first are its prior's picks; then the mma.sync form's (GPUs
    // without wgmma) and the GEMV's (M <= 8), each in its own order.
    int rank = static_cast<int>(out.heuristic.size());
    const auto add_first = [&](const auto& ordered, std::size_t n, auto to_algo) {
        for (std::size_t i = 0; i < std::min(n, ordered.size()); ++i) {
            const candidate c{to_algo(ordered[i]), 0, 0, rank++};
            if (!seen.insert(identity(c.algo)).second) continue;
            out.heuristic.push_back(c);
            out.all.push_back(c);
        }
    };
    const auto add_rest = [&](const auto& ordered, auto to_algo) {
        for (const auto& c : ordered) {
            const candidate cand{to_algo(c), 0, 0, -1};
            if (seen.insert(identity(cand.algo)).second) out.all.push_back(cand);
        }
    };
    const std::vector<sm90_config> own =
        o.sm90 ? sm90_ranked(p, *o.sm90) : std::vector<sm90_config>{};
    const std::vector<sm90_config> own_picks =
        o.sm90 ? sm90_picks(own, p, *o.sm90, p.m <= 64 ? o.sm90_decode_picks : o.sm90_picks)
               : std::vector<sm90_config>{};
    add_first(own_picks, own_picks.size(), sm90_algo);
    const std::vector<mma_config> own_mma =
        o.mma ? mma_ranked(p, *o.mma) : std::vector<mma_config>{};
    add_first(own_mma, o.mma_picks, mma_algo);
    const std::vector<gemv_config> own_gemv =
        o.gemv ? gemv_ranked(p, *o.gemv) : std::vector<gemv_config>{};
    add_first(own_gemv, o.gemv_picks, gemv_algo);
    if (lt_runs) add_enumeration(lt, p, 0, o, out, seen);
    if (pads) add_enumeration(lt, padded(p), 1, o, out, seen);
    add_rest(own, sm90_algo);
    add_rest(own_mma, mma_algo);
    add_rest(own_gemv, gemv_algo);
    out.stats.sm90 = own.size();
    out.stats.mma = own_mma.size();
    out.stats.gemv = own_gemv.size();
    out.stats.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

namespace {

// The space's axes: cuBLASLt's attributes, the padded form, and ktune's template ("kernel" 1,
// its knobs as sm90_*); a candidate of one provider stands at 0 on the other's axes.
struct space_axis {
    const char* name;
    std::int64_t (*value)(const algo_config&);
};
bool is_sm90(const algo_config& a) {
    return a.provider == provider::ktune_sm90;
}
bool is_mma(const algo_config& a) {
    return a.provider == provider::ktune_mma;
}
bool is_gemv(const algo_config& a) {
    return a.provider == provider::ktune_gemv;
}
bool is_own(const algo_config& a) {
    return is_sm90(a) || is_mma(a) || is_gemv(a);
}
constexpr space_axis lt_axes[] = {
    {"algo", [](const algo_config& a) -> std::int64_t { return a.algo_id; }},
    {"tile", [](const algo_config& a) -> std::int64_t { return a.tile; }},
    {"stages", [](const algo_config& a) -> std::int64_t { return a.stages; }},
    {"inner", [](const algo_config& a) -> std::int64_t { return a.inner_shape; }},
    {"cluster", [](const algo_config& a) -> std::int64_t { return a.cluster; }},
    {"splitk", [](const algo_config& a) -> std::int64_t { return is_own(a) ? 0 : a.splitk; }},
    {"reduction", [](const algo_config& a) -> std::int64_t { return a.reduction; }},
    {"swizzle", [](const algo_config& a) -> std::int64_t { return a.swizzle; }},
    {"custom", [](const algo_config& a) -> std::int64_t { return a.custom; }},
};
constexpr space_axis pad_axis = {"pad_k",
                                 [](const algo_config& a) -> std::int64_t { return a.pad_k; }};
constexpr space_axis kernel_axis = {"kernel", [](const algo_config& a) -> std::int64_t {
                                        return is_sm90(a) ? 1 : is_mma(a) ? 2 : is_gemv(a) ? 3 : 0;
                                    }};
constexpr space_axis sm90_axes[] = {
    {"sm90_bn", [](const algo_config& a) -> std::int64_t { return a.sm90.bn; }},
    {"sm90_stages", [](const algo_config& a) -> std::int64_t { return a.sm90.stages; }},
    {"sm90_consumers", [](const algo_config& a) -> std::int64_t { return a.sm90.consumers; }},
    {"sm90_group", [](const algo_config& a) -> std::int64_t { return a.sm90.group; }},
    {"sm90_cluster", [](const algo_config& a) -> std::int64_t { return a.sm90.cluster; }},
    {"sm90_epi", [](const algo_config& a) -> std::int64_t { return a.sm90.epi_parts; }},
    {"sm90_tma_store", [](const algo_config& a) -> std::int64_t { return a.sm90.tma_store; }},
};
constexpr space_axis mma_axes[] = {
    {"mma_bm", [](const algo_config& a) -> std::int64_t { return a.mma.bm; }},
    {"mma_bn", [](const algo_config& a) -> std::int64_t { return a.mma.bn; }},
    {"mma_bk", [](const algo_config& a) -> std::int64_t { return a.mma.bk; }},
    {"mma_warps_m", [](const algo_config& a) -> std::int64_t { return a.mma.warps_m; }},
    {"mma_warps_n", [](const algo_config& a) -> std::int64_t { return a.mma.warps_n; }},
    {"mma_stages", [](const algo_config& a) -> std::int64_t { return a.mma.stages; }},
};
constexpr space_axis gemv_axes[] = {
    {"gemv_form", [](const algo_config& a) -> std::int64_t { return a.gemv.form; }},
    {"gemv_unroll", [](const algo_config& a) -> std::int64_t { return a.gemv.unroll; }},
    {"gemv_blocks", [](const algo_config& a) -> std::int64_t { return a.gemv.blocks; }},
};
// Only where a candidate splits K, so spaces recorded before split-K keep their axes.
constexpr space_axis sm90_splits_axis = {
    "sm90_splits", [](const algo_config& a) -> std::int64_t { return a.sm90.splits; }};
// Only where a candidate's cluster shares B, likewise.
constexpr space_axis sm90_cluster_b_axis = {
    "sm90_cluster_b", [](const algo_config& a) -> std::int64_t { return a.sm90.cluster_b; }};
// Only where a candidate swaps A and B, likewise.
constexpr space_axis sm90_swap_ab_axis = {
    "sm90_swap_ab", [](const algo_config& a) -> std::int64_t { return a.sm90.swap_ab; }};

tune::axis axis_of(const std::vector<candidate>& cands, const space_axis& ax) {
    std::set<std::int64_t> values;
    for (const auto& c : cands)
        values.insert(ax.value(c.algo));
    return tune::axis::list(ax.name, std::vector<std::int64_t>(values.begin(), values.end()));
}

std::int64_t get(const config& c, const char* name) {
    return c.get<std::int64_t>(name);
}

} // namespace

tune::space to_space(const std::vector<candidate>& cands) {
    tune::space s;
    for (const space_axis& ax : lt_axes)
        s.add(axis_of(cands, ax));
    const auto any = [&](bool (*f)(const algo_config&)) {
        return std::any_of(cands.begin(), cands.end(),
                           [&](const candidate& c) { return f(c.algo); });
    };
    if (any([](const algo_config& a) { return a.pad_k != 0; })) s.add(axis_of(cands, pad_axis));
    // "kernel" before the template's axes, as spaces recorded before the mma.sync form have it.
    if (any(is_own)) s.add(axis_of(cands, kernel_axis));
    if (any(is_sm90))
        for (const space_axis& ax : sm90_axes)
            s.add(axis_of(cands, ax));
    if (any(is_mma))
        for (const space_axis& ax : mma_axes)
            s.add(axis_of(cands, ax));
    if (any(is_gemv))
        for (const space_axis& ax : gemv_axes)
            s.add(axis_of(cands, ax));
    if (any([](const algo_config& a) { return a.sm90.splits != 1; }))
        s.add(axis_of(cands, sm90_splits_axis));
    if (any([](const algo_config& a) { return a.sm90.cluster_b != 0; }))
        s.add(axis_of(cands, sm90_cluster_b_axis));
    if (any([](const algo_config& a) { return a.sm90.swap_ab != 0; }))
        s.add(axis_of(cands, sm90_swap_ab_axis));
    std::vector<tune::point> members;
    members.reserve(cands.size());
    for (const auto& c : cands)
        members.push_back(point_of(s, c.algo));
    s.restrict_to(members);
    return s;
}

tune::point point_of(const tune::space& s, const algo_config& a) {
    config cfg;
    for (const space_axis& ax : lt_axes)
        cfg.set(ax.name, ax.value(a));
    if (s.axis_index(pad_axis.name)) cfg.set(pad_axis.name, pad_axis.value(a));
    if (s.axis_index(kernel_axis.name)) cfg.set(kernel_axis.name, kernel_axis.value(a));
    if (s.axis_index("sm90_bn"))
        for (const space_axis& ax : sm90_axes)
            cfg.set(ax.name, ax.value(a));
    if (s.axis_index("mma_bm"))
        for (const space_axis& ax : mma_axes)
            cfg.set(ax.name, ax.value(a));
    if (s.axis_index("gemv_form"))
        for (const space_axis& ax : gemv_axes)
            cfg.set(ax.name, ax.value(a));
    if (s.axis_index(sm90_splits_axis.name))
        cfg.set(sm90_splits_axis.name, sm90_splits_axis.value(a));
    if (s.axis_index(sm90_cluster_b_axis.name))
        cfg.set(sm90_cluster_b_axis.name, sm90_cluster_b_axis.value(a));
    if (s.axis_index(sm90_swap_ab_axis.name))
        cfg.set(sm90_swap_ab_axis.name, sm90_swap_ab_axis.value(a));
    return s.from_config(cfg);
}

algo_config algo_at(const tune::space& s, const tune::point& p) {
    const config cfg = s.to_config(p);
    if (s.axis_index("kernel") && get(cfg, "kernel") == 3) {
        algo_config a;
        a.provider = provider::ktune_gemv;
        a.gemv = {static_cast<std::int32_t>(get(cfg, "gemv_form")),
                  static_cast<std::int32_t>(get(cfg, "gemv_unroll")),
                  static_cast<std::int32_t>(get(cfg, "gemv_blocks"))};
        return a;
    }
    if (s.axis_index("kernel") && get(cfg, "kernel") == 2) {
        algo_config a;
        a.provider = provider::ktune_mma;
        a.mma = {static_cast<std::int32_t>(get(cfg, "mma_bm")),
                 static_cast<std::int32_t>(get(cfg, "mma_bn")),
                 static_cast<std::int32_t>(get(cfg, "mma_bk")),
                 static_cast<std::int32_t>(get(cfg, "mma_warps_m")),
                 static_cast<std::int32_t>(get(cfg, "mma_warps_n")),
                 static_cast<std::int32_t>(get(cfg, "mma_stages"))};
        return a;
    }
    if (s.axis_index("kernel") && get(cfg, "kernel") == 1) {
        algo_config a;
        a.provider = provider::ktune_sm90;
        a.sm90 = {static_cast<std::int32_t>(get(cfg, "sm90_bn")),
                  static_cast<std::int32_t>(get(cfg, "sm90_stages")),
                  static_cast<std::int32_t>(get(cfg, "sm90_consumers")),
                  static_cast<std::int32_t>(get(cfg, "sm90_group")),
                  static_cast<std::int32_t>(get(cfg, "sm90_cluster")),
                  static_cast<std::int32_t>(get(cfg, "sm90_epi")),
                  static_cast<std::int32_t>(get(cfg, "sm90_tma_store"))};
        if (s.axis_index(sm90_splits_axis.name))
            a.sm90.splits = static_cast<std::int32_t>(get(cfg, sm90_splits_axis.name));
        if (s.axis_index(sm90_cluster_b_axis.name))
            a.sm90.cluster_b = static_cast<std::int32_t>(get(cfg, sm90_cluster_b_axis.name));
        if (s.axis_index(sm90_swap_ab_axis.name))
            a.sm90.swap_ab = static_cast<std::int32_t>(get(cfg, sm90_swap_ab_axis.name));
        return a;
    }
    return algo_from_config(cfg);
}

} // namespace ktune::gemm::detail
