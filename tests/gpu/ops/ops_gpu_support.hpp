#pragma once
// The GPU op tests' runner: compile each job's config like the tuner does (cubin cache, pool),
// run it in a worker process and check it against the op's reference kernel.
#include "ktune/compile/compile.hpp"
#include "ktune/ops/op.hpp"
#include "ktune/worker/worker.hpp"

#include "catch.hpp"

#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace ktune::ops::gpu_test {

struct job {
    const ops::op* op;
    ops::problem prob;
    config cfg;
};

/// Compiles every job, runs it once in a worker and requires the reference check to pass.
inline void check_all(const std::vector<job>& jobs) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("ktune_gpu_kernels_" + std::to_string(getpid()));
    compile::compile_pool pool(0, compile::cubin_cache(dir));
    std::vector<std::future<compile::compile_result>> compiled;
    for (const auto& j : jobs)
        compiled.push_back(
            pool.submit({j.op->source(j.cfg, j.prob), std::string(ops::kernel_name), "sm_90", {}}));
    worker::worker_process w(worker::default_worker_command());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const auto& j = jobs[i];
        const auto c = compiled[i].get();
        INFO(j.op->name() << " " << ops::to_string(j.prob.type) << " "
                          << ops::to_string(j.prob.shape) << " " << j.cfg.to_string());
        REQUIRE(c.ok);
        measure::candidate_request r;
        r.op = std::string(j.op->name());
        r.rows = j.prob.shape.rows;
        r.cols = j.prob.shape.cols;
        r.dtype = std::string(ops::to_string(j.prob.type));
        r.cfg = j.cfg;
        r.cubin_path = c.cubin_path.string();
        r.kernel = c.lowered_name;
        r.seed = i + 1;
        r.time = false;
        const auto res = w.run(r, std::chrono::seconds(10));
        INFO(res.message);
        CHECK(res.status == measure::run_status::ok);
    }
    std::filesystem::remove_all(dir);
}

} // namespace ktune::ops::gpu_test
