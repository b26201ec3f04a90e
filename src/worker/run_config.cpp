#include "ktune/worker/run_config.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/worker/worker.hpp"

#include <fmt/format.h>

namespace ktune::worker {

measure::candidate_result run_config(const ops::op& op, const config& cfg, const ops::problem& prob,
                                     const run_options& o) {
    std::string why;
    if (!op.valid(cfg, prob, &why))
        throw error(error_kind::usage,
                    fmt::format("{} rejects {} for {}: {}", op.name(), cfg.to_string(),
                                ops::to_string(prob.shape), why));
    std::string arch = o.arch;
    if (arch.empty()) {
        const device_query q = query_devices();
        if (q.devices.empty())
            throw error(error_kind::no_device, "no CUDA GPU to run on (and no arch given)");
        arch = q.devices.front().arch();
    }
    const compile::cubin_cache cubins(o.cubin_dir.empty() ? compile::cubin_cache::default_dir()
                                                          : o.cubin_dir);
    const compile::compile_result bin = compile::compile_cached(
        {op.source(cfg, prob), std::string(ops::kernel_name), arch, {}}, &cubins);
    if (!bin.ok)
        throw error(error_kind::nvrtc, fmt::format("{} {} does not compile:\n{}", op.name(),
                                                   cfg.to_string(), bin.log));
    measure::candidate_request rq;
    rq.op = std::string(op.name());
    rq.rows = prob.shape.rows;
    rq.cols = prob.shape.cols;
    rq.dtype = std::string(ops::to_string(prob.type));
    rq.cfg = cfg;
    rq.cubin_path = bin.cubin_path.string();
    rq.kernel = bin.lowered_name;
    rq.seed = o.seed;
    rq.check = o.check;
    rq.time = o.time;
    rq.policy = o.policy;
    worker_process w(o.worker_command.empty() ? default_worker_command() : o.worker_command);
    return w.run(rq, o.timeout);
}

} // namespace ktune::worker
