// ktune diff <baseline>... <candidate> [--threshold 5%] [--format text|md|json|junit] [-o file]
#include "command.hpp"
#include "damage.hpp"
#include "validators.hpp"

#include "ktune/core/atomic_file.hpp"
#include "ktune/core/error.hpp"
#include "ktune/guard/compare.hpp"
#include "ktune/guard/report.hpp"

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace ktune::cli {
namespace {

struct diff_cli {
    std::vector<std::string> inputs;
    std::vector<std::string> candidates;
    std::string threshold = "5%";
    std::string format = "text";
    std::string output;
    bool all = false;
    bool allow_incomplete = false;
    guard::diff_options options;
};

// "5%", "5 %" or "0.05" → 0.05.
double parse_fraction(const std::string& s, const char* what) {
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(s, &used);
    } catch (const std::exception&) {
        throw error(error_kind::usage, std::string(what) + " '" + s + "' is not a number");
    }
    std::string rest = s.substr(used);
    std::erase(rest, ' ');
    if (rest == "%") return v / 100;
    if (!rest.empty())
        throw error(error_kind::usage, std::string(what) + " '" + s +
                                           "': write a fraction (0.05) or a percentage (5%)");
    return v;
}

int run_diff(diff_cli& o) {
    std::vector<std::string> base = o.inputs, cand = o.candidates;
    if (cand.empty()) {
        if (base.size() < 2)
            throw error(error_kind::usage, "ktune diff needs a baseline and a candidate: ktune "
                                           "diff BASELINE... CANDIDATE");
        cand.push_back(base.back());
        base.pop_back();
    }
    o.options.threshold = parse_fraction(o.threshold, "--threshold");
    const auto format = guard::parse_report_format(o.format);
    const auto report = guard::compare(guard::load_series(base, o.allow_incomplete),
                                       guard::load_series(cand, o.allow_incomplete), o.options);
    const std::string rendered = guard::render(report, format, o.all);
    if (o.output.empty()) {
        std::fputs(rendered.c_str(), stdout);
    } else {
        std::vector<std::filesystem::path> read(base.begin(), base.end());
        read.insert(read.end(), cand.begin(), cand.end());
        refuse_same_file(o.output, read);
        write_file_atomically(o.output, rendered);
        // The verdict line still reaches the CI log.
        std::fputs(guard::render(report, guard::report_format::text).c_str(), stdout);
    }
    return report.exit_code();
}

} // namespace

command add_diff(CLI::App& root) {
    auto o = std::make_shared<diff_cli>();
    auto* app = root.add_subcommand(
        "diff", "Compare runs: per key Mann-Whitney U, Hodges-Lehmann shift with a bootstrap CI, "
                "Benjamini-Hochberg across keys. Exit 0: pass; 1: a key is slower, failed "
                "(status not ok) or missing from the candidate; 2: usage or input error (bad "
                "file, invalid samples, damaged trace); 3: inconclusive, no key could be judged "
                "(e.g. too few samples; the JSON report says \"outcome\": \"inconclusive\")");
    app->add_option("inputs", o->inputs,
                    "Baseline result files (several are pooled), then the candidate")
        ->required()
        ->check(CLI::ExistingFile);
    app->add_option("-c,--candidate", o->candidates,
                    "Candidate file(s), pooled; then every positional file is a baseline")
        ->check(CLI::ExistingFile);
    app->add_option("-t,--threshold", o->threshold,
                    "Minimum effect that counts as a change: 5% or 0.05 (default 5%)");
    app->add_option("--alpha", o->options.alpha,
                    "False discovery rate across keys (Benjamini-Hochberg; default 0.05)")
        ->check(finite_range(0, 1));
    app->add_option("--min-samples", o->options.min_samples,
                    "Fewer samples on a side make a key inconclusive (default 8)")
        ->check(whole_range(2, 1000000000));
    app->add_option("--resamples", o->options.resamples, "Bootstrap replicates (default 1000)")
        ->check(whole_range(1, 10000000));
    app->add_option("--seed", o->options.seed, "Bootstrap seed (default 1)")
        ->check(whole_range(0, 18446744073709551615ULL));
    app->add_option("-f,--format", o->format, "text, md, json or junit (default text)");
    app->add_option("-o,--output", o->output,
                    "Write the report here; a text summary still goes to stdout");
    app->add_flag("--all", o->all, "Text and Markdown: list the keys that are the same too");
    add_allow_incomplete(app, o->allow_incomplete);
    return {app, [o] { return run_diff(*o); }};
}

} // namespace ktune::cli
