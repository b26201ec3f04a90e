// What a config compiles: its name expression, its NVRTC request, and the files and hash that
// key its cache entries.
#include "ktune/kernel/space.hpp"

#include "core/fnv1a.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace ktune::kernel {
namespace {

std::string read_all(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw error(error_kind::io, fmt::format("{}: cannot open for reading", p.string()));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The "..." includes of a source, in order. <...> includes are the toolkit's, keyed by its
// version elsewhere.
std::vector<std::string> quoted_includes(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::size_t i = line.find_first_not_of(" \t");
        if (i == std::string::npos || line[i] != '#') continue;
        i = line.find_first_not_of(" \t", i + 1);
        if (i == std::string::npos || line.compare(i, 7, "include") != 0) continue;
        i = line.find_first_not_of(" \t", i + 7);
        if (i == std::string::npos || line[i] != '"') continue;
        const std::size_t close = line.find('"', i + 1);
        if (close != std::string::npos) out.push_back(line.substr(i + 1, close - i - 1));
    }
    return out;
}

void add_with_includes(const std::filesystem::path& file, const kernel_spec& s,
                       std::vector<std::filesystem::path>& out, int depth) {
    if (depth > 64 || std::find(out.begin(), out.end(), file) != out.end()) return;
    out.push_back(file);
    for (const auto& inc : quoted_includes(read_all(file))) {
        std::vector<std::filesystem::path> where{file.parent_path()};
        where.insert(where.end(), s.include_dirs.begin(), s.include_dirs.end());
        for (const auto& dir : where) {
            const auto candidate = (dir / inc).lexically_normal();
            std::error_code ec;
            if (std::filesystem::is_regular_file(candidate, ec)) {
                add_with_includes(candidate, s, out, depth + 1);
                break;
            }
        }
        // Not found: NVRTC reports it when the config compiles.
    }
}

std::int64_t eval_named(const located_expr& e, const bindings& b, const std::string& what) {
    try {
        return e.e.eval(b);
    } catch (const expr_error& x) {
        throw error(error_kind::input,
                    fmt::format("{}: {} '{}': {}", e.where, what, e.e.text(), x.what()));
    }
}

} // namespace

std::vector<std::filesystem::path> source_files(const kernel_spec& s) {
    std::vector<std::filesystem::path> out;
    for (const auto& src : s.sources)
        add_with_includes(src, s, out, 0);
    return out;
}

std::string spec_hash(const kernel_spec& s) {
    std::uint64_t h = ktune::detail::fnv1a_basis;
    h = ktune::detail::fnv1a(h, s.text);
    const auto base = s.path.parent_path();
    for (const auto& f : source_files(s)) {
        // The name relative to the spec, so a moved checkout keys the same.
        h = ktune::detail::fnv1a(h, f.lexically_relative(base).generic_string());
        h = ktune::detail::fnv1a(h, read_all(f));
    }
    return fmt::format("{:016x}", h);
}

std::string name_expression(const kernel_spec& s, const config& c, const problem& p,
                            const device_limits& l) {
    if (s.template_args.empty()) return s.kernel_base;
    const bindings b = bind(s, p, l, c);
    std::string out = s.kernel_base + "<";
    for (std::size_t i = 0; i < s.template_args.size(); ++i) {
        const auto& a = s.template_args[i];
        if (i) out += ", ";
        out += a.value ? std::to_string(eval_named(*a.value, b, "template argument")) : a.type;
    }
    return out + ">";
}

compile::compile_request compile_request_for(const kernel_spec& s, const config& c,
                                             const problem& p, const device_limits& l) {
    compile::compile_request r;
    r.arch = l.arch;
    r.name_expression = name_expression(s, c, p, l);
    for (const auto& src : s.sources)
        r.source += fmt::format("#line 1 \"{}\"\n{}\n", src.generic_string(), read_all(src));
    const bindings b = bind(s, p, l, c);
    for (const auto& d : s.defines)
        r.options.push_back(
            fmt::format("-D{}={}", d.macro, eval_named(d.value, b, "define " + d.macro)));
    std::vector<std::filesystem::path> dirs;
    for (const auto& src : s.sources)
        if (std::find(dirs.begin(), dirs.end(), src.parent_path()) == dirs.end())
            dirs.push_back(src.parent_path());
    dirs.insert(dirs.end(), s.include_dirs.begin(), s.include_dirs.end());
    for (const auto& d : dirs)
        r.options.push_back("-I" + d.string());
    r.options.insert(r.options.end(), s.compile_options.begin(), s.compile_options.end());
    return r;
}

} // namespace ktune::kernel
