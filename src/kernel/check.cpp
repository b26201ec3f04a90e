// ktune kernel check: a spec validated as far as a machine without a GPU can take it.
#include "ktune/kernel/check.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

namespace ktune::kernel {
namespace {

std::int64_t eval_at(const located_expr& e, const bindings& b, const std::string& what) {
    try {
        return e.e.eval(b);
    } catch (const expr_error& x) {
        throw error(error_kind::input,
                    fmt::format("{}: {} '{}': {}", e.where, what, e.e.text(), x.what()));
    }
}

std::int64_t round_up(std::int64_t v, const bucket_spec& b) {
    if (b.rule == bucket_rule::pow2) {
        std::int64_t p = 1;
        while (p < v && p <= std::numeric_limits<std::int64_t>::max() / 2)
            p *= 2;
        return p;
    }
    if (b.rule == bucket_rule::multiple) {
        const std::int64_t q = v / b.multiple + (v % b.multiple != 0);
        return q > std::numeric_limits<std::int64_t>::max() / b.multiple ? v : q * b.multiple;
    }
    return v;
}

// The first error line of an NVRTC log (the whole log follows in the message).
std::string first_error(const std::string& log) {
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line))
        if (line.find("error") != std::string::npos) return line;
    return log.substr(0, log.find('\n'));
}

struct compiled {
    std::string lowered;
    double ms = 0;
};

// Compiles one request; a failure becomes an error{input} at the spec's kernel name when NVRTC
// says the name is unknown, else at the sources with the log.
compiled compile_or_explain(const kernel_spec& s, const compile::compile_request& rq,
                            const std::string& kernel, const std::string& kernel_where,
                            const std::string& what) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
        auto r = compile::nvrtc_compile(rq);
        return {r.lowered_name,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count()};
    } catch (const error& e) {
        if (e.kind() != error_kind::nvrtc) throw;
        const std::string log = e.what();
        std::string files;
        for (const auto& f : s.sources)
            files += (files.empty() ? "" : ", ") + f.filename().string();
        const std::string base = kernel.substr(0, kernel.find('<'));
        if (log.find("\"" + base + "\" is undefined") != std::string::npos ||
            log.find("identifier \"" + base + "\"") != std::string::npos)
            throw error(error_kind::input,
                        fmt::format("{}: kernel '{}' is not in {} (NVRTC: {})", kernel_where,
                                    kernel, files, first_error(log)));
        // The log alone: the failing NVRTC call is ktune's business, not the spec author's.
        const auto at = log.find("compile log:");
        throw error(error_kind::input, fmt::format("{}: {} ({}) does not compile for {}: {}",
                                                   kernel_where, what, rq.name_expression, rq.arch,
                                                   at == std::string::npos ? log : log.substr(at)));
    }
}

// Up to o.sample valid configs other than the default, in a seeded random order.
void sample_compiles(const kernel_spec& s, const config_space& cs, const check_options& o,
                     check_report& r) {
    std::vector<std::size_t> order(cs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 rng(1); // fixed: a check names the same configs every run
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i : order) {
        if (r.sampled.size() >= o.sample) break;
        sampled_compile c;
        c.cfg = cs.at(i);
        if (c.cfg == r.default_cfg) continue;
        try {
            (void)compile::nvrtc_compile(compile_request_for(s, c.cfg, r.prob, o.limits));
            c.ok = true;
        } catch (const error& e) {
            if (e.kind() != error_kind::nvrtc) throw;
            c.error = first_error(e.what());
        }
        r.sampled.push_back(std::move(c));
    }
}

} // namespace

problem bucket_of(const kernel_spec& s, const problem& p) {
    problem out = p;
    for (auto& [n, v] : out.dims)
        for (const auto& b : s.bucket)
            if (b.dim == n) v = round_up(v, b);
    return out;
}

check_report check_spec(const kernel_spec& s, const check_options& o) {
    check_report r;
    r.spec = s.path.string();
    r.name = s.name;
    r.prob = o.prob ? *o.prob : s.example_problem();
    r.arch = o.limits.arch;
    check_problem(s, r.prob);
    const config_space cs = enumerate(s, r.prob, o.limits, true);
    r.counts = cs.counts;
    for (const auto& x : s.restrictions)
        r.restrictions.push_back(x.e.text());
    r.default_cfg = default_config(s);
    if (auto why = reject_reason(s, r.default_cfg, r.prob, o.limits); !why.empty())
        throw error(error_kind::input,
                    fmt::format("{}: the default config ({}) is not valid at {}: {}",
                                s.parameters.empty() ? s.kernel_where : s.parameters.front().where,
                                r.default_cfg.to_string(), r.prob.to_string(), why));
    r.default_geometry = launch_of(s, r.default_cfg, r.prob, o.limits);
    if (const auto& ref = s.correctness.reference; ref.launch) {
        // The reference runs with its own geometry: the same limits apply to it.
        kernel_spec as_ref = s;
        as_ref.launch = *ref.launch;
        const geometry g = launch_of(as_ref, r.default_cfg, r.prob, o.limits);
        if (auto why = limit_violation(g, o.limits); !why.empty())
            throw error(error_kind::input, fmt::format("{}: the reference kernel's launch: {}",
                                                       ref.launch->where, why));
    }
    r.name_expression = name_expression(s, r.default_cfg, r.prob, o.limits);
    const bindings b = bind(s, r.prob, o.limits, r.default_cfg);
    for (const auto& a : s.arguments) {
        if (a.kind == argument_kind::scalar) {
            const std::int64_t v = eval_at({a.value, a.where}, b, "scalar " + a.name);
            if (a.type == element_type::int32 && (v > std::numeric_limits<std::int32_t>::max() ||
                                                  v < std::numeric_limits<std::int32_t>::min()))
                throw error(error_kind::input,
                            fmt::format("{}: scalar '{}' = {} does not fit its dtype int32 at {}",
                                        a.where, a.name, v, r.prob.to_string()));
            continue;
        }
        buffer_size bs;
        bs.name = a.name;
        bs.dtype = std::string(to_string(a.type));
        bs.elements = eval_at({a.size, a.where}, b, "the size of buffer " + a.name);
        if (bs.elements <= 0)
            throw error(error_kind::input,
                        fmt::format("{}: buffer '{}' has {} elements at {}: a size must be "
                                    "positive",
                                    a.where, a.name, bs.elements, r.prob.to_string()));
        if (__builtin_mul_overflow(bs.elements, static_cast<std::int64_t>(size_of(a.type)),
                                   &bs.bytes))
            throw error(error_kind::input,
                        fmt::format("{}: buffer '{}' of {} elements overflows int64 bytes", a.where,
                                    a.name, bs.elements));
        bs.input = a.input != input_generator::none;
        bs.output = a.output;
        r.buffers.push_back(std::move(bs));
    }
    if (s.bytes) r.bytes = eval_at(*s.bytes, b, "the bytes model");
    if (s.flops) r.flops = eval_at(*s.flops, b, "the FLOP model");
    r.bucket = bucket_of(s, r.prob);
    r.hash = spec_hash(s);
    if (!o.compile) return r;
    const auto rq = compile_request_for(s, r.default_cfg, r.prob, o.limits);
    const compiled c = compile_or_explain(s, rq, s.kernel, s.kernel_where, "the default config");
    r.lowered_name = c.lowered;
    r.compile_ms = c.ms;
    r.compiled = true;
    if (!s.correctness.reference.default_config) {
        auto ref = rq;
        ref.name_expression = s.correctness.reference.kernel;
        r.reference_lowered =
            compile_or_explain(s, ref, s.correctness.reference.kernel,
                               s.correctness.reference.where, "the reference kernel")
                .lowered;
    }
    sample_compiles(s, cs, o, r);
    return r;
}

std::size_t check_report::sample_failures() const {
    return static_cast<std::size_t>(std::count_if(sampled.begin(), sampled.end(),
                                                  [](const sampled_compile& c) { return !c.ok; }));
}

std::vector<listed_spec> list_specs(const std::filesystem::path& dir, const device_limits& l) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw error(error_kind::input,
                    fmt::format("kernel spec directory '{}' does not exist", dir.string()));
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
    std::sort(files.begin(), files.end());
    std::vector<listed_spec> out;
    for (const auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        // Other JSON files may share the directory: only those naming the schema are specs.
        if (ss.str().find("\"ktune.kernel\"") == std::string::npos) continue;
        listed_spec ls;
        ls.path = f.string();
        try {
            const kernel_spec s = parse_spec(ss.str(), f);
            ls.name = s.name;
            ls.kernel = s.kernel;
            ls.valid = enumerate(s, s.example_problem(), l, false).counts.valid;
        } catch (const error& e) {
            ls.error = e.what();
        }
        out.push_back(std::move(ls));
    }
    return out;
}

} // namespace ktune::kernel
