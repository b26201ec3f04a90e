#include "ktune/metrics/metric_set.hpp"

#include "ktune/core/error.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace ktune::metrics {
namespace {

constexpr std::array<std::string_view, 3> k_builtin{"roofline", "occupancy", "stalls"};

struct precision_name {
    tensor_precision p;
    std::string_view name;
};
constexpr std::array<precision_name, 8> k_precisions{{{tensor_precision::none, "none"},
                                                      {tensor_precision::bf16, "bf16"},
                                                      {tensor_precision::fp16, "fp16"},
                                                      {tensor_precision::tf32, "tf32"},
                                                      {tensor_precision::fp8, "fp8"},
                                                      {tensor_precision::int8, "int8"},
                                                      {tensor_precision::fp64, "fp64"},
                                                      {tensor_precision::measure, "measure"}}};

std::string lower(std::string_view s) {
    std::string out(s);
    std::ranges::transform(out, out.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

metric_request one(std::string_view name, bool required = true) {
    return {{std::string(name)}, required};
}

// Tensor metric names changed between generations: Hopper has `src_fp16` and `src_fp8`;
// Ampere/Ada split fp16 by accumulator; Blackwell folds fp8 into `src_fp4_fp6_fp8_dst_*`.
// The first candidate the chip knows wins.
metric_request tensor_request(tensor_precision p) {
    const auto t = [](std::string_view suffix) {
        return std::string(names::tensor_prefix) + std::string(suffix) + ".sum";
    };
    switch (p) {
    case tensor_precision::bf16:
        return {{t("bf16_dst_fp32")}, true};
    case tensor_precision::fp16:
        return {{t("fp16"), t("fp16_dst_fp32")}, true};
    case tensor_precision::tf32:
        return {{t("tf32_dst_fp32")}, true};
    case tensor_precision::fp8:
        return {{t("fp8"), t("fp4_fp6_fp8_dst_fp32")}, true};
    case tensor_precision::int8:
        return {{t("int8")}, true};
    case tensor_precision::fp64:
        return {{t("fp64")}, true};
    case tensor_precision::none:
    case tensor_precision::measure:
        break;
    }
    return {};
}

// `measure`: every tensor counter worth having, most useful first; resolution keeps those that
// fit the pass budget. The per-instruction Hopper counters come first because they are nearly
// free (GH100: base + op_hgmma bf16/fp16/tf32 = 2 passes; each aggregate precision costs ~1),
// then the aggregate bf16/fp16 ones (the precisions of most GEMMs on every chip). The cache-level
// throughputs (level_requests) come next, before the rarer precisions.
std::vector<metric_request> tensor_requests(bool common) {
    std::vector<metric_request> out;
    const auto add = [&](std::string_view prefix, std::string_view name) {
        out.push_back({{std::string(prefix) + std::string(name) + ".sum"}, false, true});
    };
    if (common) {
        for (std::string_view op :
             {"hgmma_src_bf16_dst_fp32", "hgmma_src_fp16", "hgmma_src_tf32_dst_fp32"})
            add(names::tensor_op_prefix, op);
        for (std::string_view src : {"bf16_dst_fp32", "fp16", "fp16_dst_fp32"})
            add(names::tensor_prefix, src);
        return out;
    }
    for (std::string_view src : {"tf32_dst_fp32", "fp8", "fp4_fp6_fp8_dst_fp32", "fp64", "int8"})
        add(names::tensor_prefix, src);
    for (std::string_view op : {"igmma_src_int8", "hmma_src_bf16_dst_fp32", "hmma_src_fp16",
                                "hmma_src_fp16_dst_fp32", "hmma_src_tf32_dst_fp32"})
        add(names::tensor_op_prefix, op);
    return out;
}

// Throughputs of the memory levels above DRAM and of instruction issue, as % of their peaks:
// the hierarchical verdict (analysis/roofline.cpp) names the level that binds. ncu's own
// top-level `sm__throughput` (8 passes alone on GH100) and `gpu__compute_memory_throughput` (5)
// cannot fit a 3-pass budget; these parts of them can (CUPTI host API, GH100: 3 passes with the
// common tensor counters). Optional: left out where they do not fit.
std::vector<metric_request> level_requests() {
    std::vector<metric_request> out;
    for (auto n : {names::l2_pct, names::l1_bank_reads_pct, names::l1_bank_writes_pct,
                   names::l1_lsu_pct, names::issue_pct})
        out.push_back({{std::string(n)}, false, true});
    return out;
}

metric_set_spec roofline_set(tensor_precision tensor) {
    metric_set_spec s{"roofline", {}};
    for (auto n :
         {names::duration, names::dram_read, names::dram_write, names::l2_bytes, names::sm_hz})
        s.requests.push_back(one(n));
    // SASS FLOP counts of the three non-tensor precisions: ncu's roofline charts use the same.
    for (std::string_view op :
         {"fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma"})
        s.requests.push_back(one(std::string(names::sass_prefix) + std::string(op) +
                                 std::string(names::sass_suffix)));
    if (tensor == tensor_precision::measure) {
        for (auto& r : tensor_requests(true))
            s.requests.push_back(std::move(r));
        for (auto& r : level_requests())
            s.requests.push_back(std::move(r));
        for (auto& r : tensor_requests(false))
            s.requests.push_back(std::move(r));
    } else {
        if (tensor != tensor_precision::none) s.requests.push_back(tensor_request(tensor));
        for (auto& r : level_requests())
            s.requests.push_back(std::move(r));
    }
    return s;
}

metric_set_spec occupancy_set() {
    metric_set_spec s{"occupancy", {}};
    for (auto n : {"gpu__time_duration.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
                   "sm__warps_active.avg.per_cycle_active", "sm__cycles_active.avg",
                   "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                   "smsp__issue_active.avg.pct_of_peak_sustained_active"})
        s.requests.push_back(one(n));
    return s;
}

metric_set_spec stalls_set() {
    metric_set_spec s{"stalls", {}};
    s.requests.push_back(one("gpu__time_duration.sum"));
    // Warp stall reasons as a share of active warps; `gmma` exists only from Hopper on, so every
    // reason is optional and the resolved set reports what the chip lacks.
    for (std::string_view r :
         {"long_scoreboard", "short_scoreboard", "barrier", "membar", "mio_throttle", "lg_throttle",
          "math_pipe_throttle", "wait", "not_selected", "selected", "dispatch_stall", "drain",
          "no_instruction", "branch_resolving", "sleeping", "tex_throttle", "imc_miss", "misc",
          "gmma"})
        s.requests.push_back(
            one("smsp__warp_issue_stalled_" + std::string(r) + "_per_warp_active.pct", false));
    return s;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

} // namespace

std::string_view to_string(tensor_precision p) noexcept {
    for (const auto& e : k_precisions)
        if (e.p == p) return e.name;
    return "none";
}

std::optional<tensor_precision> parse_tensor_precision(std::string_view s) noexcept {
    for (const auto& e : k_precisions)
        if (e.name == s) return e.p;
    return std::nullopt;
}

tensor_precision guess_tensor_precision(std::string_view kernel_name) noexcept {
    try {
        const std::string n = lower(kernel_name);
        const auto has = [&](std::string_view tok) { return n.find(tok) != std::string::npos; };
        // Most specific first: "bf16" contains "f16", "e4m3" marks fp8 in CUTLASS/cuBLAS names.
        if (has("e4m3") || has("e5m2") || has("fp8")) return tensor_precision::fp8;
        if (has("bf16") || has("bfloat16")) return tensor_precision::bf16;
        if (has("tf32")) return tensor_precision::tf32;
        if (has("f16") || has("half")) return tensor_precision::fp16;
        if (has("int8") || has("i8i8") || has("s8s8") || has("imma")) return tensor_precision::int8;
        if (has("dmma") || has("f64") || has("double")) return tensor_precision::fp64;
    } catch (...) {
    }
    return tensor_precision::bf16;
}

std::string encode_metric_set(const metric_set& set) {
    std::string out = set.name + "|" + set.chip + "|" + std::to_string(set.passes) + "|";
    for (std::size_t i = 0; i < set.metrics.size(); ++i)
        out += (i ? "," : "") + set.metrics[i];
    return out;
}

std::optional<metric_set> decode_metric_set(std::string_view line) {
    std::vector<std::string_view> f;
    for (std::size_t start = 0;;) {
        const auto bar = line.find('|', start);
        f.push_back(line.substr(start, bar == std::string_view::npos ? bar : bar - start));
        if (bar == std::string_view::npos) break;
        start = bar + 1;
    }
    if (f.size() != 4 || f[0].empty() || f[1].empty() || f[2].empty() || f[3].empty())
        return std::nullopt;
    metric_set s;
    s.name = f[0];
    s.chip = f[1];
    for (char c : f[2]) {
        if (c < '0' || c > '9') return std::nullopt;
        s.passes = s.passes * 10 + static_cast<std::size_t>(c - '0');
    }
    for (std::string_view rest = f[3]; !rest.empty();) {
        const auto comma = rest.find(',');
        const auto m = rest.substr(0, comma);
        if (m.empty()) return std::nullopt;
        s.metrics.emplace_back(m);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    return s;
}

std::span<const std::string_view> builtin_metric_sets() noexcept {
    return k_builtin;
}

metric_set_spec metric_set_request(std::string_view spec, tensor_precision tensor) {
    spec = trim(spec);
    if (spec == "roofline") return roofline_set(tensor);
    if (spec == "occupancy") return occupancy_set();
    if (spec == "stalls") return stalls_set();
    metric_set_spec s{"user", {}};
    while (!spec.empty()) {
        const auto comma = spec.find(',');
        const auto item = trim(spec.substr(0, comma));
        if (!item.empty()) s.requests.push_back(one(item));
        spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    }
    if (s.requests.empty())
        throw error(error_kind::usage,
                    "empty metric set: name one of roofline, occupancy, stalls, or list metric "
                    "names separated by commas (e.g. dram__bytes.sum,gpu__time_duration.sum)");
    return s;
}

} // namespace ktune::metrics
