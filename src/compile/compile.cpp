#include "ktune/compile/compile.hpp"
#include "ktune/core/env.hpp"

#include "compile/compile_private.hpp"
#include "core/cache_files.hpp"
#include "core/check_private.hpp"
#include "ktune/core/error.hpp"
#include "ktune/core/handle.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace ktune::compile {
namespace detail {

std::vector<std::string> base_options(const std::string& arch, bool minimal) {
    std::vector<std::string> o{"--gpu-architecture=" + arch, "--std=c++17", "-default-device"};
    // -minimal (NVRTC >= 12.4) leaves out the runtime-API declarations NVRTC otherwise parses
    // for every program; generated kernels use none of them (docs/perf/tune.md, runtime).
    if (minimal) o.emplace_back("-minimal");
    // NVRTC >= 12.9 also caches through the driver's compute cache (~/.nv/ComputeCache), which
    // initialises CUDA in every compiling process and fills a cache shared with every JIT user of
    // the machine with candidates; the cubin cache here is the cache of record. Seen on the
    // H200: repeated compiles of the same sources in fresh processes took 5 ms instead of 60.
    if (nvrtc_version() >= 12090) o.emplace_back("--no-cache");
    return o;
}

program_output compile_program(const std::string& source,
                               const std::vector<std::string>& name_expressions,
                               const std::vector<std::string>& opts) {
    const auto& rtc = ktune::detail::nvrtc();
    nvrtcProgram raw = nullptr;
    KTUNE_NVRTC_CALL(
        rtc.nvrtcCreateProgram(&raw, source.c_str(), "ktune_candidate.cu", 0, nullptr, nullptr),
        raw);
    program prog(raw);
    for (const auto& n : name_expressions)
        KTUNE_NVRTC_CALL(rtc.nvrtcAddNameExpression(prog.get(), n.c_str()), prog.get());
    std::vector<const char*> argv;
    argv.reserve(opts.size());
    for (const auto& o : opts)
        argv.push_back(o.c_str());
    KTUNE_NVRTC_CALL(
        rtc.nvrtcCompileProgram(prog.get(), static_cast<int>(argv.size()), argv.data()),
        prog.get());
    program_output out;
    out.log = ktune::detail::nvrtc_log(prog.get());
    std::size_t n = 0;
    KTUNE_NVRTC_CALL(rtc.nvrtcGetCUBINSize(prog.get(), &n), prog.get());
    out.cubin.resize(n);
    KTUNE_NVRTC_CALL(rtc.nvrtcGetCUBIN(prog.get(), out.cubin.data()), prog.get());
    for (const auto& name : name_expressions) {
        const char* lowered = nullptr;
        KTUNE_NVRTC_CALL(rtc.nvrtcGetLoweredName(prog.get(), name.c_str(), &lowered), prog.get());
        out.lowered.emplace_back(lowered);
    }
    return out;
}

program_output compile_program_minimal_first(const std::string& source,
                                             const std::vector<std::string>& names,
                                             const std::string& arch,
                                             const std::vector<std::string>& extra) {
    auto with = [&](bool minimal) {
        auto o = base_options(arch, minimal);
        o.insert(o.end(), extra.begin(), extra.end());
        return compile_program(source, names, o);
    };
    // KTUNE_NVRTC_MINIMAL=0 turns -minimal off (for a before/after measurement, or a source
    // that needs what it leaves out).
    const char* env = std::getenv(ktune::env::nvrtc_minimal);
    if (nvrtc_version() < 12040 || (env && std::string_view(env) == "0")) return with(false);
    try {
        return with(true);
    } catch (const error&) {
        // A source that needs what -minimal leaves out (or a real error: then the second
        // attempt throws the same log).
        return with(false);
    }
}

} // namespace detail

using ktune::detail::fnv1a;
using ktune::detail::read_file;
using ktune::detail::write_atomic;

int nvrtc_version() {
    int major = 0, minor = 0;
    try {
        if (ktune::detail::nvrtc().nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return 0;
    } catch (const error&) {
        return 0; // no libnvrtc here: callers read 0 as "unknown"
    }
    return major * 1000 + minor * 10;
}

compile_result nvrtc_compile(const compile_request& r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto p =
        detail::compile_program_minimal_first(r.source, {r.name_expression}, r.arch, r.options);
    compile_result out;
    out.log = std::move(p.log);
    out.cubin = std::move(p.cubin);
    out.lowered_name = std::move(p.lowered.front());
    out.ok = true;
    out.compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

std::filesystem::path cubin_cache::default_dir() {
    if (const char* e = std::getenv(ktune::env::cubin_cache); e && *e) return e;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::filesystem::path(x) / "ktune" / "cubin";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::filesystem::path(h) / ".cache" / "ktune" / "cubin";
    return std::filesystem::temp_directory_path() / fmt::format("ktune-cubin-{}", getuid());
}

cubin_cache::cubin_cache(std::filesystem::path dir) : dir_(std::move(dir)) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec)
        throw error(error_kind::io, fmt::format("cannot create the cubin cache {}: {}",
                                                dir_.string(), ec.message()));
}

std::string cubin_cache::key(const compile_request& r) {
    std::uint64_t h = ktune::detail::fnv1a_basis;
    h = fnv1a(h, r.source);
    h = fnv1a(h, r.name_expression);
    h = fnv1a(h, r.arch);
    for (const auto& o : r.options)
        h = fnv1a(h, o);
    h = fnv1a(h, std::to_string(nvrtc_version()));
    return fmt::format("{:016x}", h);
}

std::filesystem::path detail::cubin_file(const std::filesystem::path& base,
                                         std::string_view lowered_name) {
    return fmt::format("{}-{:08x}.cubin", base.string(),
                       fnv1a(ktune::detail::fnv1a_basis, lowered_name) & 0xffffffffU);
}

std::optional<compile_result> cubin_cache::get(const compile_request& r) const {
    const auto base = dir_ / key(r);
    compile_result out;
    out.lowered_name = read_file(base.string() + ".name");
    if (out.lowered_name.empty()) return std::nullopt;
    const auto file = detail::cubin_file(base, out.lowered_name);
    out.cubin = read_file(file);
    if (out.cubin.empty()) return std::nullopt;
    out.ok = true;
    out.cache_hit = true;
    out.cubin_path = file;
    return out;
}

std::filesystem::path cubin_cache::put(const compile_request& r, const compile_result& c) const {
    const auto base = dir_ / key(r);
    // The cubin's file is named after the kernel's lowered name, and written before the .name
    // that points at it: a single compile and a batch (namespaced name) may store the same key
    // at once, and whichever .name wins, it names a file that holds that kernel.
    auto file = detail::cubin_file(base, c.lowered_name);
    write_atomic(file, c.cubin);
    write_atomic(base.string() + ".name", c.lowered_name);
    return file;
}

compile_result compile_cached(const compile_request& r, const cubin_cache* cache) {
    if (cache)
        if (auto hit = cache->get(r)) return *hit;
    compile_result out;
    try {
        out = nvrtc_compile(r);
    } catch (const error& e) {
        out.ok = false;
        out.log = e.what();
        return out;
    }
    if (cache) out.cubin_path = cache->put(r, out);
    return out;
}

} // namespace ktune::compile
