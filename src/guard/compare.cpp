// Per-key verdicts of `ktune diff`; the decision rule is in include/ktune/guard/compare.hpp.
#include "ktune/guard/compare.hpp"
#include "core/fnv1a.hpp"

#include "ktune/core/error.hpp"
#include "ktune/guard/results.hpp"
#include "ktune/guard/stats.hpp"
#include "ktune/measure/sample_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace ktune::guard {

std::string_view to_string(verdict v) noexcept {
    switch (v) {
    case verdict::same:
        return "same";
    case verdict::faster:
        return "faster";
    case verdict::slower:
        return "slower";
    case verdict::inconclusive:
        return "inconclusive";
    case verdict::failed:
        return "failed";
    }
    return "?";
}

std::string_view to_string(cause c) noexcept {
    switch (c) {
    case cause::none:
        return "none";
    case cause::kernel_time:
        return "kernel time";
    case cause::launch_count:
        return "launch count";
    case cause::launch_shape:
        return "launch shape";
    case cause::new_kernel:
        return "new kernel";
    case cause::removed_kernel:
        return "removed kernel";
    case cause::environment:
        return "clock or environment";
    case cause::too_few_samples:
        return "too few samples";
    case cause::noisy:
        return "noisy";
    case cause::failed_entry:
        return "failed entry";
    case cause::missing_key:
        return "missing key";
    case cause::zero_baseline:
        return "zero baseline";
    }
    return "?";
}

std::size_t diff_report::count(verdict v) const {
    return static_cast<std::size_t>(
        std::count_if(keys.begin(), keys.end(), [v](const key_diff& k) { return k.result == v; }));
}

int diff_report::exit_code() const {
    if (count(verdict::slower) + count(verdict::failed) > 0) return 1;
    if (count(verdict::same) + count(verdict::faster) == 0) return 3;
    return 0;
}

std::string_view diff_report::outcome() const {
    switch (exit_code()) {
    case 1:
        return "regression";
    case 3:
        return "inconclusive";
    default:
        return "pass";
    }
}

namespace {

std::uint64_t fnv1a(std::string_view s) {
    return ktune::detail::fnv1a_bytes(ktune::detail::fnv1a_basis, s);
}

struct pair_ref {
    const series* base = nullptr;
    const series* cand = nullptr;
};

void validate(const diff_options& o) {
    if (!(o.threshold > 0 && o.threshold < 10))
        throw error(error_kind::usage, "threshold must be a positive fraction, e.g. 0.05 for 5 %");
    if (!(o.alpha > 0 && o.alpha < 1)) throw error(error_kind::usage, "alpha must lie in (0, 1)");
    if (o.min_samples < 2) throw error(error_kind::usage, "min_samples must be at least 2");
}

// Verdict of one compared key from its statistics (q already adjusted across keys).
void decide(key_diff& k, const diff_options& o, bool env_differs) {
    const double t = o.threshold;
    // "A change of T is plausible" with a 10 % tolerance: on a quiet GPU the CI is a few
    // hundredths of a percent wide, so a kernel made exactly T slower lands just under T half
    // of the time (seen on an H200: +4.99 % [4.98, 5.00] for 5 % more work) and hi >= T alone
    // would call it same. Quiet A/A stays quiet through lo >= T/2, not through this bound.
    const double reach = 0.9 * t;
    const bool significant = k.q_value <= o.alpha;
    if (significant && k.rel_lo >= t / 2 && k.rel_hi >= reach)
        k.result = verdict::slower;
    else if (significant && k.rel_hi <= -t / 2 && k.rel_lo <= -reach)
        k.result = verdict::faster;
    else if (k.rel_lo > -t && k.rel_hi < t)
        k.result = verdict::same;
    else
        k.result = verdict::inconclusive;

    const bool counted = k.launches_base > 0 && k.launches_cand > 0;
    const double count_change = counted ? k.launches_cand / k.launches_base - 1 : 0;
    if (k.result == verdict::same && std::abs(count_change) >= t) {
        // Same per launch, but more (fewer) launches per run cost (save) GPU time.
        k.result = count_change > 0 ? verdict::slower : verdict::faster;
        k.why = cause::launch_count;
        k.detail = fmt::format("launches per run {:.4g} -> {:.4g} ({:+.1f} %), time per launch "
                               "unchanged",
                               k.launches_base, k.launches_cand, 100 * count_change);
        return;
    }
    const std::string shift = fmt::format("{:+.2f} % [{:+.2f}, {:+.2f}] (q = {:.2g})", 100 * k.rel,
                                          100 * k.rel_lo, 100 * k.rel_hi, k.q_value);
    switch (k.result) {
    case verdict::slower:
    case verdict::faster:
        k.why = k.base_shape != k.shape ? cause::launch_shape
                : env_differs           ? cause::environment
                                        : cause::kernel_time;
        k.detail = fmt::format("median {:.4g} -> {:.4g} {}, shift {}", k.base_median, k.cand_median,
                               k.unit, shift);
        if (k.why == cause::launch_shape)
            k.detail += fmt::format("; shape {} -> {}", k.base_shape, k.shape);
        if (counted && count_change != 0)
            k.detail += fmt::format("; launches per run {:+.1f} %", 100 * count_change);
        break;
    case verdict::same:
        k.detail = "shift " + shift;
        break;
    case verdict::inconclusive:
        k.why = cause::noisy;
        k.detail = fmt::format("shift {}: cannot rule out a change of {:.3g} %", shift, 100 * t);
        break;
    case verdict::failed: // set only for keys without samples, never decided here
        break;
    }
}

key_diff one_sided(const series& s, bool is_new, const diff_options& o) {
    key_diff k;
    k.key = s.key();
    k.name = s.name;
    k.shape = is_new ? s.shape : "";
    k.base_shape = is_new ? "" : s.shape;
    k.unit = s.unit;
    (is_new ? k.n_cand : k.n_base) = s.samples.size();
    const double med = s.samples.empty() ? 0 : measure::median(s.samples);
    (is_new ? k.cand_median : k.base_median) = med;
    (is_new ? k.launches_cand : k.launches_base) = s.launches_per_run;
    k.share = s.gpu_time_share;
    k.why = is_new ? cause::new_kernel : cause::removed_kernel;
    // A kernel that appears (disappears) with at least T of the run's GPU time moves the total
    // by about that much: a finding. Without shares (bench results) it cannot be judged.
    if (s.gpu_time_share >= o.threshold) {
        k.result = is_new ? verdict::slower : verdict::faster;
        k.detail = fmt::format("{} with {:.1f} % of GPU time", is_new ? "new" : "removed",
                               100 * s.gpu_time_share);
    } else {
        k.result = verdict::inconclusive;
        k.detail =
            is_new ? "new key: no baseline to compare with" : "removed: not in the candidate";
        if (s.gpu_time_share > 0)
            k.detail += fmt::format(" ({:.2f} % of GPU time)", 100 * s.gpu_time_share);
    }
    return k;
}

// Samples that cannot be timings are bad input, whatever file or adapter they came from.
void check_samples(const series_set& side, const char* which) {
    for (const auto& s : side.items)
        if (const auto why = sample_problem(s.samples); !why.empty())
            throw error(error_kind::input,
                        side.source + " (" + which + "): key '" + s.key() + "': " + why);
}

key_diff failed_key(const std::string& key, cause why, std::string detail) {
    key_diff k;
    k.key = key;
    k.name = key;
    k.result = verdict::failed;
    k.why = why;
    k.detail = std::move(detail);
    return k;
}

int severity(verdict v) {
    switch (v) {
    case verdict::failed:
    case verdict::slower:
        return 0;
    case verdict::faster:
        return 1;
    case verdict::inconclusive:
        return 2;
    case verdict::same:
        return 3;
    }
    return 4;
}

} // namespace

diff_report compare(const series_set& base, const series_set& cand, const diff_options& o) {
    validate(o);
    check_samples(base, "baseline");
    check_samples(cand, "candidate");
    diff_report r;
    r.baseline_source = base.source;
    r.candidate_source = cand.source;
    r.options = o;
    r.environment_differences = environment_differences(base.env, cand.env);
    r.notes = base.notes;
    r.notes.insert(r.notes.end(), cand.notes.begin(), cand.notes.end());
    const bool env_differs = !r.environment_differences.empty();

    // Match by key (name + shape); what is left is matched by name when each side has exactly
    // one shape of that name (the kernel was relaunched with another shape).
    std::map<std::string, const series*> by_key;
    for (const auto& s : base.items)
        by_key.emplace(s.key(), &s);
    std::vector<pair_ref> pairs;
    std::vector<const series*> added;
    std::map<std::string, const series*> matched;
    for (const auto& s : cand.items) {
        if (auto it = by_key.find(s.key()); it != by_key.end()) {
            pairs.push_back({it->second, &s});
            matched.emplace(s.key(), it->second);
        } else {
            added.push_back(&s);
        }
    }
    // A candidate entry that failed is named as such, not as a removed key.
    std::map<std::string, const broken_entry*> cand_broken;
    for (const auto& b : cand.broken)
        cand_broken.emplace(b.key, &b);
    std::map<std::string, const broken_entry*> base_broken;
    for (const auto& b : base.broken)
        base_broken.emplace(b.key, &b);
    for (const auto& [key, b] : cand_broken) {
        // A capability missing from both builds (unavailable on both sides) is no change.
        const auto was = base_broken.find(key);
        if (b->status == "unavailable" && was != base_broken.end() &&
            was->second->status == "unavailable") {
            key_diff k = failed_key(key, cause::failed_entry, "unavailable in both runs");
            k.result = verdict::inconclusive;
            r.keys.push_back(std::move(k));
            continue;
        }
        r.keys.push_back(failed_key(key, cause::failed_entry,
                                    "candidate status " + b->status +
                                        (b->detail.empty() ? "" : ": " + b->detail)));
    }
    std::multimap<std::string, const series*> removed_by_name;
    for (const auto& s : base.items)
        if (!matched.contains(s.key()) && !cand_broken.contains(s.key()))
            removed_by_name.emplace(s.name, &s);
    std::vector<const series*> still_added;
    std::map<std::string, int> added_per_name;
    for (const auto* s : added)
        ++added_per_name[s->name];
    for (const auto* s : added) {
        if (added_per_name[s->name] == 1 && removed_by_name.count(s->name) == 1) {
            auto it = removed_by_name.find(s->name);
            pairs.push_back({it->second, s});
            removed_by_name.erase(it);
        } else {
            still_added.push_back(s);
        }
    }

    // Statistics of every comparable pair; q-values across them.
    std::vector<key_diff> compared;
    std::vector<double> p, w;
    bool any_share = false;
    for (const auto& pr : pairs)
        any_share = any_share || pr.base->gpu_time_share > 0;
    for (const auto& pr : pairs) {
        key_diff k;
        k.key = pr.cand->key();
        k.name = pr.cand->name;
        k.shape = pr.cand->shape;
        k.base_shape = pr.base->shape;
        k.unit = pr.cand->unit;
        if (pr.base->unit != pr.cand->unit)
            throw error(error_kind::input, "key '" + k.key + "' is in " + pr.base->unit +
                                               " in the baseline but " + pr.cand->unit +
                                               " in the candidate");
        k.n_base = pr.base->samples.size();
        k.n_cand = pr.cand->samples.size();
        k.share = pr.base->gpu_time_share;
        k.launches_base = pr.base->launches_per_run;
        k.launches_cand = pr.cand->launches_per_run;
        if (k.n_base) k.base_median = measure::median(pr.base->samples);
        if (k.n_cand) k.cand_median = measure::median(pr.cand->samples);
        if (k.n_base < o.min_samples || k.n_cand < o.min_samples) {
            k.result = verdict::inconclusive;
            k.why = cause::too_few_samples;
            k.detail = fmt::format("{} baseline and {} candidate samples; at least {} a side "
                                   "are needed",
                                   k.n_base, k.n_cand, o.min_samples);
            r.keys.push_back(std::move(k));
            continue;
        }
        if (!(k.base_median > 0)) {
            k.result = verdict::inconclusive;
            k.why = cause::zero_baseline;
            k.detail = "the baseline median is 0: a relative change is undefined";
            r.keys.push_back(std::move(k));
            continue;
        }
        k.p_value = mann_whitney_u(pr.base->samples, pr.cand->samples).p_value;
        relative_shift_result s;
        try {
            s = relative_shift(pr.base->samples, pr.cand->samples,
                               {o.confidence, o.resamples, o.seed ^ fnv1a(k.key)});
        } catch (const error& e) {
            throw error(e.kind(), "key '" + k.key + "': " + e.what());
        }
        k.rel = s.rel;
        k.rel_lo = s.rel_lo;
        k.rel_hi = s.rel_hi;
        p.push_back(k.p_value);
        // A kernel with 0.1 % of GPU time needs stronger evidence than one with 40 %; a floor
        // keeps tiny kernels testable at all.
        w.push_back(any_share ? std::max(pr.base->gpu_time_share, 1e-3) : 1.0);
        compared.push_back(std::move(k));
    }
    const auto q = benjamini_hochberg(p, w);
    for (std::size_t i = 0; i < compared.size(); ++i) {
        compared[i].q_value = q[i];
        decide(compared[i], o, env_differs);
        r.keys.push_back(std::move(compared[i]));
    }
    for (const auto* s : still_added)
        r.keys.push_back(one_sided(*s, true, o));
    const bool expect_keys = base.every_key_expected && cand.every_key_expected;
    for (const auto& [name, s] : removed_by_name)
        if (expect_keys) {
            key_diff k = failed_key(s->key(), cause::missing_key,
                                    "in the baseline but not in the candidate");
            k.name = s->name;
            k.base_shape = s->shape;
            k.unit = s->unit;
            k.n_base = s->samples.size();
            k.base_median = s->samples.empty() ? 0 : measure::median(s->samples);
            r.keys.push_back(std::move(k));
        } else {
            r.keys.push_back(one_sided(*s, false, o));
        }

    std::stable_sort(r.keys.begin(), r.keys.end(), [](const key_diff& a, const key_diff& b) {
        if (severity(a.result) != severity(b.result))
            return severity(a.result) < severity(b.result);
        return std::abs(a.rel) > std::abs(b.rel);
    });
    return r;
}

} // namespace ktune::guard
