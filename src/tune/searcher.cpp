// The searcher base (budget, history, no config twice), the strategy registry and run_search.
#include "ktune/tune/searcher.hpp"

#include "ktune/core/error.hpp"
#include "tune/strategies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace ktune::tune {

std::string_view to_string(eval_status s) noexcept {
    switch (s) {
    case eval_status::ok:
        return "ok";
    case eval_status::compile_error:
        return "compile_error";
    case eval_status::launch_error:
        return "launch_error";
    case eval_status::wrong_result:
        return "wrong_result";
    case eval_status::timeout:
        return "timeout";
    case eval_status::resource_limit:
        return "resource_limit";
    case eval_status::invalid:
        return "invalid";
    }
    return "invalid";
}

eval_status eval_status_from_string(std::string_view s) {
    for (auto st : {eval_status::ok, eval_status::compile_error, eval_status::launch_error,
                    eval_status::wrong_result, eval_status::timeout, eval_status::resource_limit,
                    eval_status::invalid})
        if (to_string(st) == s) return st;
    throw error(error_kind::input,
                fmt::format("unknown evaluation status '{}'; expected ok, compile_error, "
                            "launch_error, wrong_result, timeout, resource_limit or invalid",
                            s));
}

void searcher::init(const space& s, const search_options& o) {
    space_ = s;
    options_ = o;
    rng_ = rng(o.seed);
    history_.clear();
    seen_.clear();
    proposed_ = 0;
    best_.reset();
    exhausted_ = false;
    // Count once up front: strategies sample from the first proposal on, and a space with no
    // valid config is an input error better reported before any work.
    if (s.valid_count() == 0)
        throw error(error_kind::input, "the space has no valid config: check its constraints");
    on_init();
}

std::vector<point> searcher::propose(std::size_t max) {
    std::vector<point> out;
    if (done()) return out;
    const std::size_t valid = static_cast<std::size_t>(
        std::min<std::uint64_t>(space_.valid_count(), std::numeric_limits<std::size_t>::max()));
    std::size_t left = std::min(options_.budget, valid) - std::min(proposed_, options_.budget);
    std::size_t want = max ? max : (options_.batch ? options_.batch : default_batch());
    want = std::min(want, left);
    // A strategy may return duplicates or invalid points (a mutation, a model's pick): drop them
    // here, and ask again a few times before calling the strategy exhausted.
    for (int attempt = 0; out.size() < want && attempt < 8; ++attempt) {
        std::vector<point> cand;
        do_propose(want - out.size(), cand);
        const std::size_t before = out.size();
        for (auto& p : cand) {
            if (out.size() == want) break;
            if (!space_.is_valid(p)) continue;
            if (!seen_.insert(space_.code(p)).second) continue;
            out.push_back(std::move(p));
        }
        if (out.size() == before && cand.empty()) break;
    }
    proposed_ += out.size();
    if (out.empty()) exhausted_ = true;
    return out;
}

void searcher::observe(const std::vector<observation>& results) {
    for (const auto& o : results) {
        history_.push_back(o);
        if (o.ok() && (!best_ || o.time < history_[*best_].time)) best_ = history_.size() - 1;
        on_observe(history_.back());
    }
}

bool searcher::done() const noexcept {
    if (exhausted_) return true;
    if (history_.size() >= options_.budget) return true;
    return seen_.size() >= space_.valid_count() && history_.size() >= seen_.size();
}

namespace {

struct registry {
    std::mutex m;
    std::map<std::string, std::pair<strategy_info, std::function<std::unique_ptr<searcher>()>>,
             std::less<>>
        entries;
};

registry& the_registry() {
    static registry r;
    static std::once_flag builtins;
    std::call_once(builtins, [] {
        for (auto& [info, factory] : detail::builtin_strategies())
            r.entries.emplace(info.name, std::make_pair(info, factory));
    });
    return r;
}

} // namespace

std::unique_ptr<searcher> make_searcher(std::string_view name) {
    auto& r = the_registry();
    std::lock_guard lock(r.m);
    if (auto it = r.entries.find(name); it != r.entries.end()) return it->second.second();
    std::string names;
    for (const auto& [n, e] : r.entries)
        names += (names.empty() ? "" : ", ") + n;
    throw error(error_kind::not_found,
                fmt::format("unknown search strategy '{}'; available: {}", name, names));
}

std::vector<strategy_info> strategies() {
    auto& r = the_registry();
    std::lock_guard lock(r.m);
    std::vector<strategy_info> out;
    for (const auto& [n, e] : r.entries)
        out.push_back(e.first);
    return out;
}

void register_searcher(strategy_info info, std::function<std::unique_ptr<searcher>()> factory) {
    auto& r = the_registry();
    std::lock_guard lock(r.m);
    if (r.entries.count(info.name))
        throw error(error_kind::usage,
                    fmt::format("a search strategy named '{}' is already registered", info.name));
    auto name = info.name;
    r.entries.emplace(std::move(name), std::make_pair(std::move(info), std::move(factory)));
}

const std::vector<observation>& run_search(searcher& s, const space& sp, const search_options& o,
                                           const evaluate_fn& evaluate,
                                           const progress_fn& progress) {
    s.init(sp, o);
    while (!s.done()) {
        auto batch = s.propose();
        if (batch.empty()) break;
        auto results = evaluate(batch);
        if (results.size() != batch.size())
            throw error(error_kind::internal,
                        fmt::format("evaluate returned {} results for {} configs", results.size(),
                                    batch.size()));
        s.observe(results);
        if (progress) progress(s);
    }
    return s.history();
}

} // namespace ktune::tune
