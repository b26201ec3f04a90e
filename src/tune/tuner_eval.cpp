#include "tune/tuner_eval.hpp"

#include "ktune/core/error.hpp"

#include <chrono>
#include <cstdlib>
#include <deque>
#include <list>

#include <fmt/format.h>

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

std::vector<std::string> worker_command_for(const tune_request& rq, int ordinal) {
    auto cmd = rq.worker_command.empty() ? worker::default_worker_command() : rq.worker_command;
    if (ordinal < 0) return cmd;
    // The ordinal counts this process's devices: under CUDA_VISIBLE_DEVICES=2,3, GPU 1 is "3".
    std::string visible = std::to_string(ordinal);
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && *v) {
        std::vector<std::string> items;
        std::string cur;
        for (const char* c = v;; ++c) {
            if (*c == ',' || *c == 0) {
                items.push_back(cur);
                cur.clear();
                if (*c == 0) break;
            } else {
                cur += *c;
            }
        }
        if (static_cast<std::size_t>(ordinal) < items.size())
            visible = items[static_cast<std::size_t>(ordinal)];
    }
    std::vector<std::string> out{"/usr/bin/env", "CUDA_VISIBLE_DEVICES=" + visible,
                                 fmt::format("KTUNE_GPU_ORDINAL={}", ordinal)};
    out.insert(out.end(), cmd.begin(), cmd.end());
    return out;
}

std::shared_ptr<compile::compile_pool> make_compile_pool(const tune_request& rq) {
    return std::make_shared<compile::compile_pool>(pool_options(rq), make_cache());
}

runtime::runtime(const tune_request& rq, std::shared_ptr<compile::compile_pool> shared) {
    const std::vector<int> ordinals = rq.gpus.empty() ? std::vector<int>{-1} : rq.gpus;
    // A kept worker serves the default device only (worker.hpp): several GPUs start their own.
    const int keep = ordinals.size() == 1 && ordinals.front() < 0 ? rq.keep_worker_s : 0;
    for (int g : ordinals) {
        gpu_worker w;
        w.ordinal = g;
        w.proc = std::make_unique<worker::worker_process>(worker_command_for(rq, g), keep);
        // Each worker sets up its GPU context while the compile servers start and compile.
        w.proc->start();
        workers.push_back(std::move(w));
    }
    pool = shared ? std::move(shared) : make_compile_pool(rq);
}

process_evaluator::process_evaluator(const tune_request& rq, tune_target& t, runtime* shared)
    : rq_(rq), target_(t), own_(shared ? nullptr : std::make_unique<runtime>(rq)),
      rt_(shared ? *shared : *own_), worker_uuid_(rt_.workers.size()) {
    measure::candidate_request p;
    const bool prepare = rq.prepare_worker && target_.prepare_request(p);
    for (auto& w : rt_.workers) {
        // A session's worker left with requests in flight (a tune that ended in an exception)
        // would answer them to this tune: it is replaced instead.
        if (w.proc->in_flight() > 0) w.proc->restart();
        // The problem goes ahead of the first candidate: the worker allocates its buffers as
        // soon as its context is up, while the baseline still compiles.
        if (prepare)
            w.proc->prepare(p);
        else
            w.proc->start();
        spawned_before_ += w.proc->spawned() - 1; // the worker it starts on counts as its own
    }
    servers_before_ = shared ? rt_.pool->servers_started() : 0;
    failures_before_ = shared ? rt_.pool->server_failures() : 0;
}

void process_evaluator::compile_reference() {
    auto fut = rt_.pool->submit(target_.reference_request(arch_));
    if (!target_.needs_reference_result()) return;
    const auto t0 = clock_type::now();
    const compile::compile_result r = fut.get();
    compile_wait_s_ += std::chrono::duration<double>(clock_type::now() - t0).count();
    if (!r.ok)
        throw error(error_kind::nvrtc,
                    fmt::format("the reference kernel of {} does not compile:\n{}",
                                target_.labels().to_string(), r.log));
    if (r.cubin_path.empty())
        throw error(error_kind::unsupported,
                    "a user kernel's reference travels to the worker through the cubin cache: "
                    "set KTUNE_CUBIN_CACHE to a writable directory");
    target_.set_reference(r);
}

std::size_t process_evaluator::batch_size() const {
    // Two candidates per compile thread and batch, compiled as one NVRTC program per thread
    // (compile_batch: NVRTC's fixed cost per program paid once for the two).
    return 2 * rt_.pool->threads();
}

compile::compile_request process_evaluator::request(const config& c, injected_fault f) const {
    return target_.compile_request(c, arch_, f);
}

namespace {
struct process_batch final : candidate_evaluator::batch {
    std::vector<candidate_record> recs;
    std::vector<std::future<compile::compile_result>> futures;
};
} // namespace

std::unique_ptr<candidate_evaluator::batch>
process_evaluator::start(std::vector<candidate_record> cands) {
    auto b = std::make_unique<process_batch>();
    std::vector<compile::compile_request> rs;
    rs.reserve(cands.size());
    for (const auto& c : cands)
        rs.push_back(request(c.cfg, c.injected));
    // Configs that differ only in template arguments share a program (NVRTC's fixed cost per
    // program paid once, docs/perf/kernel.md#compile-cost-per-candidate); futures stay in
    // candidate order. A batch no larger than the pool (a learning strategy's, capped:
    // docs/perf/search.md#live-batches) compiles one candidate a program: it waits for its
    // slowest program, and the pool has the threads.
    b->futures.resize(cands.size());
    const std::size_t per_program =
        cands.size() <= rt_.pool->threads() ? 1 : rq_.candidates_per_program;
    for (const auto& g : compile::program_groups(rs, per_program)) {
        std::vector<compile::compile_request> group;
        group.reserve(g.size());
        for (std::size_t k : g)
            group.push_back(std::move(rs[k]));
        auto fs = rt_.pool->submit_batch(std::move(group));
        for (std::size_t k = 0; k < g.size(); ++k)
            b->futures[g[k]] = std::move(fs[k]);
    }
    b->recs = std::move(cands);
    return b;
}

void process_evaluator::compiled(candidate_record& rec, std::future<compile::compile_result>& fut,
                                 measure::candidate_request& out) {
    const auto t0 = clock_type::now();
    const compile::compile_result cr = fut.get();
    compile_wait_s_ += std::chrono::duration<double>(clock_type::now() - t0).count();
    if (!compiled_once_ && mark) mark("baseline_compiled");
    compiled_once_ = true;
    rec.compile_ms = cr.compile_ms;
    rec.cubin_cache_hit = cr.cache_hit;
    if (!cr.ok) {
        rec.status = eval_status::compile_error;
        rec.message = cr.log;
        return;
    }
    target_.describe(rec.cfg, out);
    out.cubin_path = cr.cubin_path.string();
    out.kernel = cr.lowered_name;
    out.seed = rq_.seed * 1000003ULL + (++requests_);
    out.policy = policy_override_ ? *policy_override_ : rq_.policy;
}

void process_evaluator::receive(candidate_record& rec, std::size_t w) {
    gpu_worker& gw = rt_.workers[w];
    rec.run = gw.proc->collect(rq_.candidate_timeout);
    rec.gpu = gw.ordinal;
    worker_setup_s_ += rec.run.setup_ms / 1000;
    if (!rec.run.device_uuid.empty()) worker_uuid_[w] = rec.run.device_uuid;
    if (w == 0 && worker_marks_.empty() && !rec.run.setup_marks.empty()) {
        worker_marks_.emplace_back("spawn", gw.proc->spawned_at_ms());
        worker_marks_.insert(worker_marks_.end(), rec.run.setup_marks.begin(),
                             rec.run.setup_marks.end());
    }
    rec.status = to_eval(rec.run.status);
    rec.message = rec.run.message;
    // ktune's own kills are timeouts (run_status::timeout); a SIGKILL from outside (an
    // operator, the OOM killer) takes the GPU out of a multi-GPU run.
    if (rt_.lose_gpu_on_kill && rec.run.status == measure::run_status::worker_died &&
        rec.run.message.find("killed by signal 9") != std::string::npos)
        throw error(error_kind::cuda, fmt::format("the worker of GPU {} was killed ({}): its "
                                                  "tunes move to the other GPUs",
                                                  gw.ordinal, rec.run.message));
}

std::size_t process_evaluator::submit_to_least_busy(const measure::candidate_request& r) {
    std::size_t w = 0;
    for (std::size_t k = 1; k < rt_.workers.size(); ++k)
        if (rt_.workers[k].proc->in_flight() < rt_.workers[w].proc->in_flight()) w = k;
    rt_.workers[w].proc->submit(r);
    return w;
}

void process_evaluator::measure(batch& base, const std::function<void(candidate_record)>& done) {
    auto& b = static_cast<process_batch&>(base);
    const std::size_t n = b.recs.size();
    std::vector<bool> ready(n, false);
    std::size_t emitted = 0;
    const auto emit = [&] {
        while (emitted < n && ready[emitted])
            done(std::move(b.recs[emitted++]));
    };
    // Compiled candidates are queued to the workers as they arrive, up to two in flight on
    // each, so a worker goes from one candidate to the next without waiting for this process;
    // a candidate goes to the worker with the fewest in flight.
    std::deque<std::pair<std::size_t, std::size_t>> queued; // (candidate, worker), send order
    const std::size_t depth = 2 * rt_.workers.size();
    const auto receive_oldest = [&] {
        const auto [i, w] = queued.front();
        queued.pop_front();
        receive(b.recs[i], w);
        ready[i] = true;
        emit();
    };
    for (std::size_t i = 0; i < n; ++i) {
        measure::candidate_request r;
        compiled(b.recs[i], b.futures[i], r);
        if (b.recs[i].status == eval_status::compile_error) {
            ready[i] = true;
            emit();
            continue;
        }
        while (queued.size() >= depth)
            receive_oldest();
        queued.emplace_back(i, submit_to_least_busy(r));
    }
    while (!queued.empty())
        receive_oldest();
}

void process_evaluator::stream(std::size_t window, std::unique_ptr<batch> first,
                               const next_candidates& next,
                               const std::function<void(candidate_record)>& done) {
    struct compiling {
        candidate_record rec;
        std::future<compile::compile_result> fut;
    };
    std::list<compiling> pending;                                // proposal order
    std::deque<std::pair<candidate_record, std::size_t>> queued; // (record, worker), send order
    if (first) {
        auto& b = static_cast<process_batch&>(*first);
        for (std::size_t i = 0; i < b.recs.size(); ++i)
            pending.push_back({std::move(b.recs[i]), std::move(b.futures[i])});
    }
    bool more = true;
    const auto refill = [&] {
        while (more && pending.size() + queued.size() < window) {
            auto recs = next(window - pending.size() - queued.size());
            more = !recs.empty();
            for (auto& r : recs) {
                auto fut = rt_.pool->submit(request(r.cfg, r.injected));
                pending.push_back({std::move(r), std::move(fut)});
            }
        }
    };
    const auto receive_oldest = [&] {
        auto [rec, w] = std::move(queued.front());
        queued.pop_front();
        receive(rec, w);
        done(std::move(rec));
        refill();
    };
    // Up to two candidates in flight on each worker (as in measure); a compile that is done
    // goes to the worker with the fewest, whatever its place in the proposal order.
    const std::size_t depth = 2 * rt_.workers.size();
    refill();
    while (!pending.empty() || !queued.empty()) {
        bool sent = false;
        for (auto it = pending.begin(); it != pending.end() && queued.size() < depth;) {
            if (it->fut.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
                ++it;
                continue;
            }
            measure::candidate_request r;
            compiled(it->rec, it->fut, r);
            candidate_record rec = std::move(it->rec);
            it = pending.erase(it);
            sent = true;
            if (rec.status == eval_status::compile_error) {
                done(std::move(rec));
                refill();
                continue;
            }
            queued.emplace_back(std::move(rec), submit_to_least_busy(r));
        }
        if (sent) continue;
        if (!queued.empty()) {
            receive_oldest(); // a GPU result takes milliseconds; a compile, 0.1-2 s
        } else if (!pending.empty()) {
            // std::future has no wait-for-any: a 1 ms poll, against compiles of 40 ms and more.
            const auto t0 = clock_type::now();
            pending.front().fut.wait_for(std::chrono::milliseconds(1));
            compile_wait_s_ += std::chrono::duration<double>(clock_type::now() - t0).count();
        }
    }
}

std::vector<candidate_record> process_evaluator::remeasure(const config& c,
                                                           const measure::measure_policy& p) {
    // The cubin cache answers the compile; the same request goes to every worker at once, so
    // the GPUs time it side by side.
    candidate_record proto;
    proto.cfg = c;
    auto fut = rt_.pool->submit(request(c, injected_fault::none));
    measure::candidate_request r;
    policy_override_ = p;
    compiled(proto, fut, r);
    policy_override_.reset();
    std::vector<candidate_record> out(rt_.workers.size(), proto);
    if (proto.status == eval_status::compile_error) return out;
    for (auto& w : rt_.workers)
        w.proc->submit(r);
    for (std::size_t w = 0; w < rt_.workers.size(); ++w)
        receive(out[w], w);
    return out;
}

void process_evaluator::fill_stats(tune_report& rep) const {
    rep.compile_wait_s = compile_wait_s_;
    int spawned = 0;
    for (const auto& w : rt_.workers)
        spawned += w.proc->spawned();
    rep.workers_spawned = spawned - spawned_before_;
    rep.worker_kept = rt_.workers.front().proc->kept();
    rep.keep_note = rt_.workers.front().proc->keep_note();
    rep.compile_servers = rt_.pool->servers_started() - servers_before_;
    rep.compile_server_failures = rt_.pool->server_failures() - failures_before_;
    rep.worker_setup_s = worker_setup_s_;
}

} // namespace ktune::tune::detail
