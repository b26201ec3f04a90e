// Several candidates in one NVRTC program. A generated kernel compiles in ~0.15 s of which a
// fixed part per program (NVRTC start-up, built-in declarations) is paid once per batch here;
// docs/perf/tune.md ("runtime") has the split. Each source goes into its own namespace, its
// `extern "C"` kernel becomes a namespace member found by name expression, and its macros are
// #undef'd after it, so candidates that #define the same constants do not collide.
#include "compile/compile_private.hpp"
#include "core/cache_files.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

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

} // namespace

std::vector<compile_result> compile_batch(const std::vector<compile_request>& rs,
                                          const cubin_cache* cache) {
    std::vector<compile_result> out(rs.size());
    std::vector<const compile_request*> group;
    std::vector<std::size_t> slots;
    for (std::size_t i = 0; i < rs.size(); ++i) {
        if (cache)
            if (auto hit = cache->get(rs[i])) {
                out[i] = std::move(*hit);
                continue;
            }
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

    const auto t0 = std::chrono::steady_clock::now();
    std::string source;
    std::vector<std::string> names;
    for (std::size_t k = 0; k < group.size(); ++k) {
        source += wrap(*group[k]);
        names.push_back(fmt::format("&{}::{}", namespace_of(*group[k]), group[k]->name_expression));
    }
    detail::program_output p;
    try {
        p = detail::compile_program_minimal_first(source, names, group.front()->arch,
                                                  group.front()->options);
    } catch (const error&) {
        // One bad candidate fails the whole program: compile each alone, so the good ones
        // still run and the bad one keeps its own log.
        for (std::size_t k = 0; k < group.size(); ++k)
            out[slots[k]] = compile_cached(*group[k], cache);
        return out;
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
    return out;
}

} // namespace ktune::compile
