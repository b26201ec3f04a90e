// Suite file (ktune.suite) and running it into results.
#include "ktune/guard/suite.hpp"

#include "core/config_json.hpp"
#include "guard/json_read.hpp"
#include "ktune/core/error.hpp"
#include "ktune/core/version.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>

namespace ktune::guard {
namespace {

int positive(const detail::json_at& j, const char* key, int fallback, int min) {
    const auto v = j.opt_uint(key, static_cast<std::uint64_t>(fallback));
    if (v < static_cast<std::uint64_t>(min) || v > 1'000'000)
        j.fail(key, fmt::format("must be an integer in [{}, 1000000]", min));
    return static_cast<int>(v);
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
    return fmt::format("{}", fmt::join(shape, "x"));
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

op_config parse_op_config(const detail::json_at& at) {
    op_config c;
    if (at.j.is_string()) {
        c.kind = at.j.get<std::string>();
        if (c.kind != "default" && c.kind != "cached")
            at.fail("", "must be \"default\", \"cached\" or a config object "
                        "{\"param\": value, …}");
        return c;
    }
    if (!at.j.is_object() || at.j.empty())
        at.fail("", "must be \"default\", \"cached\" or a config object {\"param\": value, …}");
    c.kind = "explicit";
    try {
        c.cfg = ktune::detail::config_from_json(at.j);
    } catch (const error& e) {
        at.fail("", e.what());
    }
    return c;
}

} // namespace

std::string op_config::label() const {
    return kind == "explicit" ? cfg.to_string() : kind;
}

suite parse_suite(const std::string& text, const std::string& source) {
    const auto doc = detail::parse_json(text, source);
    const detail::json_at root{doc, source, ""};
    detail::check_schema(root, "ktune.suite", 1);
    suite s;
    s.name = root.string("name");
    int repeat = 30, warmup = 1;
    double timeout = 600;
    if (root.has("defaults")) {
        const auto d = root.object("defaults");
        repeat = positive(d, "repeat", repeat, 1);
        warmup = positive(d, "warmup", warmup, 0);
        timeout = d.opt_number("timeout_s", timeout);
    }
    if (root.has("commands")) {
        const auto cs = root.array("commands");
        for (std::size_t i = 0; i < cs.size(); ++i) {
            const auto c = cs.at(i);
            command_entry e;
            e.name = c.string("name");
            e.run = c.array("run").strings();
            if (e.run.empty() || e.run.front().empty())
                c.fail("run", "must name a program: [\"./bench\", \"--arg\"]");
            e.repeat = positive(c, "repeat", repeat, 1);
            e.warmup = positive(c, "warmup", warmup, 0);
            e.timeout_s = c.opt_number("timeout_s", timeout);
            if (!(e.timeout_s > 0)) c.fail("timeout_s", "must be positive");
            s.commands.push_back(std::move(e));
        }
    }
    if (root.has("ops")) {
        const auto os = root.array("ops");
        for (std::size_t i = 0; i < os.size(); ++i) {
            const auto o = os.at(i);
            op_entry e;
            e.op = o.string("op");
            e.dtype = o.opt_string("dtype", "f32");
            e.repeat = positive(o, "repeat", repeat, 1);
            const auto shapes = o.array("shapes");
            for (std::size_t k = 0; k < shapes.size(); ++k) {
                std::vector<std::int64_t> dims;
                for (double d : detail::json_at{shapes.j.at(k), source,
                                                shapes.path + "[" + std::to_string(k) + "]"}
                                    .numbers()) {
                    if (d < 1 || d != static_cast<double>(static_cast<std::int64_t>(d)))
                        o.fail("shapes", "every dimension must be a positive integer");
                    dims.push_back(static_cast<std::int64_t>(d));
                }
                if (dims.empty()) o.fail("shapes", "a shape needs at least one dimension");
                e.shapes.push_back(std::move(dims));
            }
            if (e.shapes.empty()) o.fail("shapes", "needs at least one shape");
            if (o.has("config")) {
                e.configs.clear();
                const auto& cj = o.j.at("config");
                const std::string path = o.path.empty() ? "config" : o.path + ".config";
                if (cj.is_array()) {
                    for (std::size_t k = 0; k < cj.size(); ++k)
                        e.configs.push_back(parse_op_config(
                            {cj.at(k), source, path + "[" + std::to_string(k) + "]"}));
                    if (e.configs.empty()) o.fail("config", "needs at least one config");
                } else {
                    e.configs.push_back(parse_op_config({cj, source, path}));
                }
            }
            s.ops.push_back(std::move(e));
        }
    }
    s.cache = root.opt_string("cache");
    if (s.commands.empty() && s.ops.empty())
        root.fail("", "the suite has neither commands nor ops: nothing to run");
    return s;
}

suite read_suite(const std::string& path) {
    return parse_suite(detail::read_text_file(path), path);
}

results run_suite(const suite& s, const bench_options& o) {
    // Refuse before running anything: a half-run suite wastes the CI slot.
    if (!o.skip_unavailable) {
        if (!s.ops.empty() && !o.hooks.time_op)
            throw error(error_kind::unsupported,
                        fmt::format("suite '{}' has op entries ({} first), but {}; remove them, "
                                    "or pass --skip-unavailable to record them as unavailable",
                                    s.name, s.ops.front().op, o.unavailable_reason));
        if (!s.cache.empty() && !o.hooks.revalidate)
            throw error(error_kind::unsupported,
                        fmt::format("suite '{}' asks to re-validate the winners in {}, but {}; "
                                    "or pass --skip-unavailable",
                                    s.name, s.cache, o.unavailable_reason));
    }
    results r;
    r.suite = s.name;
    r.created = utc_now();
    r.ktune_version = std::string(version());
    r.env = capture_environment();
    for (const auto& c : s.commands) {
        command_entry run = c;
        if (o.repeat_override > 0) run.repeat = o.repeat_override;
        result_entry e;
        e.kind = "command";
        e.data.name = c.name;
        e.data.unit = "s";
        e.data.samples = time_command(run, [&](int i, int n) {
            if (o.progress) o.progress(c.name, i, n);
        });
        r.entries.push_back(std::move(e));
    }
    bool loaded_clocks = false;
    for (const auto& op : s.ops) {
        const int repeat = o.repeat_override > 0 ? o.repeat_override : op.repeat;
        for (const auto& shape : op.shapes)
            for (const auto& cfg : op.configs) {
                result_entry e;
                e.kind = "op";
                e.data.name = op.op + "/" + op.dtype + "@" + cfg.label();
                e.data.shape = shape_text(shape);
                e.data.unit = "ns";
                if (!o.hooks.time_op) {
                    e.status = "unavailable";
                    e.detail = o.unavailable_reason;
                    r.entries.push_back(std::move(e));
                    continue;
                }
                if (o.progress) o.progress(e.data.key(), 0, 1);
                op_timing t;
                try {
                    t = o.hooks.time_op(op, shape, cfg, repeat);
                } catch (const error& err) {
                    // One broken entry (a config that no longer compiles, a wrong result)
                    // must not hide the timings of the rest: recorded, reported, exit 2.
                    e.status = "failed";
                    e.detail = err.what();
                    r.entries.push_back(std::move(e));
                    continue;
                }
                e.data.samples = std::move(t.samples);
                e.config = std::move(t.config);
                e.config_source = std::move(t.config_source);
                e.sm_clock_mhz = t.sm_clock_mhz;
                e.memory_clock_mhz = t.memory_clock_mhz;
                e.throttle_reasons = t.throttle_reasons;
                // The run's fingerprint was read at rest (idle clocks differ run to run); the
                // clocks under load are the ones that explain a timing change, and any
                // throttling during any entry taints the run.
                if (t.sm_clock_mhz > 0) {
                    if (!loaded_clocks) r.env.throttle_reasons = 0;
                    loaded_clocks = true;
                    r.env.sm_clock_mhz = t.sm_clock_mhz;
                    r.env.memory_clock_mhz = t.memory_clock_mhz;
                    r.env.throttle_reasons |= t.throttle_reasons;
                }
                r.entries.push_back(std::move(e));
            }
    }
    if (!s.cache.empty() && o.hooks.revalidate) {
        if (o.progress) o.progress("re-validating " + s.cache, 0, 1);
        r.stale_winners =
            o.hooks.revalidate(s.cache, o.repeat_override > 0 ? o.repeat_override : 30);
    }
    return r;
}

} // namespace ktune::guard
