// Text, Markdown, JSON and JUnit forms of a diff_report.
#include "ktune/guard/report.hpp"
#include "core/xml_escape.hpp"

#include "ktune/core/error.hpp"
#include "ktune/core/version.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ktune::guard {
namespace {

// JSON numbers to 6 significant digits: the statistics are not more precise than that, and
// the last bits of erfc/log differ between libm versions, which would churn golden files.
double sig6(double v) {
    return std::stod(fmt::format("{:.6g}", v));
}

std::string pct(double v) {
    return fmt::format("{:+.2f} %", 100 * v);
}

std::string ci(const key_diff& k) {
    return fmt::format("[{:+.2f}, {:+.2f}]", 100 * k.rel_lo, 100 * k.rel_hi);
}

bool has_stats(const key_diff& k) {
    return k.why != cause::too_few_samples && k.why != cause::zero_baseline &&
           k.result != verdict::failed && k.n_base > 0 && k.n_cand > 0;
}

std::string summary_line(const diff_report& r) {
    const int rc = r.exit_code();
    return fmt::format("{} slower, {} failed, {} faster, {} same, {} inconclusive: {}",
                       r.count(verdict::slower), r.count(verdict::failed), r.count(verdict::faster),
                       r.count(verdict::same), r.count(verdict::inconclusive),
                       rc == 1   ? "FAIL (regression or failed entry)"
                       : rc == 3 ? "INCONCLUSIVE (nothing could be judged)"
                                 : "PASS");
}

std::string header(const diff_report& r) {
    return fmt::format("baseline {} vs candidate {}: threshold {:.3g} %, FDR {:.3g} %, {} keys",
                       r.baseline_source, r.candidate_source, 100 * r.options.threshold,
                       100 * r.options.alpha, r.keys.size());
}

std::string text(const diff_report& r, bool all) {
    std::string out = "ktune diff: " + header(r) + "\n";
    for (const auto& d : r.environment_differences)
        out += "environment: " + d + "\n";
    for (const auto& n : r.notes)
        out += "note: " + n + "\n";
    for (const auto& k : r.keys) {
        if (k.result == verdict::same && !all) continue;
        std::string verdict_name(to_string(k.result));
        for (auto& c : verdict_name)
            c = static_cast<char>(std::toupper(c));
        out += fmt::format("{:<12} {}\n", verdict_name, k.key);
        if (k.why != cause::none) out += fmt::format("             cause: {}\n", to_string(k.why));
        out += fmt::format("             {}\n", k.detail);
    }
    return out + summary_line(r) + "\n";
}

std::string md_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        // Kernel names hold templates: '<' would open an HTML tag.
        if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '|' || c == '*' || c == '_' || c == '`')
            out += std::string("\\") + c;
        else
            out += c;
    }
    return out;
}

std::string markdown(const diff_report& r, bool all) {
    std::string out = "### ktune diff: " + summary_line(r) + "\n\n" + md_escape(header(r)) + "\n\n";
    for (const auto& d : r.environment_differences)
        out += "- environment: " + md_escape(d) + "\n";
    for (const auto& n : r.notes)
        out += "- note: " + md_escape(n) + "\n";
    if (!r.environment_differences.empty() || !r.notes.empty()) out += "\n";
    out += "| verdict | key | baseline | candidate | shift [95 % CI] | q | cause |\n"
           "|---|---|---:|---:|---:|---:|---|\n";
    std::size_t hidden = 0;
    for (const auto& k : r.keys) {
        if (k.result == verdict::same && !all) {
            ++hidden;
            continue;
        }
        const bool st = has_stats(k);
        out += fmt::format(
            "| {} | {} | {} | {} | {} | {} | {} |\n", to_string(k.result), md_escape(k.key),
            k.n_base ? fmt::format("{:.4g} {}", k.base_median, k.unit) : "-",
            k.n_cand ? fmt::format("{:.4g} {}", k.cand_median, k.unit) : "-",
            st ? pct(k.rel) + " " + ci(k) : "-", st ? fmt::format("{:.2g}", k.q_value) : "-",
            k.why == cause::none ? "" : std::string(to_string(k.why)));
    }
    if (hidden) out += fmt::format("\n{} keys are the same within the threshold.\n", hidden);
    return out;
}

std::string json(const diff_report& r) {
    // 1.1: "outcome", the "failed" verdict and count.
    nlohmann::ordered_json j{{"schema", "ktune.diff"},
                             {"version", "1.1.0"},
                             {"ktune_version", std::string(version())},
                             {"baseline", r.baseline_source},
                             {"candidate", r.candidate_source},
                             {"options",
                              {{"threshold", r.options.threshold},
                               {"alpha", r.options.alpha},
                               {"confidence", r.options.confidence},
                               {"resamples", r.options.resamples},
                               {"seed", r.options.seed},
                               {"min_samples", r.options.min_samples}}},
                             {"exit_code", r.exit_code()},
                             {"outcome", r.outcome()},
                             {"counts",
                              {{"slower", r.count(verdict::slower)},
                               {"failed", r.count(verdict::failed)},
                               {"faster", r.count(verdict::faster)},
                               {"same", r.count(verdict::same)},
                               {"inconclusive", r.count(verdict::inconclusive)}}},
                             {"environment_differences", r.environment_differences},
                             {"notes", r.notes},
                             {"keys", nlohmann::ordered_json::array()}};
    for (const auto& k : r.keys) {
        nlohmann::ordered_json kj{{"key", k.key},
                                  {"name", k.name},
                                  {"shape", k.shape},
                                  {"verdict", to_string(k.result)},
                                  {"cause", to_string(k.why)},
                                  {"detail", k.detail},
                                  {"unit", k.unit},
                                  {"n_baseline", k.n_base},
                                  {"n_candidate", k.n_cand},
                                  {"median_baseline", sig6(k.base_median)},
                                  {"median_candidate", sig6(k.cand_median)}};
        if (k.base_shape != k.shape) kj["baseline_shape"] = k.base_shape;
        if (has_stats(k)) {
            kj["p_value"] = sig6(k.p_value);
            kj["q_value"] = sig6(k.q_value);
            kj["rel_shift"] = sig6(k.rel);
            kj["rel_shift_ci"] = {sig6(k.rel_lo), sig6(k.rel_hi)};
        }
        if (k.share > 0) kj["gpu_time_share"] = sig6(k.share);
        if (k.launches_base > 0) kj["launches_per_run_baseline"] = k.launches_base;
        if (k.launches_cand > 0) kj["launches_per_run_candidate"] = k.launches_cand;
        j["keys"].push_back(std::move(kj));
    }
    // Names are bytes from the profiled program: never fail on invalid UTF-8.
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

using ::ktune::detail::xml_escape;

std::string junit(const diff_report& r) {
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += fmt::format("<testsuites name=\"ktune diff\" tests=\"{}\" failures=\"{}\" "
                       "skipped=\"{}\">\n",
                       r.keys.size(), r.count(verdict::slower) + r.count(verdict::failed),
                       r.count(verdict::inconclusive));
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                       xml_escape(r.candidate_source), r.keys.size(),
                       r.count(verdict::slower) + r.count(verdict::failed),
                       r.count(verdict::inconclusive));
    if (!r.environment_differences.empty()) {
        out += "    <properties>\n";
        for (const auto& d : r.environment_differences)
            out += "      <property name=\"environment\" value=\"" + xml_escape(d) + "\"/>\n";
        out += "    </properties>\n";
    }
    for (const auto& k : r.keys) {
        out +=
            fmt::format("    <testcase classname=\"ktune.diff\" name=\"{}\">", xml_escape(k.key));
        const std::string msg = xml_escape(std::string(to_string(k.why)) + ": " + k.detail);
        if (k.result == verdict::slower || k.result == verdict::failed)
            out += "\n      <failure message=\"" + msg + "\" type=\"" +
                   std::string(to_string(k.result)) + "\"/>\n    ";
        else if (k.result == verdict::inconclusive)
            out += "\n      <skipped message=\"" + msg + "\"/>\n    ";
        else
            out += "\n      <system-out>" +
                   xml_escape(std::string(to_string(k.result)) + ": " + k.detail) +
                   "</system-out>\n    ";
        out += "</testcase>\n";
    }
    return out + "  </testsuite>\n</testsuites>\n";
}

} // namespace

report_format parse_report_format(std::string_view name) {
    if (name == "text") return report_format::text;
    if (name == "md" || name == "markdown") return report_format::markdown;
    if (name == "json") return report_format::json;
    if (name == "junit") return report_format::junit;
    throw error(error_kind::usage,
                "unknown report format '" + std::string(name) + "': use text, md, json or junit");
}

std::string render(const diff_report& r, report_format f, bool all_keys) {
    switch (f) {
    case report_format::text:
        return text(r, all_keys);
    case report_format::markdown:
        return markdown(r, all_keys);
    case report_format::json:
        return json(r);
    case report_format::junit:
        return junit(r);
    }
    return {};
}

} // namespace ktune::guard
