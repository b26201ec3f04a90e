#include "ktune/gemm/algo.hpp"

#include "gemm/sm90.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <limits>

namespace ktune::gemm {
namespace {

template <class T>
T get_int(const config& c, std::string_view name) {
    const param_value* v = c.find(name);
    const auto* i = v ? std::get_if<std::int64_t>(v) : nullptr;
    if (!i || *i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        *i > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
        throw error(error_kind::input,
                    fmt::format("GEMM algorithm config: '{}' is {}; it must be an integer "
                                "in {}..{} (re-tune to replace the entry)",
                                name, v ? "out of range or not an integer" : "missing",
                                std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    return static_cast<T>(*i);
}

} // namespace

std::string_view to_string(provider p) noexcept {
    switch (p) {
    case provider::ktune_sm90:
        return "ktune_sm90";
    case provider::ktune_mma:
        return "ktune_mma";
    case provider::ktune_gemv:
        return "ktune_gemv";
    case provider::cublaslt:
        break;
    }
    return "cublaslt";
}

config to_config(const algo_config& a) {
    config c;
    if (a.provider == provider::ktune_sm90) {
        c.set("provider", std::string(to_string(a.provider)));
        c.set("bn", std::int64_t{a.sm90.bn});
        c.set("stages", std::int64_t{a.sm90.stages});
        c.set("consumers", std::int64_t{a.sm90.consumers});
        c.set("group", std::int64_t{a.sm90.group});
        c.set("cluster", std::int64_t{a.sm90.cluster});
        c.set("epi_parts", std::int64_t{a.sm90.epi_parts});
        c.set("tma_store", std::int64_t{a.sm90.tma_store});
        // Only where split: entries written before split-K read as one slice.
        if (a.sm90.splits != 1) c.set("splits", std::int64_t{a.sm90.splits});
        // Only where the cluster shares B: entries written before it share A.
        if (a.sm90.cluster_b != 0) c.set("cluster_b", std::int64_t{a.sm90.cluster_b});
        if (a.sm90.swap_ab != 0) c.set("swap_ab", std::int64_t{a.sm90.swap_ab});
        return c;
    }
    if (a.provider == provider::ktune_mma) {
        c.set("provider", std::string(to_string(a.provider)));
        c.set("bm", std::int64_t{a.mma.bm});
        c.set("bn", std::int64_t{a.mma.bn});
        c.set("bk", std::int64_t{a.mma.bk});
        c.set("warps_m", std::int64_t{a.mma.warps_m});
        c.set("warps_n", std::int64_t{a.mma.warps_n});
        c.set("stages", std::int64_t{a.mma.stages});
        return c;
    }
    if (a.provider == provider::ktune_gemv) {
        c.set("provider", std::string(to_string(a.provider)));
        c.set("form", std::int64_t{a.gemv.form});
        c.set("unroll", std::int64_t{a.gemv.unroll});
        c.set("blocks", std::int64_t{a.gemv.blocks});
        return c;
    }
    c.set("algo", std::int64_t{a.algo_id});
    c.set("tile", std::int64_t{a.tile});
    c.set("stages", std::int64_t{a.stages});
    c.set("inner", std::int64_t{a.inner_shape});
    c.set("cluster", std::int64_t{a.cluster});
    c.set("splitk", std::int64_t{a.splitk});
    c.set("reduction", std::int64_t{a.reduction});
    c.set("swizzle", std::int64_t{a.swizzle});
    c.set("custom", std::int64_t{a.custom});
    if (a.pad_k != 0) c.set("pad_k", std::int64_t{a.pad_k});
    return c;
}

algo_config algo_from_config(const config& c) {
    algo_config a;
    if (const param_value* v = c.find("provider")) {
        const auto* name = std::get_if<std::string>(v);
        if (!name || (*name != "ktune_sm90" && *name != "ktune_mma" && *name != "ktune_gemv" &&
                      *name != "cublaslt"))
            throw error(error_kind::input,
                        fmt::format("GEMM algorithm config: provider {} is not cublaslt, "
                                    "ktune_sm90, ktune_mma or ktune_gemv (re-tune to replace the "
                                    "entry)",
                                    ktune::to_string(*v)));
        if (*name == "ktune_gemv") {
            a.provider = provider::ktune_gemv;
            a.gemv.form = get_int<std::int32_t>(c, "form");
            a.gemv.unroll = get_int<std::int32_t>(c, "unroll");
            a.gemv.blocks = get_int<std::int32_t>(c, "blocks");
            return a;
        }
        if (*name == "ktune_mma") {
            a.provider = provider::ktune_mma;
            a.mma.bm = get_int<std::int32_t>(c, "bm");
            a.mma.bn = get_int<std::int32_t>(c, "bn");
            a.mma.bk = get_int<std::int32_t>(c, "bk");
            a.mma.warps_m = get_int<std::int32_t>(c, "warps_m");
            a.mma.warps_n = get_int<std::int32_t>(c, "warps_n");
            a.mma.stages = get_int<std::int32_t>(c, "stages");
            return a;
        }
        if (*name == "ktune_sm90") {
            a.provider = provider::ktune_sm90;
            a.sm90.bn = get_int<std::int32_t>(c, "bn");
            a.sm90.stages = get_int<std::int32_t>(c, "stages");
            a.sm90.consumers = get_int<std::int32_t>(c, "consumers");
            a.sm90.group = get_int<std::int32_t>(c, "group");
            a.sm90.cluster = get_int<std::int32_t>(c, "cluster");
            a.sm90.epi_parts = get_int<std::int32_t>(c, "epi_parts");
            a.sm90.tma_store = get_int<std::int32_t>(c, "tma_store");
            if (c.find("splits") != nullptr) a.sm90.splits = get_int<std::int32_t>(c, "splits");
            if (c.find("cluster_b") != nullptr)
                a.sm90.cluster_b = get_int<std::int32_t>(c, "cluster_b");
            if (c.find("swap_ab") != nullptr) a.sm90.swap_ab = get_int<std::int32_t>(c, "swap_ab");
            return a;
        }
    }
    a.algo_id = get_int<std::int32_t>(c, "algo");
    a.tile = get_int<std::uint32_t>(c, "tile");
    a.stages = get_int<std::uint32_t>(c, "stages");
    a.inner_shape = get_int<std::uint16_t>(c, "inner");
    a.cluster = get_int<std::uint16_t>(c, "cluster");
    a.splitk = get_int<std::int32_t>(c, "splitk");
    a.reduction = get_int<std::uint32_t>(c, "reduction");
    a.swizzle = get_int<std::uint32_t>(c, "swizzle");
    a.custom = get_int<std::uint32_t>(c, "custom");
    if (c.find("pad_k") != nullptr) {
        a.pad_k = get_int<std::uint8_t>(c, "pad_k");
        if (a.pad_k > 1)
            throw error(error_kind::input, "cuBLASLt algorithm config: 'pad_k' must be 0 or 1 "
                                           "(re-tune to replace the entry)");
    }
    return a;
}

std::string describe(const algo_config& a) {
    if (a.provider == provider::ktune_gemv)
        return fmt::format("ktune gemv {} u{} b{}", a.gemv.form == 1 ? "warp" : "block",
                           a.gemv.unroll, a.gemv.blocks);
    if (a.provider == provider::ktune_mma)
        return fmt::format("ktune mma bm{} bn{} bk{} w{}x{} s{}", a.mma.bm, a.mma.bn, a.mma.bk,
                           a.mma.warps_m, a.mma.warps_n, a.mma.stages);
    if (a.provider == provider::ktune_sm90) return "ktune sm90 " + detail::sm90_name(a.sm90);
    return fmt::format("algo {} tile {} stages {} cluster {} splitk {} red {} swz {} custom {} "
                       "inner {}",
                       a.algo_id, a.tile, a.stages, a.cluster, a.splitk, a.reduction, a.swizzle,
                       a.custom, a.inner_shape) +
           (a.pad_k != 0 ? " pad_k" : "");
}

} // namespace ktune::gemm
