// Op entries and cache re-validation for a bench suite, on the tuner's runtime: the op's NVRTC
// source compiled through the cubin cache (a tuned config compiles nothing again), timed by a
// worker process under the measurement protocol (warm-up, L2 flushed before every launch,
// event-timed launches, correctness checked first). A kernel fault kills the worker, never
// the bench; the entry then fails with the worker's reason.
#include "ktune/guard/op_runtime.hpp"

#include "ktune/cache/index.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/guard/compare.hpp"
#include "ktune/ops/op.hpp"
#include "ktune/tune/space.hpp"
#include "ktune/tune/tuner.hpp"
#include "ktune/worker/worker.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

namespace ktune::guard {
namespace {

ops::problem problem_of(const guard::op_entry& e, const std::vector<std::int64_t>& shape) {
    if (shape.size() != 2)
        throw error(error_kind::input,
                    fmt::format("op '{}': shape {} needs two dimensions (rows, cols)", e.op,
                                fmt::join(shape, "x")));
    return {{shape[0], shape[1]}, ops::parse_dtype(e.dtype)};
}

class op_runtime {
public:
    op_runtime(device_info dev, std::string cache_path)
        : dev_(std::move(dev)), cache_path_(std::move(cache_path)),
          cubins_(compile::cubin_cache::default_dir()), worker_(worker::default_worker_command()) {}

    /// `repeat` per-launch times of one config; throws naming the op, shape and config when it
    /// does not compile, fails its correctness check or faults.
    measure::candidate_result time(const ops::op& o, const ops::problem& p, const config& c,
                                   int repeat) {
        const auto what = [&] {
            return fmt::format("{} {} {} [{}]", o.name(), ops::to_string(p.shape),
                               ops::to_string(p.type), c.to_string());
        };
        std::string why;
        if (!o.valid(c, p, &why))
            throw error(error_kind::input, fmt::format("{}: not a valid config: {}", what(), why));
        const auto cr = compile::compile_cached(
            {o.source(c, p), std::string(ops::kernel_name), dev_.arch(), {}}, &cubins_);
        if (!cr.ok)
            throw error(error_kind::nvrtc,
                        fmt::format("{}: does not compile:\n{}", what(), cr.log.substr(0, 2000)));
        measure::candidate_request rq;
        rq.op = std::string(o.name());
        rq.rows = p.shape.rows;
        rq.cols = p.shape.cols;
        rq.dtype = std::string(ops::to_string(p.type));
        rq.cfg = c;
        rq.cubin_path = cr.cubin_path.string();
        rq.kernel = cr.lowered_name;
        rq.seed = ++requests_;
        // Exactly `repeat` samples: the gate compares distributions of a fixed size, so the
        // tuner's early stop on a tight CI is off (min = max) and the wall cap generous.
        rq.policy.min_samples = rq.policy.max_samples = repeat;
        rq.policy.max_ms = 60'000;
        auto r = worker_.run(rq, std::chrono::seconds(120));
        if (r.status != measure::run_status::ok)
            throw error(error_kind::cuda,
                        fmt::format("{}: {}: {}", what(), measure::to_string(r.status), r.message));
        return r;
    }

    /// The config a program using the cache would launch: exact key, nearest bucket, default.
    std::pair<config, std::string> cached(const ops::op& o, const ops::problem& p) {
        if (!index_)
            index_ = std::make_unique<cache::cache_index>(
                cache::cache_index::load(cache_path_.empty() ? cache::default_cache_path()
                                                             : std::filesystem::path(cache_path_)));
        tune::tune_request rq;
        rq.op = std::string(o.name());
        rq.prob = p;
        const config fallback = o.default_config(p);
        const auto hit = index_->lookup(tune::tune_key(rq), &fallback);
        if (hit.tier == cache::lookup_tier::op_default)
            return {fallback, "default (no cache entry)"};
        // A winner of a neighbouring bucket may break this shape's constraints (registers,
        // divisibility): a program launching from the cache falls back to the default then.
        std::string why;
        if (!o.valid(*hit.cfg, p, &why))
            return {fallback, fmt::format("default (cache {} config invalid here: {})",
                                          cache::to_string(hit.tier), why)};
        return {*hit.cfg, fmt::format("cache {}", cache::to_string(hit.tier))};
    }

    [[nodiscard]] const device_info& device() const noexcept { return dev_; }

private:
    device_info dev_;
    std::string cache_path_;
    compile::cubin_cache cubins_;
    worker::worker_process worker_;
    std::unique_ptr<cache::cache_index> index_;
    std::uint64_t requests_ = 0;
};

guard::op_timing to_timing(const measure::candidate_result& r, const config& c,
                           std::string source) {
    guard::op_timing t;
    t.samples.reserve(r.samples_ms.size());
    for (double ms : r.samples_ms)
        t.samples.push_back(ms * 1e6);
    t.config = c.to_string();
    t.config_source = std::move(source);
    if (r.clocks_known) {
        t.sm_clock_mhz = r.clocks.sm_mhz;
        t.memory_clock_mhz = r.clocks.memory_mhz;
        t.throttle_reasons = r.clocks.throttle_reasons;
    }
    return t;
}

/// What a cached winner is re-measured against: the op's default and the winner's adjacent
/// neighbours in its space (the cache keeps no runner-ups), valid for the problem, at most 8.
std::vector<config> challengers(const ops::op& o, const ops::problem& p, const config& winner) {
    std::vector<tune::axis> axes;
    for (const auto& a : o.axes())
        axes.push_back(tune::axis::list(a.name, a.values));
    const tune::space sp(std::move(axes));
    std::vector<config> out;
    const auto add = [&](const config& c) {
        if (c != winner && o.valid(c, p) && std::find(out.begin(), out.end(), c) == out.end())
            out.push_back(c);
    };
    add(o.default_config(p));
    for (const auto& n : sp.neighbours(sp.from_config(winner), tune::neighbourhood::adjacent)) {
        if (out.size() >= 8) break;
        add(sp.to_config(n));
    }
    return out;
}

std::vector<guard::stale_winner> revalidate(op_runtime& rt, const std::string& path, int repeat,
                                            double band) {
    const auto here = cache::environment::current(rt.device().ordinal);
    std::vector<guard::stale_winner> stale;
    std::size_t checked = 0, skipped = 0;
    for (const cache::entry& e : cache::read_cache(path)) {
        const auto& k = e.key;
        // Entries of another GPU, toolkit, driver or op version cannot be re-measured here.
        const ops::op* o = nullptr;
        for (const ops::op* cand : ops::all_ops())
            if (cand->name() == k.op) o = cand;
        if (!o || k.op_version != fmt::format("v{}", o->version()) || k.arch != here.arch ||
            k.toolkit != here.toolkit || k.driver_major != here.driver_major ||
            k.protocol != here.protocol || k.bucket.size() != 2) {
            ++skipped;
            continue;
        }
        const ops::problem p{{k.bucket[0], k.bucket[1]}, ops::parse_dtype(k.dtype)};
        const auto others = challengers(*o, p, e.cfg);
        // Interleaved rounds, samples pooled: a drift in clocks during the re-validation
        // lands on every config alike instead of on whichever ran last.
        constexpr int rounds = 3;
        const int per_round = std::max(10, (repeat + rounds - 1) / rounds);
        guard::series_set base, cand;
        std::vector<std::vector<double>> alt(others.size());
        std::vector<double> win;
        for (int round = 0; round < rounds; ++round) {
            for (double v : to_timing(rt.time(*o, p, e.cfg, per_round), e.cfg, "").samples)
                win.push_back(v);
            for (std::size_t i = 0; i < others.size(); ++i)
                for (double v :
                     to_timing(rt.time(*o, p, others[i], per_round), others[i], "").samples)
                    alt[i].push_back(v);
        }
        for (std::size_t i = 0; i < others.size(); ++i) {
            guard::series b, c;
            b.name = c.name = others[i].to_string();
            b.samples = win;
            c.samples = alt[i];
            base.items.push_back(std::move(b));
            cand.items.push_back(std::move(c));
        }
        // The gate's own rule with the tie band as threshold: a challenger must be faster
        // significantly (BH across the challengers) and surely by more than band / 2.
        guard::diff_options d;
        d.threshold = band;
        const auto rep = guard::compare(base, cand, d);
        const guard::key_diff* best = nullptr;
        for (const auto& kd : rep.keys)
            if (kd.result == guard::verdict::faster && (!best || kd.rel < best->rel)) best = &kd;
        if (best) stale.push_back({k.to_string(), e.cfg.to_string(), best->name, -best->rel});
        ++checked;
    }
    fmt::print(stderr, "ktune bench: re-validated {} cached winner{} of {}{}\n", checked,
               checked == 1 ? "" : "s", path,
               skipped ? fmt::format(" ({} for another GPU, toolkit, driver or op version "
                                     "skipped)",
                                     skipped)
                       : "");
    return stale;
}

} // namespace

bench_hooks op_runtime_hooks(const suite& s, const op_runtime_options& o, std::string& reason) {
    guard::bench_hooks h;
    if (s.ops.empty() && s.cache.empty()) return h;
    auto q = query_devices();
    if (q.devices.empty()) {
        reason = "this machine has no usable GPU (" + q.no_device_reason + ")";
        return h;
    }
    for (const auto& e : s.ops)
        (void)ops::find_op(e.op); // an unknown op is an input error before any GPU work
    auto rt = std::make_shared<op_runtime>(q.devices.front(), s.cache);
    h.time_op = [rt](const guard::op_entry& e, const std::vector<std::int64_t>& shape,
                     const guard::op_config& c, int repeat) {
        const ops::op& op = ops::find_op(e.op);
        const ops::problem p = problem_of(e, shape);
        std::pair<config, std::string> chosen;
        if (c.kind == "cached")
            chosen = rt->cached(op, p);
        else if (c.kind == "default")
            chosen = {op.default_config(p), "default"};
        else
            chosen = {c.cfg, "explicit"};
        return to_timing(rt->time(op, p, chosen.first, repeat), chosen.first, chosen.second);
    };
    const double band = o.stale_band;
    h.revalidate = [rt, band](const std::string& path, int repeat) {
        return revalidate(*rt, path, repeat, band);
    };
    return h;
}

} // namespace ktune::guard
