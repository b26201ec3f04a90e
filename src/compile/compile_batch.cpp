// Several candidates in one NVRTC program. A generated kernel compiles in ~0.15 s of which a
// fixed part per program (NVRTC start-up, built-in declarations) is paid once per batch here;
// docs/perf/tune.md ("runtime") has the split. Each source goes into its own namespace, its
// `extern "C"` kernel becomes a namespace member found by name expression, and its macros are
// #undef'd after it, so candidates that #define the same constants do not collide. Requests
// that differ only in their name expression (a user kernel's template instantiations) need none
// of that: one copy of the source, a name expression each
// (docs/perf/kernel.md#compile-cost-per-candidate).
#include "compile/compile_private.hpp"
#include "core/cache_files.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>
#include <system_error>
#include <thread>
#include <unistd.h>

namespace ktune::compile {
namespace {

bool plain_identifier(std::string_view s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front()))) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

/// Whether r can share a program: no #include (it would land inside a namespace) and a plain
/// kernel name.
bool batchable(const compile_request& r) {
    return r.source.find("#include") == std::string::npos && plain_identifier(r.name_expression);
}

/// Whether two requests differ at most in their name expression: then one copy of the source
/// with both name expressions compiles both (template instantiations of one user kernel).
bool same_program(const compile_request& a, const compile_request& b) {
    return a.arch == b.arch && a.options == b.options && a.source == b.source;
}

/// Names of every macro the source #defines (to #undef them after it).
std::set<std::string> defined_macros(std::string_view src) {
    std::set<std::string> out;
    std::size_t pos = 0;
    while ((pos = src.find("#define", pos)) != std::string_view::npos) {
        pos += 7;
        while (pos < src.size() && (src[pos] == ' ' || src[pos] == '\t'))
            ++pos;
        std::size_t end = pos;
        while (end < src.size() &&
               (std::isalnum(static_cast<unsigned char>(src[end])) || src[end] == '_'))
            ++end;
        if (end > pos) out.emplace(src.substr(pos, end - pos));
    }
    return out;
}

/// The namespace of a request in any batch: named after its cache key, so its lowered name does
/// not depend on its position in a batch. Processes sharing a cubin cache may store the same key
/// from different batches at once; the .name and .cubin they leave always match.
std::string namespace_of(const compile_request& r) {
    return "ktune_b" + cubin_cache::key(r);
}

std::string wrap(const compile_request& r) {
    std::string s = r.source;
    static constexpr std::string_view ext = "extern \"C\"";
    for (std::size_t p = 0; (p = s.find(ext, p)) != std::string::npos;)
        s.erase(p, ext.size());
    std::string out = fmt::format("namespace {} {{\n{}\n}}\n", namespace_of(r), s);
    for (const auto& m : defined_macros(r.source))
        out += fmt::format("#undef {}\n", m);
    return out;
}

/// Stores one cubin for the batch and hard-links it under every request's key (a copy where
/// the file system refuses links), so a later single lookup hits.
void store_batch(const cubin_cache& cache, const std::vector<const compile_request*>& rs,
                 std::vector<compile_result>& out, const std::vector<std::size_t>& slots) {
    // Private to this process and thread until linked: another process storing a batch with
    // the same first key must not swap the file under the links.
    const auto tag = fmt::format("{}-{:x}", static_cast<long>(getpid()),
                                 std::hash<std::thread::id>{}(std::this_thread::get_id()));
    const auto base =
        cache.dir() / fmt::format("batch-{}-{}.cubin", cubin_cache::key(*rs.front()), tag);
    ktune::detail::write_atomic(base, out[slots.front()].cubin);
    for (std::size_t k = 0; k < rs.size(); ++k) {
        compile_result& c = out[slots[k]];
        const auto stem = cache.dir() / cubin_cache::key(*rs[k]);
        const auto file = detail::cubin_file(stem, c.lowered_name);
        const std::filesystem::path tmp = stem.string() + ".lnk" + tag;
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        std::filesystem::create_hard_link(base, tmp, ec);
        if (ec) {
            ktune::detail::write_atomic(file, c.cubin);
        } else {
            std::filesystem::rename(tmp, file);
        }
        // After the file it names (cubin_cache::put says why).
        ktune::detail::write_atomic(stem.string() + ".name", c.lowered_name);
        c.cubin_path = file;
    }
    std::error_code ec;
    std::filesystem::remove(base, ec); // the links keep the data
}

/// One program for `group` (slots: their places in `out`), then stored. A program that fails
/// compiles each request alone, so the good ones still run and a bad one keeps its own log.
void compile_group(const std::string& source, const std::vector<std::string>& names,
                   const std::vector<const compile_request*>& group,
                   const std::vector<std::size_t>& slots, std::vector<compile_result>& out,
                   const cubin_cache* cache) {
    const auto t0 = std::chrono::steady_clock::now();
    detail::program_output p;
    try {
        p = detail::compile_program_minimal_first(source, names, group.front()->arch,
                                                  group.front()->options);
    } catch (const error&) {
        for (std::size_t k = 0; k < group.size(); ++k)
            out[slots[k]] = compile_cached(*group[k], cache);
        return;
    }
    // The program's time is shared evenly: compile_ms stays a per-candidate cost.
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
        static_cast<double>(group.size());
    for (std::size_t k = 0; k < group.size(); ++k) {
        compile_result& c = out[slots[k]];
        c.ok = true;
        c.cubin = p.cubin;
        c.lowered_name = p.lowered[k];
        c.log = p.log;
        c.compile_ms = ms;
    }
    if (cache) {
        try {
            store_batch(*cache, group, out, slots);
        } catch (const std::exception&) {
            // An unwritable cache costs a recompile next time, never this result.
        }
    }
}

} // namespace

std::vector<compile_result> compile_batch(const std::vector<compile_request>& rs,
                                          const cubin_cache* cache) {
    std::vector<compile_result> out(rs.size());
    std::vector<std::size_t> misses;
    for (std::size_t i = 0; i < rs.size(); ++i) {
        if (cache)
            if (auto hit = cache->get(rs[i])) {
                out[i] = std::move(*hit);
                continue;
            }
        misses.push_back(i);
    }
    // Requests that differ only in their name expression: one program as they are, no
    // namespaces (an #include or a template name is fine here).
    std::vector<bool> done(rs.size(), false);
    for (std::size_t a = 0; a < misses.size(); ++a) {
        const std::size_t i = misses[a];
        if (done[i]) continue;
        std::vector<const compile_request*> group;
        std::vector<std::size_t> slots;
        std::vector<std::string> names;
        for (std::size_t b = a; b < misses.size(); ++b)
            if (const std::size_t j = misses[b]; !done[j] && same_program(rs[i], rs[j])) {
                group.push_back(&rs[j]);
                slots.push_back(j);
                names.push_back(rs[j].name_expression);
            }
        if (group.size() < 2) continue;
        for (std::size_t j : slots)
            done[j] = true;
        compile_group(rs[i].source, names, group, slots, out, cache);
    }
    // The rest: different sources with the same arch and options, each in its own namespace.
    std::vector<const compile_request*> group;
    std::vector<std::size_t> slots;
    for (std::size_t i : misses) {
        if (done[i]) continue;
        const bool same = group.empty() || (rs[i].arch == group.front()->arch &&
                                            rs[i].options == group.front()->options);
        if (!batchable(rs[i]) || !same) {
            out[i] = compile_cached(rs[i], cache);
            continue;
        }
        group.push_back(&rs[i]);
        slots.push_back(i);
    }
    if (group.size() == 1) out[slots[0]] = compile_cached(*group[0], cache);
    if (group.size() <= 1) return out;
    std::string source;
    std::vector<std::string> names;
    for (const auto* r : group) {
        source += wrap(*r);
        names.push_back(fmt::format("&{}::{}", namespace_of(*r), r->name_expression));
    }
    compile_group(source, names, group, slots, out, cache);
    return out;
}

std::vector<std::vector<std::size_t>> program_groups(const std::vector<compile_request>& rs,
                                                     std::size_t per_program) {
    per_program = std::max<std::size_t>(1, per_program);
    std::vector<std::vector<std::size_t>> out;
    std::vector<std::size_t> rest;
    std::vector<bool> taken(rs.size(), false);
    for (std::size_t i = 0; i < rs.size(); ++i) {
        if (taken[i]) continue;
        std::vector<std::size_t> same;
        for (std::size_t j = i; j < rs.size(); ++j)
            if (!taken[j] && same_program(rs[i], rs[j])) same.push_back(j);
        // Full groups of requests that share a program; a remainder joins the rest.
        std::size_t k = 0;
        for (; same.size() > 1 && k + per_program <= same.size(); k += per_program) {
            out.emplace_back(same.begin() + static_cast<long>(k),
                             same.begin() + static_cast<long>(k + per_program));
            for (std::size_t j : out.back())
                taken[j] = true;
        }
        if (same.size() - k > 1 && per_program > 1) { // a smaller group still shares
            out.emplace_back(same.begin() + static_cast<long>(k), same.end());
            for (std::size_t j : out.back())
                taken[j] = true;
        }
        if (!taken[i]) {
            taken[i] = true;
            rest.push_back(i);
        }
    }
    for (std::size_t k = 0; k < rest.size(); k += per_program)
        out.emplace_back(rest.begin() + static_cast<long>(k),
                         rest.begin() + static_cast<long>(std::min(rest.size(), k + per_program)));
    std::sort(out.begin(), out.end()); // in order of each group's first request
    return out;
}

} // namespace ktune::compile
