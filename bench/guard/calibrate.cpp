// guard_calibrate: how often does `ktune diff` (default settings) cry wolf, and how often does it
// catch a 5 % slowdown? Keys draw their samples from real GPU timing noise (the 32-sample
// `times` arrays of the recorded Kernel Tuner spaces) or from skewed / multi-modal synthetic
// noise; each run compares 200 keys, n = 30 a side, through guard::compare itself.
//
//   guard_calibrate [--runs 200] [--detect-runs R] [--keys 200] [--n 30] [--slow-keys 20]
//                   [--shift 0.05] [--threads N] [--spaces DIR] [--seed S] [--only MODEL]
// Prints per scenario the rates, why missed slowdowns were missed, and the CPU time of one
// 200-key guard::compare (thread CPU time, so other load on the machine does not count).
#include "ktune/guard/compare.hpp"
#include "ktune/guard/stats.hpp"
#include "ktune/measure/sample_stats.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using ktune::guard::splitmix64;

struct args {
    int runs = 200, detect_runs = 0, keys = 200, n = 30, slow_keys = 20, threads = 0;
    std::string only; ///< run one noise model: recorded, skewed, bimodal or outliers
    double shift = 0.05;
    std::uint64_t seed = 2026;
    std::string spaces = KTUNE_SHARED_SPACES_DIR;
};

// Every recorded `times` array with at least 10 finite positive samples.
std::vector<std::vector<double>> load_spaces(const std::string& dir) {
    std::vector<std::vector<double>> pools;
    for (const auto& f : std::filesystem::directory_iterator(dir)) {
        const auto p = f.path().string();
        if (!p.ends_with(".json.gz") || p.ends_with("_T4.json.gz")) continue;
        std::FILE* pipe = popen(("gzip -dc '" + p + "'").c_str(), "r");
        if (!pipe) continue;
        std::string text;
        char buf[1 << 16];
        for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, pipe)) > 0;)
            text.append(buf, got);
        pclose(pipe);
        const auto j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_discarded() || !j.contains("cache")) continue;
        std::size_t before = pools.size();
        for (const auto& [k, c] : j["cache"].items()) {
            if (!c.contains("times") || !c["times"].is_array() || c["times"].size() < 10) continue;
            std::vector<double> t;
            for (const auto& v : c["times"])
                if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0)
                    t.push_back(v.get<double>());
            if (t.size() >= 10) pools.push_back(std::move(t));
        }
        fmt::print(stderr, "{}: {} timing distributions\n", f.path().filename().string(),
                   pools.size() - before);
    }
    return pools;
}

enum class noise { recorded, skewed, bimodal, outliers };
const char* name_of(noise m) {
    switch (m) {
    case noise::recorded:
        return "recorded GPU times (Kernel Tuner spaces), resampled";
    case noise::skewed:
        return "synthetic skewed: floor + lognormal tail (CV ~1-3 %)";
    case noise::bimodal:
        return "synthetic bimodal: 25 % of samples in a +6 % clock mode";
    case noise::outliers:
        return "synthetic outliers: 3 % of samples x1.3-2";
    }
    return "?";
}

double normal(splitmix64& g) { // Box-Muller
    const double u1 = std::max(g.uniform(), 1e-300), u2 = g.uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// One key's sampler: draws n samples scaled by `scale`.
struct key_source {
    noise model;
    const std::vector<double>* pool = nullptr;
    double median = 100, spread = 0.01;
    std::vector<double> draw(splitmix64& g, int n, double scale) const {
        std::vector<double> s(static_cast<std::size_t>(n));
        for (auto& v : s) {
            double x = median;
            switch (model) {
            case noise::recorded:
                x = (*pool)[g.below(pool->size())];
                break;
            case noise::skewed:
                x = median * (1 + spread * std::exp(0.8 * normal(g)));
                break;
            case noise::bimodal:
                x = median * (1 + 0.003 * normal(g)) * (g.uniform() < 0.25 ? 1.06 : 1.0);
                break;
            case noise::outliers:
                x = median * (1 + 0.004 * normal(g)) *
                    (g.uniform() < 0.03 ? 1.3 + 0.7 * g.uniform() : 1.0);
                break;
            }
            v = x * scale;
        }
        return s;
    }
};

struct tally {
    std::atomic<int> runs_flagging_slower{0}, runs_flagging_any{0};
    std::atomic<long> slowed{0}, detected{0}, clean{0}, clean_flagged{0}, inconclusive{0}, keys{0};
    // Detection by the key's robust noise (1.4826 MAD / median): <1 %, 1-2 %, 2-5 %, >=5 %.
    std::atomic<long> by_noise_n[4]{}, by_noise_hit[4]{};
    // Why a slowed key was missed: q above alpha, lo below T/2, hi below T (not exclusive).
    std::atomic<long> miss_q{0}, miss_lo{0}, miss_hi{0};
    std::mutex mu;
    std::vector<double> cpu_ms; ///< per compare() call
};

double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

int noise_bucket(const std::vector<double>& s) {
    const double cv = 1.4826 * ktune::measure::mad(s) / ktune::measure::median(s);
    return cv < 0.01 ? 0 : cv < 0.02 ? 1 : cv < 0.05 ? 2 : 3;
}

void one_run(const args& a, noise model, const std::vector<std::vector<double>>& pools, bool inject,
             int run, tally& t) {
    splitmix64 g(a.seed * 1000003 + static_cast<std::uint64_t>(run) * 7919 +
                 static_cast<std::uint64_t>(model) * 104729 + (inject ? 1 : 0));
    ktune::guard::series_set base, cand;
    std::vector<bool> slow(static_cast<std::size_t>(a.keys), false);
    std::vector<int> bucket(static_cast<std::size_t>(a.keys), 0);
    for (int k = 0; k < a.keys; ++k) {
        key_source src{model};
        if (model == noise::recorded) src.pool = &pools[g.below(pools.size())];
        src.median = 10 + 990 * g.uniform();
        src.spread = 0.002 + 0.01 * g.uniform();
        slow[static_cast<std::size_t>(k)] = inject && k < a.slow_keys;
        ktune::guard::series b, c;
        b.name = c.name = fmt::format("key{}", k);
        b.samples = src.draw(g, a.n, 1.0);
        c.samples = src.draw(g, a.n, slow[static_cast<std::size_t>(k)] ? 1 + a.shift : 1.0);
        bucket[static_cast<std::size_t>(k)] = noise_bucket(b.samples);
        base.items.push_back(std::move(b));
        cand.items.push_back(std::move(c));
    }
    const ktune::guard::diff_options opts;
    const double c0 = thread_cpu_ms();
    const auto report = ktune::guard::compare(base, cand, opts);
    const double cpu = thread_cpu_ms() - c0;
    {
        std::lock_guard lock(t.mu);
        t.cpu_ms.push_back(cpu);
    }
    bool any_slower = false, any = false;
    for (const auto& kd : report.keys) {
        const int k = std::stoi(kd.name.substr(3));
        const bool flagged = kd.result == ktune::guard::verdict::slower;
        any = any || kd.result == ktune::guard::verdict::slower ||
              kd.result == ktune::guard::verdict::faster;
        t.keys++;
        if (kd.result == ktune::guard::verdict::inconclusive) t.inconclusive++;
        if (slow[static_cast<std::size_t>(k)]) {
            t.slowed++;
            t.by_noise_n[bucket[static_cast<std::size_t>(k)]]++;
            if (flagged) {
                t.detected++;
                t.by_noise_hit[bucket[static_cast<std::size_t>(k)]]++;
            } else {
                if (kd.q_value > opts.alpha) t.miss_q++;
                if (kd.rel_lo < opts.threshold / 2) t.miss_lo++;
                if (kd.rel_hi < opts.threshold) t.miss_hi++;
            }
        } else {
            t.clean++;
            if (kd.result != ktune::guard::verdict::same &&
                kd.result != ktune::guard::verdict::inconclusive)
                t.clean_flagged++;
            any_slower = any_slower || flagged;
        }
    }
    if (any_slower) t.runs_flagging_slower++;
    if (any && !inject) t.runs_flagging_any++;
}

std::string cpu_line(tally& t) {
    std::sort(t.cpu_ms.begin(), t.cpu_ms.end());
    if (t.cpu_ms.empty()) return "";
    const auto q = [&](double p) {
        return t.cpu_ms[static_cast<std::size_t>(p * static_cast<double>(t.cpu_ms.size() - 1))];
    };
    return fmt::format("    compare() CPU per run: median {:.1f} ms (p10 {:.1f}, p90 {:.1f})\n",
                       q(0.5), q(0.1), q(0.9));
}

void scenario(const args& a, noise model, const std::vector<std::vector<double>>& pools,
              bool inject) {
    tally t;
    std::atomic<int> next{0};
    std::vector<std::thread> workers;
    const int total = inject && a.detect_runs > 0 ? a.detect_runs : a.runs;
    for (int w = 0; w < a.threads; ++w)
        workers.emplace_back([&] {
            for (int r; (r = next++) < total;)
                one_run(a, model, pools, inject, r, t);
        });
    for (auto& w : workers)
        w.join();
    const double runs = total;
    if (!inject) {
        fmt::print("  A/A: {}/{} runs flag a slower key ({:.2f} %), {}/{} flag any change; "
                   "inconclusive keys {:.2f} %\n",
                   t.runs_flagging_slower.load(), total, 100 * t.runs_flagging_slower / runs,
                   t.runs_flagging_any.load(), total,
                   100.0 * static_cast<double>(t.inconclusive) / static_cast<double>(t.keys));
        fmt::print("{}", cpu_line(t));
        std::fflush(stdout);
        return;
    }
    fmt::print("  {:.0f} % slowdown on {} of {} keys: detected {}/{} = {:.2f} %; untouched keys "
               "flagged {}/{}; runs with a false slower key {:.2f} %\n",
               100 * a.shift, a.slow_keys, a.keys, t.detected.load(), t.slowed.load(),
               100.0 * static_cast<double>(t.detected) / static_cast<double>(t.slowed),
               t.clean_flagged.load(), t.clean.load(), 100 * t.runs_flagging_slower / runs);
    const char* names[4] = {"noise < 1 %", "1-2 %", "2-5 %", ">= 5 %"};
    std::string line = "    detection by key noise (1.4826 MAD/median):";
    for (int b = 0; b < 4; ++b)
        if (t.by_noise_n[b])
            line += fmt::format(" {} {:.1f} % (n={});", names[b],
                                100.0 * static_cast<double>(t.by_noise_hit[b]) /
                                    static_cast<double>(t.by_noise_n[b]),
                                t.by_noise_n[b].load());
    fmt::print("{}\n", line);
    fmt::print("    misses: q > alpha {}, lo < T/2 {}, hi < T {}\n", t.miss_q.load(),
               t.miss_lo.load(), t.miss_hi.load());
    fmt::print("{}", cpu_line(t));
    std::fflush(stdout); // progress survives a killed run
}

} // namespace

int main(int argc, char** argv) {
    args a;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--runs")
            a.runs = std::stoi(v);
        else if (k == "--detect-runs")
            a.detect_runs = std::stoi(v);
        else if (k == "--only")
            a.only = v;
        else if (k == "--keys")
            a.keys = std::stoi(v);
        else if (k == "--n")
            a.n = std::stoi(v);
        else if (k == "--slow-keys")
            a.slow_keys = std::stoi(v);
        else if (k == "--shift")
            a.shift = std::stod(v);
        else if (k == "--threads")
            a.threads = std::stoi(v);
        else if (k == "--spaces")
            a.spaces = v;
        else if (k == "--seed")
            a.seed = std::stoull(v);
        else {
            fmt::print(stderr, "unknown option {}\n", k);
            return 2;
        }
    }
    if (a.threads <= 0)
        a.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const auto pools = a.only.empty() || a.only == "recorded" ? load_spaces(a.spaces)
                                                              : std::vector<std::vector<double>>{};
    const ktune::guard::diff_options d;
    fmt::print("guard_calibrate: default settings (threshold {:.0f} %, FDR {:.0f} %, {:.0f} % "
               "bootstrap CI, {} resamples), {} runs x {} keys, n = {} a side, seed {}\n",
               100 * d.threshold, 100 * d.alpha, 100 * d.confidence, d.resamples, a.runs, a.keys,
               a.n, a.seed);
    if (a.detect_runs > 0) fmt::print("  detection: {} runs per noise model\n", a.detect_runs);
    const char* keys[] = {"recorded", "skewed", "bimodal", "outliers"};
    for (noise m : {noise::recorded, noise::skewed, noise::bimodal, noise::outliers}) {
        if (!a.only.empty() && a.only != keys[static_cast<int>(m)]) continue;
        if (m == noise::recorded && pools.empty()) {
            fmt::print("{}: no spaces found in {}\n", name_of(m), a.spaces);
            continue;
        }
        fmt::print("{}{}\n", name_of(m),
                   m == noise::recorded ? fmt::format(" ({} distributions)", pools.size()) : "");
        scenario(a, m, pools, false);
        scenario(a, m, pools, true);
    }
    return 0;
}
