// Embedding ktune's tuned configs: look the winner of `ktune tune <op>` up in the cache (exact
// key, else nearest bucket, else the op's default: the tier is printed), compile it with NVRTC
// (the cubin cache makes that a file read) and run it with worker::run_config: checked against
// the reference and timed.
//
//   ktune tune softmax --shape 8192x8192 --dtype bf16 --cache tuned.json
//   example_tuned_launch tuned.json softmax 8192x8192 bf16
#include "ktune/cache/index.hpp"
#include "ktune/core/error.hpp"
#include "ktune/tune/tuner.hpp"
#include "ktune/worker/run_config.hpp"

#include <cstdio>
#include <string>

using namespace ktune;

int main(int argc, char** argv) {
    // The example is its own worker process: a faulting kernel cannot take the caller down.
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s CACHE.json OP ROWSxCOLS fp32|bf16\n", argv[0]);
        return 2;
    }
    try {
        tune::tune_request rq;
        rq.op = argv[2];
        rq.prob = {ops::parse_shape(argv[3]), ops::parse_dtype(argv[4])};
        const ops::op& o = ops::find_op(rq.op);

        // Load once at start-up; each lookup is then a hash probe (no search, no GPU work).
        const auto idx = cache::cache_index::load(argv[1]);
        const config fallback = o.default_config(rq.prob);
        const auto hit = idx.lookup(tune::tune_key(rq), &fallback);
        std::printf("%s %s %s: tier %s, config %s\n", argv[2], argv[3], argv[4],
                    std::string(cache::to_string(hit.tier)).c_str(), hit.cfg->to_string().c_str());

        const auto env = cache::environment::current();
        if (!env.has_gpu()) {
            std::fprintf(stderr, "no CUDA GPU: the lookup above is all that runs here\n");
            return 2;
        }
        // Compiled through the cubin cache (a file read after the tune), checked and timed in
        // a ktune-worker process: a faulting kernel cannot take this program down.
        worker::run_options opts;
        opts.arch = env.arch;
        const auto r = worker::run_config(o, *hit.cfg, rq.prob, opts);
        if (r.status != measure::run_status::ok) {
            std::fprintf(stderr, "run failed: %s: %s\n",
                         std::string(measure::to_string(r.status)).c_str(), r.message.c_str());
            return 1;
        }
        const double gbs = o.bytes(rq.prob) / (r.median_ms * 1e6);
        std::printf("checked (max error %.3g), median %.4f ms [%.4f, %.4f], %.0f GB/s%s\n",
                    r.max_error, r.median_ms, r.ci_lo_ms, r.ci_hi_ms, gbs,
                    hit.hit ? "" : " (untuned default)");
        if (hit.hit)
            std::printf("tuned on %s: median %.4f ms\n", hit.hit->origin.gpu_name.c_str(),
                        hit.hit->time.median_us / 1000);
        return 0;
    } catch (const error& e) {
        std::fprintf(stderr, "%s error: %s\n", std::string(to_string(e.kind())).c_str(), e.what());
        return 2;
    }
}
