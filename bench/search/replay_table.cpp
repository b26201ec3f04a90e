// bench_search_replay SPACE... [--strategies a,b] [--repeat R] [--budget N] [--seed S]
//                     [--trace SEED]
// Median evaluations to 1.05x optimum of every strategy on every recorded space, and the ratio
// to the random-search expectation (N+1)/(K+1). Prints one TSV line per (space, strategy) so
// run.sh can merge it with Kernel Tuner's numbers.
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
    std::size_t repeat = 20, budget = 0;
    std::uint64_t seed = 0;
    std::uint64_t trace = 0; // --trace SEED: every evaluation of one run (seed SEED), to debug
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--repeat" && i + 1 < argc)
            repeat = std::stoul(argv[++i]);
        else if (a == "--budget" && i + 1 < argc)
            budget = std::stoul(argv[++i]);
        else if (a == "--seed" && i + 1 < argc)
            seed = std::stoull(argv[++i]);
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
    fmt::print("space\tstrategy\tN\tK\trandom_expectation\tmedian_evals\tq1\tq3\treached\truns\t"
               "ratio_to_random\tbest_over_opt\tseconds\n");
    for (const auto& f : files) {
        const auto rec = load_recorded_space(f);
        std::string space = f.substr(f.find_last_of('/') + 1);
        space = space.substr(0, space.find('.'));
        for (const auto& n : names) {
            if (trace) {
                auto sr = make_searcher(n);
                const double opt = rec.optimum();
                search_options so;
                so.budget = budget ? budget : 1000;
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
            replay_options o;
            o.strategy = n;
            o.budget = budget;
            o.seed = seed;
            const auto t0 = std::chrono::steady_clock::now();
            const auto runs =
                replay_repeat(rec, o, repeat, std::max(1u, std::thread::hardware_concurrency()));
            const double secs =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const auto s = summarize(rec, o, runs);
            fmt::print(
                "{}\t{}\t{}\t{}\t{:.1f}\t{:.1f}\t{:.1f}\t{:.1f}\t{}\t{}\t{:.3f}\t{:.4f}\t{:.2f}\n",
                space, n, s.valid, s.within, s.random_expectation, s.evals.median, s.evals.q1,
                s.evals.q3, s.reached, runs.size(), s.evals.median / s.random_expectation,
                s.best_ratio.median, secs);
            std::fflush(stdout);
        }
    }
}
