#include "ktune/tune/tuner.hpp"

#include "ktune/cache/index.hpp"
#include "ktune/cache/shared_tier.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/tune/space.hpp"
#include "ktune/worker/worker.hpp"
#include "tune/tuner_device.hpp"
#include "tune/tuner_eval.hpp"
#include "tune/tuner_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace ktune::tune {
namespace {

using clock_type = std::chrono::steady_clock;
using detail::process_evaluator;

} // namespace

namespace {
/// The key of `target` (rq's) on the device `q` found (what environment::current() derives,
/// from a query made). The target derives it: a user kernel's spec and sources are read and
/// hashed once per tune, not once per key.
cache::cache_key key_for(const detail::tune_target& target, const tune_request& rq,
                         const device_query& q) {
    if (q.devices.empty())
        throw error(error_kind::no_device,
                    fmt::format("no CUDA GPU for a cache key: {}", q.no_device_reason));
    cache::environment env;
    // With several GPUs the first names the arch (parse_gpus lets GPUs of one kind only).
    const std::size_t first =
        rq.gpus.empty() ? 0 : static_cast<std::size_t>(std::max(0, rq.gpus.front()));
    env.arch = q.devices.at(std::min(first, q.devices.size() - 1)).arch();
    env.toolkit = q.versions.runtime;
    env.driver_major = q.versions.driver_major();
    return target.key(env);
}

/// Whether the index holds any entry this tune's key could match, judged without the device
/// (every key field but the environment's): when none does, the tune is a certain miss and the
/// worker can start before this process's own CUDA start-up.
bool may_hit(const cache::cache_index& idx, const detail::tune_target& target) {
    const cache::cache_key k = target.key(cache::environment{});
    return std::any_of(idx.entries().begin(), idx.entries().end(), [&](const cache::entry& e) {
        return e.key.op == k.op && e.key.op_version == k.op_version && e.key.dtype == k.dtype &&
               e.key.bucket == k.bucket && e.key.protocol == k.protocol;
    });
}
} // namespace

namespace {
std::unique_ptr<cache::shared_tier> shared_tier_for(const tune_request& rq) {
    if (rq.shared_cache.empty()) return nullptr;
    cache::shared_tier_options so;
    so.url = rq.shared_cache;
    return std::make_unique<cache::shared_tier>(so);
}

// The exact entry for `key`: from the file, else from the shared tier (then stored in the file).
std::optional<cache::entry> exact_hit(const tune_request& rq, const cache::cache_index& idx,
                                      const std::filesystem::path& file,
                                      const cache::cache_key& key) {
    const cache::prepared_key pk(key);
    if (const cache::entry* e = idx.find(pk)) return *e;
    const auto shared = shared_tier_for(rq);
    if (!shared) return std::nullopt;
    auto r = cache::lookup_through(file, idx, *shared, pk);
    if (r.tier == cache::lookup_tier::exact && r.hit) return r.hit;
    return std::nullopt;
}
} // namespace

cache::cache_key tune_key(const tune_request& rq, const cache::environment& env) {
    return detail::make_target(rq, "")->key(env);
}

cache::cache_key tune_key(const tune_request& rq) {
    return key_for(*detail::make_target(rq, ""), rq, detail::device_query_cached());
}

std::optional<tune_report> cached_tune(const tune_request& rq) {
    if (!rq.read_cache) return std::nullopt;
    const auto target = detail::make_target(rq, "");
    const auto file = rq.cache_file.empty() ? cache::default_cache_path() : rq.cache_file;
    const auto idx = cache::cache_index::load(file);
    auto e = exact_hit(rq, idx, file, key_for(*target, rq, detail::device_query_cached()));
    if (!e) return std::nullopt;
    tune_report rep;
    rep.cache_hit = true;
    rep.winner = std::move(*e);
    rep.strategy = rq.strategy;
    rep.bytes = target->bytes();
    return rep;
}

namespace {
tune_report run_tune(const tune_request& rq, const tune_progress& progress,
                     detail::runtime* shared);
}

tune_report tune_op(const tune_request& rq, const tune_progress& progress) {
    return run_tune(rq, progress, nullptr);
}

tune_report detail::tune_on(const tune_request& rq, const tune_progress& progress, runtime* rt) {
    return run_tune(rq, progress, rt);
}

tune_session::tune_session(const tune_request& setup)
    : rt_(std::make_unique<detail::runtime>(setup)) {}
tune_session::~tune_session() = default;

tune_report tune_session::tune(const tune_request& rq, const tune_progress& progress) {
    return run_tune(rq, progress, rt_.get());
}

namespace {
tune_report run_tune(const tune_request& rq, const tune_progress& progress,
                     detail::runtime* shared) {
    const auto t0 = clock_type::now();
    // A bad spec or problem is reported before any process starts.
    const auto target = detail::make_target(rq, "");
    tune_report rep;
    rep.began = t0;
    rep.strategy = rq.strategy;
    rep.gpus = rq.gpus;
    const auto cache_path = rq.cache_file.empty() ? cache::default_cache_path() : rq.cache_file;
    const auto since_t0 = [&t0] {
        return std::chrono::duration<double>(clock_type::now() - t0).count();
    };
    const auto mark = [&](const char* what) { rep.setup_marks.emplace_back(what, since_t0()); };
    std::optional<cache::cache_index> idx;
    if (rq.read_cache) idx = cache::cache_index::load(cache_path);
    // The workers (GPU contexts) and the compile pool start first, so their set-up overlaps
    // this process's own CUDA start-up (the device query the cache key needs) and everything
    // until the baseline; only a tune the cache might answer queries the device first (a hit
    // then never starts a worker).
    std::optional<process_evaluator> evo;
    const auto start_processes = [&] {
        evo.emplace(rq, *target, shared);
        mark("processes_started");
    };
    if (rq.early_worker && (!idx || !may_hit(*idx, *target))) start_processes();
    // From this boot's record when there is one: this process then starts no driver client
    // of its own beside the workers' (cuInit, NVML).
    bool recorded = false;
    std::filesystem::path record;
    const auto q =
        rq.device_record ? detail::device_query_cached(&recorded, &record) : query_devices();
    const cache::cache_key key = key_for(*target, rq, q);
    mark(recorded ? "device_record" : "device_query");
    if (idx)
        if (auto e = exact_hit(rq, *idx, cache_path, key)) {
            rep.cache_hit = true;
            rep.winner = std::move(*e);
            rep.wall_s = since_t0();
            return rep;
        }
    if (!evo) start_processes();
    process_evaluator& ev = *evo;
    const auto device_of = [&q](int ordinal) -> const device_info& {
        return q.devices.at(static_cast<std::size_t>(std::max(0, ordinal)));
    };
    const device_info& dev = device_of(rq.gpus.empty() ? -1 : rq.gpus.front());
    ev.set_arch(dev.arch());
    target->set_arch(dev.arch());
    rep.bytes = target->bytes();
    ev.compile_reference();
    // From the per-device file when it is fresh: this process then needs no CUDA context.
    rep.copy_gbs =
        copy_gbs_for(dev, q.versions.driver, &rep.copy_gbs_cached, copy_roof_bytes(rep.bytes));
    mark("copy_gbs");
    ev.mark = mark;
    ev.on_baseline = [&](tune_report& r) {
        r.setup_s = since_t0();
        mark("baseline");
        // The record must describe the GPUs the workers found; a stale one (a GPU swapped
        // without a reboot) is removed, and this tune's cubins may be for the wrong arch.
        for (std::size_t w = 0; w < ev.workers().size(); ++w) {
            const std::string& found = ev.worker_devices()[w];
            const device_info& want = device_of(ev.workers()[w].ordinal);
            if (!recorded || found.empty() || found == want.uuid) continue;
            std::error_code ec;
            std::filesystem::remove(record, ec);
            throw error(error_kind::unsupported,
                        fmt::format("the recorded GPU {} is not the worker's {} ({} removed): "
                                    "run the tune again",
                                    want.uuid, found, record.string()));
        }
        // The worker's milestones on this tune's timeline (steady_clock is one clock for both).
        const double t0_ms =
            std::chrono::duration<double, std::milli>(t0.time_since_epoch()).count();
        for (const auto& [what, at_ms] : ev.worker_marks())
            r.setup_marks.emplace_back("worker:" + what, (at_ms - t0_ms) / 1000);
    };

    const space sp = target->make_space();
    const bool found = detail::run_search(rq, sp, target->default_config(), ev, rep, progress);
    ev.fill_stats(rep);
    rep.wall_s = since_t0();
    if (!found) return rep; // nothing passed: the caller reports every status
    detail::file_winner(rep, rq, key, dev, cache_path);
    return rep;
}

} // namespace

} // namespace ktune::tune
