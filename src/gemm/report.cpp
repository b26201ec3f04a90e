// The report of a GEMM tune: JSON (schemas ktune.tune.gemm and ktune.tune.gemm_plan,
// docs/formats.md) and text.
#include "ktune/gemm/report.hpp"
#include "core/config_json.hpp"
#include "gemm/pad.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ktune::gemm {
namespace {

double tflops(const problem& p, double us) {
    return us > 0 ? flops(p) / (us * 1e-6) * 1e-12 : 0;
}
double gbs(const problem& p, double us) {
    return us > 0 ? min_bytes(p) / (us * 1e-6) * 1e-9 : 0;
}

// A candidate's algorithm as its cache entry stores it (algo.cpp's to_config): one field list
// for the entry and the report.
nlohmann::json algo_json(const algo_config& a) {
    return nlohmann::json(ktune::detail::config_to_json(to_config(a)));
}

nlohmann::json candidate_json(const problem& p, const candidate_result& c, double roof) {
    nlohmann::json j{
        {"algo", algo_json(c.algo)}, {"heuristic_rank", c.heuristic_rank}, {"status", c.status}};
    if (!c.message.empty()) j["message"] = c.message;
    if (!c.injected_fault.empty()) j["injected_fault"] = c.injected_fault;
    if (c.ok()) {
        j["median_us"] = c.median_us;
        j["ci_us"] = {c.ci_lo_us, c.ci_hi_us};
        j["samples"] = c.samples;
        j["tflops"] = tflops(p, c.median_us);
        j["gbs"] = gbs(p, c.median_us);
        if (roof > 0) j["roof_fraction"] = tflops(p, c.median_us) / roof;
        j["max_error_ratio"] = c.max_error_ratio;
    }
    return j;
}

nlohmann::json report_json(const tune_result& r, double roof_tflops,
                           const std::string& roof_source) {
    const problem& p = r.prob;
    nlohmann::json ev = nlohmann::json::array();
    for (const auto& c : r.evaluated)
        ev.push_back(candidate_json(p, c, roof_tflops));
    std::size_t failed = 0;
    for (const auto& c : r.evaluated)
        failed += c.ok() ? 0 : 1;
    nlohmann::json j{{"schema", "ktune.tune.gemm"},
                     {"version", "1.9.0"},
                     {"problem",
                      {{"m", p.m},
                       {"n", p.n},
                       {"k", p.k},
                       {"dtype", to_string(p.type)},
                       {"layout", to_string(p.op)},
                       {"epilogue", to_string(p.epi)}}},
                     {"gpu", r.gpu},
                     {"cublaslt_version", r.cublaslt_version},
                     {"strategy", r.strategy},
                     {"rotation_sets", r.rotation_sets},
                     {"graph_fallbacks", r.graph_fallbacks},
                     {"space",
                      {{"algo_ids", r.space.algo_ids},
                       {"combinations", r.space.combinations},
                       {"checked", r.space.checked},
                       {"rejected_check", r.space.rejected_check},
                       {"rejected_workspace", r.space.rejected_workspace},
                       {"rejected_alignment", r.space.rejected_alignment},
                       {"rejected_epilogue", r.space.rejected_epilogue},
                       {"candidates", r.space.candidates},
                       {"truncated", r.space.truncated},
                       {"seconds", r.space.seconds},
                       {"sm90", r.space.sm90}}},
                     {"roof", {{"tflops", roof_tflops}, {"source", roof_source}}},
                     {"default", candidate_json(p, r.default_pick, roof_tflops)},
                     {"winner", candidate_json(p, r.winner, roof_tflops)},
                     {"replaces_default", r.replaces_default},
                     {"speedup", r.speedup},
                     {"evaluations", r.evaluated.size()},
                     {"max_seconds", r.max_seconds},
                     {"time_cut", r.time_cut},
                     {"failed", failed},
                     {"tune_seconds", r.tune_seconds},
                     {"evaluated", std::move(ev)}};
    if (r.space.mma > 0) j["space"]["mma"] = r.space.mma;    // only where the mma.sync form was
    if (r.space.gemv > 0) j["space"]["gemv"] = r.space.gemv; // only where the GEMV was
    if (r.b_is == b_operand::weights) j["b_operand"] = to_string(r.b_is); // only when told
    return j;
}

// torch / ktune's winner; 0 when no candidate passed.
double torch_speedup(const tune_result& r, const torch_timing& t) {
    return r.winner.ok() ? t.median_us / r.winner.median_us : 0.0;
}

} // namespace

std::string to_json(const tune_result& r, double roof_tflops, const std::string& roof_source) {
    return report_json(r, roof_tflops, roof_source).dump(2);
}

std::string to_json(const tune_result& r, double roof_tflops, const std::string& roof_source,
                    const torch_timing& torch) {
    nlohmann::json j = report_json(r, roof_tflops, roof_source);
    j["torch"] = {{"ok", torch.ok}};
    if (torch.ok) {
        j["torch"]["median_us"] = torch.median_us;
        j["torch"]["ci_us"] = {torch.ci_lo_us, torch.ci_hi_us};
        j["torch"]["version"] = torch.torch_version;
        j["torch"]["speedup"] = torch_speedup(r, torch);
    } else {
        j["torch"]["message"] = torch.message;
    }
    return j.dump(2);
}

std::string format_torch(const tune_result& r, const torch_timing& t) {
    if (!t.ok) return "  torch.matmul: not timed: " + t.message + "\n";
    return fmt::format(
        "  torch.matmul     {:>10.2f} us [{:.2f}, {:.2f}] (torch {}): ktune {:.3f}x\n", t.median_us,
        t.ci_lo_us, t.ci_hi_us, t.torch_version, torch_speedup(r, t));
}

std::string plan_json(std::span<const std::string> tunes) {
    nlohmann::json docs = nlohmann::json::array();
    for (const auto& t : tunes)
        docs.push_back(nlohmann::json::parse(t));
    return nlohmann::json{
        {"schema", "ktune.tune.gemm_plan"}, {"version", "1.0.0"}, {"tunes", std::move(docs)}}
        .dump(2);
}

std::string format_text(const tune_result& r, double roof_tflops, const std::string& roof_source) {
    const problem& p = r.prob;
    std::string s =
        fmt::format("gemm {} on {} (cuBLASLt {})\n", describe(p), r.gpu, r.cublaslt_version);
    s += fmt::format("  space: {} algorithm ids, {} combinations, {} checked, {} candidates "
                     "(rejected: {} by AlgoCheck, {} workspace, {} alignment, {} epilogue){}\n",
                     r.space.algo_ids, r.space.combinations, r.space.checked, r.space.candidates,
                     r.space.rejected_check, r.space.rejected_workspace, r.space.rejected_alignment,
                     r.space.rejected_epilogue, r.space.truncated ? ", truncated" : "");
    if (r.space.sm90 > 0)
        s += fmt::format("  and {} configs of ktune's Hopper GEMM template "
                         "(docs/perf/gemm.md#hopper-template)\n",
                         r.space.sm90);
    if (r.space.mma > 0)
        s += fmt::format("  and {} configs of ktune's mma.sync GEMM "
                         "(docs/perf/gemm.md#mma-fallback)\n",
                         r.space.mma);
    if (r.space.gemv > 0)
        s += fmt::format("  and {} configs of ktune's GEMV (docs/perf/gemm.md#gemv-decode)\n",
                         r.space.gemv);
    std::size_t failed = 0;
    for (const auto& c : r.evaluated)
        failed += c.ok() ? 0 : 1;
    s += fmt::format("  measured {} candidates ({} failed), strategy {}, weights {}\n",
                     r.evaluated.size(), failed, r.strategy,
                     r.rotation_sets > 1
                         ? fmt::format("rotated over {} copies in a CUDA graph", r.rotation_sets)
                         : std::string("L2 flushed per launch"));
    if (r.b_is == b_operand::weights)
        s += "  B is weights: the template's candidates read it while the kernel before ends "
             "(docs/perf/gemm.md#early-weights)\n";
    std::size_t planted = 0, passed = 0;
    for (const auto& c : r.evaluated)
        if (!c.injected_fault.empty()) {
            ++planted;
            passed += c.ok() ? 1 : 0;
        }
    if (planted > 0)
        s += fmt::format("  {:<16} {} planted in template candidates, {} rejected by the check, "
                         "{} passed it (docs/perf/gemm.md#hopper-faults)\n",
                         "injected faults", planted, planted - passed, passed);
    const auto line = [&](const char* what, const candidate_result& c) {
        if (!c.ok()) return fmt::format("  {:<16} {}: {}\n", what, c.status, c.message);
        std::string roof;
        if (roof_tflops > 0)
            roof = fmt::format(", {:.0f} % of the {} tensor roof",
                               100 * tflops(p, c.median_us) / roof_tflops, roof_source);
        return fmt::format(
            "  {:<16} {:>10.2f} us [{:.2f}, {:.2f}]  {:>7.1f} TFLOP/s  {:>7.0f} GB/s{}\n"
            "  {:<16} {}\n",
            what, c.median_us, c.ci_lo_us, c.ci_hi_us, tflops(p, c.median_us), gbs(p, c.median_us),
            roof, "", describe(c.algo));
    };
    s += line("cuBLAS default", r.default_pick);
    s += line("ktune", r.winner);
    // Where ktune's own kernels were measured: the best of each beside the best cuBLASLt
    // candidate (search figures, one measurement each), so a user sees how close they came;
    // where cuBLASLt does not run the problem (fp8 at M % 16 != 0), beside the default.
    const candidate_result* best[4] = {nullptr, nullptr, nullptr, nullptr}; // by provider
    for (const auto& c : r.evaluated) {
        if (!c.ok()) continue;
        auto& b = best[static_cast<int>(c.algo.provider)];
        if (!b || c.median_us < b->median_us) b = &c;
    }
    const candidate_result* base = best[static_cast<int>(provider::cublaslt)];
    const char* against = "the best cuBLASLt candidate's";
    if (!base && r.default_pick.ok()) {
        base = &r.default_pick;
        against = "the default's";
    }
    for (const auto& [what, which] : {std::pair{"ktune template", provider::ktune_sm90},
                                      {"ktune mma", provider::ktune_mma},
                                      {"ktune gemv", provider::ktune_gemv}})
        if (const candidate_result* own = best[static_cast<int>(which)]; own && base)
            s += fmt::format("  {:<16} best measured {:.2f} us ({}), {:.3f}x {} {:.2f} us\n", what,
                             own->median_us, describe(own->algo), base->median_us / own->median_us,
                             against, base->median_us);
    if (r.winner.algo.pad_k != 0)
        s += fmt::format("  {:<16} K padded {} -> {}: A and B copied, zeros past K, the copies "
                         "timed with the GEMM (docs/perf/gemm.md#padded-k)\n",
                         "", p.k, detail::padded(p).k);
    s += r.replaces_default
             ? fmt::format(
                   "  ktune's pick is {:.3f}x faster than cuBLAS's default (CIs apart in two "
                   "measurements)\n",
                   r.speedup)
             : "  no candidate beat cuBLAS's default beyond noise: the default is kept\n";
    s += fmt::format("  tune time {:.2f} s (enumeration {:.2f} s)\n", r.tune_seconds,
                     r.space.seconds);
    return s;
}

} // namespace ktune::gemm
