// bench_search_replay SPACE... [--strategies a,b] [--repeat R] [--budget N[,N…]] [--seed S]
//                     [--stop-at-target] [--trace SEED] [--batch N] [--compile-ahead|--stream]
// Median evaluations to 1.05x optimum of every strategy on every recorded space, and its ratio
// to random search's exact median and to its mean (M+1)/(K+1), M counting failed configs (random
// draws them too). Prints one TSV line per (space, strategy, budget) so run.sh and evaluate.py
// can merge it with Kernel Tuner's numbers. --budget takes a list (100,500,1000). --batch with
// --compile-ahead or --stream replay a live tune's proposals (replay_options;
// docs/perf/search.md#live-batches, #streaming).
#include "ktune/tune/replay.hpp"
#include "ktune/tune/searcher.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    using namespace ktune::tune;
    std::vector<std::string> files, names;
    std::size_t repeat = 20;
    std::vector<std::size_t> budgets;
    std::uint64_t seed = 0;
    bool stop = false; // --stop-at-target: runs end at the target (best_over_opt then ~1.05)
    std::size_t live_batch = 0; // --batch N
    bool ahead = false;
    bool stream = false;
    std::uint64_t trace = 0; // --trace SEED: every evaluation of one run (seed SEED), to debug
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--repeat" && i + 1 < argc)
            repeat = std::stoul(argv[++i]);
        else if (a == "--budget" && i + 1 < argc) {
            const std::string b = argv[++i];
            for (std::size_t p = 0; p != std::string::npos;) {
                const auto q = b.find(',', p);
                budgets.push_back(std::stoul(b.substr(p, q == std::string::npos ? q : q - p)));
                p = q == std::string::npos ? q : q + 1;
            }
        } else if (a == "--seed" && i + 1 < argc)
            seed = std::stoull(argv[++i]);
        else if (a == "--stop-at-target")
            stop = true;
        else if (a == "--batch" && i + 1 < argc)
            live_batch = std::stoul(argv[++i]);
        else if (a == "--compile-ahead")
            ahead = true;
        else if (a == "--stream")
            stream = true;
        else if (a == "--trace" && i + 1 < argc)
            trace = std::stoull(argv[++i]) + 1;
        else if (a == "--strategies" && i + 1 < argc) {
            std::string s = argv[++i];
            for (std::size_t p = 0; p != std::string::npos;) {
                const auto q = s.find(',', p);
                names.push_back(s.substr(p, q == std::string::npos ? q : q - p));
                p = q == std::string::npos ? q : q + 1;
            }
        } else
            files.push_back(a);
    }
    if (names.empty())
        for (const auto& s : strategies())
            names.push_back(s.name);
    if (budgets.empty()) budgets.push_back(0);
    fmt::print("space\tstrategy\tbudget\tM\tN\tK\trandom_median\trandom_mean\tmedian_evals\tq1\t"
               "q3\treached\truns\tratio_to_random_median\tratio_to_random_mean\tbest_over_opt\t"
               "seconds\n");
    for (const auto& f : files) {
        const auto rec = load_recorded_space(f);
        std::string space = f.substr(f.find_last_of('/') + 1);
        space = space.substr(0, space.find('.'));
        for (const auto& n : names) {
            if (trace) {
                auto sr = make_searcher(n);
                const double opt = rec.optimum();
                search_options so;
                so.budget = budgets[0] ? budgets[0] : 1000;
                so.seed = trace - 1;
                std::size_t k = 0;
                run_search(*sr, rec.space, so, [&](const std::vector<point>& batch) {
                    std::vector<observation> out;
                    for (const auto& p : batch) {
                        out.push_back(rec.evaluate(p));
                        std::string cfg;
                        for (auto v : p)
                            cfg += fmt::format("{} ", v);
                        fmt::print("{}\t{}\t{}\t{}\t{:.3f}\n", space, n, ++k, cfg,
                                   out.back().ok() ? out.back().time / opt : 0.0);
                    }
                    return out;
                });
                continue;
            }
            for (const std::size_t budget : budgets) {
                replay_options o;
                o.strategy = n;
                o.budget = budget;
                o.seed = seed;
                o.stop_at_target = stop;
                o.batch = live_batch;
                o.compile_ahead = ahead;
                o.stream = stream;
                const auto t0 = std::chrono::steady_clock::now();
                const auto runs = replay_repeat(rec, o, repeat,
                                                std::max(1u, std::thread::hardware_concurrency()));
                const double secs =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                const auto s = summarize(rec, o, runs);
                fmt::print("{}\t{}\t{}\t{}\t{}\t{}\t{:.1f}\t{:.1f}\t{:.1f}\t{:.1f}\t{:.1f}\t{}\t{}"
                           "\t{:.4f}\t"
                           "{:.4f}\t{:.4f}\t{:.2f}\n",
                           space, n, s.budget, s.recorded, s.valid, s.within, s.random.median,
                           s.random.mean, s.evals.median, s.evals.q1, s.evals.q3, s.reached,
                           runs.size(), s.evals.median / s.random.median,
                           s.evals.median / s.random.mean, s.best_ratio.median, secs);
                std::fflush(stdout);
            }
        }
    }
}
