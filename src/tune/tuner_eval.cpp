#include "tune/tuner_eval.hpp"

#include "ktune/core/error.hpp"
#include "tune/tuner_faults.hpp"

#include <chrono>

namespace ktune::tune::detail {
namespace {

using clock_type = std::chrono::steady_clock;

eval_status to_eval(measure::run_status s) {
    switch (s) {
    case measure::run_status::ok:
        return eval_status::ok;
    case measure::run_status::wrong_result:
        return eval_status::wrong_result;
    case measure::run_status::timeout:
        return eval_status::timeout;
    case measure::run_status::resource_limit:
        return eval_status::resource_limit;
    case measure::run_status::launch_error:
    case measure::run_status::worker_died:
    case measure::run_status::load_error:
        return eval_status::launch_error;
    }
    return eval_status::launch_error;
}

std::optional<compile::cubin_cache> make_cache() {
    try {
        return compile::cubin_cache(compile::cubin_cache::default_dir());
    } catch (const error&) {
        return std::nullopt; // unwritable cache dir: compile every time (in threads)
    }
}

compile::compile_pool_options pool_options(const tune_request& rq) {
    compile::compile_pool_options o;
    o.workers = rq.compile_threads;
    o.mode =
        rq.compile_processes ? compile::compile_mode::processes : compile::compile_mode::threads;
    o.server_command = rq.worker_command; // empty: this executable, like the worker
    o.lazy_servers = rq.lazy_compile_servers;
    return o;
}

} // namespace

runtime::runtime(const tune_request& rq)
    : worker(rq.worker_command.empty() ? worker::default_worker_command() : rq.worker_command,
             rq.keep_worker_s),
      // The worker sets up its GPU context while the compile servers start and compile.
      pool((worker.start(), pool_options(rq)), make_cache()) {}

evaluator::evaluator(const tune_request& rq, const ops::op& o, runtime* shared)
    : rq_(rq), op_(o), own_(shared ? nullptr : std::make_unique<runtime>(rq)),
      rt_(shared ? *shared : *own_) {
    // A session's worker left with requests in flight (a tune that ended in an exception)
    // would answer them to this tune: it is replaced instead.
    if (rt_.worker.in_flight() > 0) rt_.worker.restart();
    // The problem goes ahead of the first candidate: the worker allocates its buffers as soon
    // as its context is up, while the baseline still compiles.
    measure::candidate_request p;
    p.op = std::string(op_.name());
    p.rows = rq_.prob.shape.rows;
    p.cols = rq_.prob.shape.cols;
    p.dtype = std::string(ops::to_string(rq_.prob.type));
    if (rq.prepare_worker)
        rt_.worker.prepare(p);
    else
        rt_.worker.start();
    spawned_before_ = rt_.worker.spawned() - 1; // the worker it starts on counts as its own
    servers_before_ = shared ? rt_.pool.servers_started() : 0;
    failures_before_ = shared ? rt_.pool.server_failures() : 0;
}

void evaluator::precompile(const std::string& source) {
    // The same request as the worker's (gpu_runner.cpp, compile_load): same cache key.
    (void)rt_.pool.submit({source, std::string(ops::kernel_name), arch_, {}});
}

compile::compile_request evaluator::request(const config& c, injected_fault f) const {
    return {inject(f) + op_.source(c, rq_.prob), std::string(ops::kernel_name), arch_, {}};
}

std::future<compile::compile_result> evaluator::submit(const config& c, injected_fault f) {
    return rt_.pool.submit(request(c, f));
}

std::vector<std::future<compile::compile_result>>
evaluator::submit_all(const std::vector<config>& cs, const std::vector<injected_fault>& fs,
                      std::size_t per_program) {
    std::vector<std::future<compile::compile_result>> out;
    for (std::size_t i = 0; i < cs.size(); i += per_program) {
        std::vector<compile::compile_request> group;
        for (std::size_t k = i; k < std::min(cs.size(), i + per_program); ++k)
            group.push_back(request(cs[k], fs[k]));
        for (auto& f : rt_.pool.submit_batch(std::move(group)))
            out.push_back(std::move(f));
    }
    return out;
}

candidate_record evaluator::compiled(const config& c, injected_fault f,
                                     std::future<compile::compile_result>& fut,
                                     measure::candidate_request& out) {
    candidate_record rec;
    rec.cfg = c;
    rec.injected = f;
    const auto t0 = clock_type::now();
    const compile::compile_result cr = fut.get();
    compile_wait_s_ += std::chrono::duration<double>(clock_type::now() - t0).count();
    rec.compile_ms = cr.compile_ms;
    rec.cubin_cache_hit = cr.cache_hit;
    if (!cr.ok) {
        rec.status = eval_status::compile_error;
        rec.message = cr.log;
        return rec;
    }
    measure::candidate_request& r = out;
    r.op = std::string(op_.name());
    r.rows = rq_.prob.shape.rows;
    r.cols = rq_.prob.shape.cols;
    r.dtype = std::string(ops::to_string(rq_.prob.type));
    r.cfg = c;
    r.cubin_path = cr.cubin_path.string();
    r.kernel = cr.lowered_name;
    r.seed = rq_.seed * 1000003ULL + (++requests_);
    r.policy = policy_override_ ? *policy_override_ : rq_.policy;
    return rec;
}

void evaluator::receive(candidate_record& rec) {
    rec.run = rt_.worker.collect(rq_.candidate_timeout);
    worker_setup_s_ += rec.run.setup_ms / 1000;
    if (!rec.run.device_uuid.empty()) worker_uuid_ = rec.run.device_uuid;
    if (worker_marks_.empty() && !rec.run.setup_marks.empty()) {
        worker_marks_.emplace_back("spawn", rt_.worker.spawned_at_ms());
        worker_marks_.insert(worker_marks_.end(), rec.run.setup_marks.begin(),
                             rec.run.setup_marks.end());
    }
    rec.status = to_eval(rec.run.status);
    rec.message = rec.run.message;
}

candidate_record evaluator::finish(const config& c, injected_fault f,
                                   std::future<compile::compile_result>& fut) {
    measure::candidate_request r;
    candidate_record rec = compiled(c, f, fut, r);
    if (rec.status == eval_status::compile_error) return rec;
    send(r);
    receive(rec);
    return rec;
}

measure::candidate_result evaluator::remeasure(const config& c, const measure::measure_policy& p) {
    auto f = submit(c, injected_fault::none);
    policy_override_ = p;
    candidate_record r = finish(c, injected_fault::none, f);
    policy_override_.reset();
    return r.run;
}

} // namespace ktune::tune::detail
