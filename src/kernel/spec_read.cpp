// load_spec: the JSON kernel spec (docs/formats.md#ktunekernel) read into a kernel_spec, with
// file:line:column on every error.
#include "ktune/kernel/limits.hpp"
#include "ktune/kernel/spec.hpp"

#include "core/line_column.hpp"
#include "kernel/spec_reader.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ktune::kernel {

namespace {

using detail::json;
using detail::name_scope;
using detail::path_step;
using detail::spec_reader;

bool is_type_name(std::string_view s) {
    static constexpr std::string_view types[] = {
        "float",   "double",        "int",           "unsigned",      "long",     "long long",
        "short",   "char",          "signed char",   "unsigned char", "bool",     "half",
        "__half",  "__nv_bfloat16", "__nv_fp8_e4m3", "__nv_fp8_e5m2", "int8_t",   "uint8_t",
        "int16_t", "int32_t",       "int64_t",       "uint32_t",      "uint64_t", "size_t"};
    return std::find(std::begin(types), std::end(types), s) != std::end(types);
}

std::string_view trim(std::string_view s, std::size_t* lead = nullptr) {
    std::size_t a = 0;
    while (a < s.size() && std::isspace(static_cast<unsigned char>(s[a])))
        ++a;
    std::size_t b = s.size();
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
        --b;
    if (lead) *lead = a;
    return s.substr(a, b - a);
}

// "matmul<TILE_M, (A < B)>": the base name, then top-level comma-separated arguments.
void read_kernel_name(const spec_reader& r, const json& v, kernel_spec& s) {
    const std::string path = "/kernel";
    s.kernel = r.text(v, path);
    s.kernel_where = r.where(path);
    const std::string& k = s.kernel;
    const std::size_t open = k.find('<');
    std::size_t lead = 0;
    const std::string_view base = trim(std::string_view(k).substr(0, open), &lead);
    std::string plain(base);
    for (std::size_t p = 0; (p = plain.find("::", p)) != std::string::npos;)
        plain.replace(p, 2, "_");
    if (!detail::is_identifier(plain))
        r.fail_in(path, lead,
                  fmt::format("'{}' is not a kernel name (an identifier, optionally "
                              "with template arguments: name<A, B>)",
                              base));
    s.kernel_base = std::string(base);
    if (open == std::string::npos) return;
    const std::size_t close = k.find_last_not_of(" \t");
    if (k[close] != '>') r.fail_in(path, close, "the template argument list must end with '>'");
    int depth = 0;
    std::size_t start = open + 1;
    for (std::size_t i = open + 1; i <= close; ++i) {
        const char c = k[i];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if ((c == ',' && depth == 0) || i == close) {
            std::size_t arg_lead = 0;
            const std::string_view arg =
                trim(std::string_view(k).substr(start, i - start), &arg_lead);
            if (arg.empty()) r.fail_in(path, i, "an empty template argument");
            template_arg ta;
            if (is_type_name(arg)) {
                ta.type = std::string(arg);
            } else {
                // An expression of the spec; its offsets point into the kernel text.
                ta.value = r.expression(json(std::string(arg)), path, name_scope::everything,
                                        "a template argument", start + arg_lead);
            }
            s.template_args.push_back(std::move(ta));
            start = i + 1;
        }
    }
}

void read_dimensions(spec_reader& r, const json& v, kernel_spec& s) {
    const std::string path = "/dimensions";
    if (!v.is_object() || v.empty())
        r.fail(path, "must be an object of dimension names and example sizes, such as "
                     "{\"M\": 4096, \"N\": 4096}");
    const auto& limits = device_limits::names();
    for (const auto& [name, value] : v.items()) {
        const std::string p = path + "/" + path_step(name);
        if (!detail::is_identifier(name))
            r.fail(p, fmt::format("'{}' is not a dimension name (letters, digits, '_')", name),
                   true);
        if (std::find(limits.begin(), limits.end(), name) != limits.end())
            r.fail(p,
                   fmt::format("'{}' is a device limit's name; call the dimension otherwise", name),
                   true);
        const std::int64_t example = r.integer(value, p);
        if (example <= 0)
            r.fail(p, fmt::format("the example size must be positive, not {}", example));
        s.dimensions.emplace_back(name, example);
        r.dimensions.insert(name);
    }
}

void read_parameters(spec_reader& r, const json& v, kernel_spec& s) {
    const std::string path = "/parameters";
    if (!v.is_object())
        r.fail(path, "must be an object such as {\"BLOCK\": {\"values\": [128, 256], "
                     "\"default\": 256}}");
    const auto& limits = device_limits::names();
    for (const auto& [name, value] : v.items()) {
        const std::string p = path + "/" + path_step(name);
        if (!detail::is_identifier(name))
            r.fail(p, fmt::format("'{}' is not a parameter name (letters, digits, '_')", name),
                   true);
        if (r.dimensions.count(name))
            r.fail(p, fmt::format("'{}' is already a dimension; a name is one or the other", name),
                   true);
        if (std::find(limits.begin(), limits.end(), name) != limits.end())
            r.fail(p,
                   fmt::format("'{}' is a device limit's name; call the parameter otherwise", name),
                   true);
        if (!value.is_object())
            r.fail(p, "must be an object: {\"values\": [...], \"default\": ...}");
        r.only_keys(value, p, {"values", "default", "doc"});
        tunable_parameter tp;
        tp.name = name;
        tp.where = r.where(p, true);
        const json& values = r.member(value, p, "values", "the list of values to try");
        if (!values.is_array() || values.empty())
            r.fail(p + "/values", "must be a non-empty array of integers");
        for (std::size_t i = 0; i < values.size(); ++i) {
            const std::string vp = p + "/values/" + std::to_string(i);
            const std::int64_t x = r.integer(values[i], vp);
            if (std::find(tp.values.begin(), tp.values.end(), x) != tp.values.end())
                r.fail(vp, fmt::format("{} is listed twice", x));
            tp.values.push_back(x);
        }
        const json& def = r.member(value, p, "default", "the value of the default config");
        tp.default_value = r.integer(def, p + "/default");
        if (std::find(tp.values.begin(), tp.values.end(), tp.default_value) == tp.values.end())
            r.fail(p + "/default",
                   fmt::format("{} is not one of the values {}", tp.default_value, values.dump()));
        if (value.contains("doc") && !value["doc"].is_string())
            r.fail(p + "/doc", "must be a string");
        s.parameters.push_back(std::move(tp));
        r.parameters.insert(name);
    }
}

std::filesystem::path resolve(const spec_reader& r, const std::filesystem::path& dir, const json& v,
                              const std::string& path, bool directory) {
    const std::string rel = r.text(v, path);
    std::filesystem::path full = (dir / rel).lexically_normal();
    std::error_code ec;
    const bool ok = directory ? std::filesystem::is_directory(full, ec)
                              : std::filesystem::is_regular_file(full, ec);
    if (!ok)
        r.fail(path,
               fmt::format("{} '{}' not found (looked for {}; paths are relative to the "
                           "spec's directory)",
                           directory ? "include directory" : "source file", rel, full.string()));
    return full;
}

std::vector<std::filesystem::path> read_paths(const spec_reader& r, const json& v,
                                              const std::string& path,
                                              const std::filesystem::path& dir, bool directory) {
    if (!v.is_array() || (!directory && v.empty()))
        r.fail(path, directory
                         ? "must be an array of directories"
                         : "must be a non-empty array of source files, such as [\"matmul.cu\"]");
    std::vector<std::filesystem::path> out;
    for (std::size_t i = 0; i < v.size(); ++i)
        out.push_back(resolve(r, dir, v[i], path + "/" + std::to_string(i), directory));
    return out;
}

std::vector<std::string> read_options(const spec_reader& r, const json& v) {
    const std::string path = "/compile_options";
    if (!v.is_array())
        r.fail(path, "must be an array of NVRTC options, such as [\"-use_fast_math\"]");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string p = path + "/" + std::to_string(i);
        std::string o = r.text(v[i], p);
        // The arch is the check's or the tuner's choice (--arch), never the spec's.
        if (o.rfind("-arch", 0) == 0 || o.rfind("--gpu-architecture", 0) == 0 ||
            o.rfind("-gpu-architecture", 0) == 0)
            r.fail(p, fmt::format("'{}': the target arch comes from --arch, not the spec", o));
        out.push_back(std::move(o));
    }
    return out;
}

// A parameter that changes neither the source nor the launch would multiply the space by
// configs that are all the same kernel.
void check_parameters_used(const spec_reader& r, const kernel_spec& s) {
    std::set<std::string, std::less<>> used;
    auto add = [&](const located_expr& e) {
        for (auto& n : e.e.names())
            used.insert(n);
    };
    for (const auto& d : s.defines)
        add(d.value);
    for (const auto& t : s.template_args)
        if (t.value) add(*t.value);
    for (const auto* a : {&s.launch.grid, &s.launch.block, &s.launch.cluster})
        for (const auto& e : *a)
            add(e);
    add(s.launch.shared_bytes);
    for (const auto& a : s.arguments) {
        for (auto& n : a.size.names())
            used.insert(n);
        for (auto& n : a.value.names())
            used.insert(n);
    }
    for (const auto& p : s.parameters)
        if (!used.count(p.name))
            r.fail("/parameters/" + path_step(p.name),
                   fmt::format("parameter '{}' reaches neither the source (\"defines\", template "
                               "arguments of \"kernel\") nor the launch geometry or arguments: "
                               "every value would compile the same kernel",
                               p.name),
                   true);
}

} // namespace

problem kernel_spec::example_problem() const {
    return problem{dimensions};
}

const tunable_parameter* kernel_spec::find_parameter(std::string_view n) const noexcept {
    for (const auto& p : parameters)
        if (p.name == n) return &p;
    return nullptr;
}

kernel_spec parse_spec(std::string text, const std::filesystem::path& path) {
    kernel_spec s;
    s.path = path;
    s.text = std::move(text);
    const std::string source = path.string();
    json root;
    try {
        root = json::parse(s.text);
    } catch (const json::parse_error& e) {
        // nlohmann's byte is one past the offending character.
        throw error(error_kind::input,
                    fmt::format("{}:{}: not valid JSON ({})", source,
                                ktune::detail::line_column(s.text, e.byte ? e.byte - 1 : 0),
                                e.what()));
    } catch (const json::exception& e) {
        throw error(error_kind::input,
                    fmt::format("{}:1:1: not usable JSON ({})", source, e.what()));
    }
    spec_reader r(s.text, source);
    if (const auto& [dup, at] = r.loc_.first_duplicate(); !dup.empty())
        throw error(error_kind::input, fmt::format("{}:{}: key '{}' is given twice in one object",
                                                   source, ktune::detail::line_column(s.text, at),
                                                   dup.substr(dup.rfind('/') + 1)));
    if (!root.is_object())
        r.fail("", "a kernel spec is a JSON object (docs/formats.md#ktunekernel)");
    r.only_keys(root, "",
                {"schema", "version", "name", "description", "sources", "include_dirs", "kernel",
                 "dimensions", "parameters", "restrictions", "launch", "defines", "compile_options",
                 "arguments", "correctness", "model", "bucket"});
    const auto schema = r.text(r.member(root, "", "schema", "\"ktune.kernel\""), "/schema");
    if (schema != "ktune.kernel")
        r.fail("/schema", fmt::format("is '{}', expected 'ktune.kernel'", schema));
    const auto version = r.text(r.member(root, "", "version", "\"1.0.0\""), "/version");
    if (version.rfind("1.", 0) != 0)
        r.fail("/version", fmt::format("'{}' is not version 1.x, which this ktune reads", version));
    s.name =
        r.text(r.member(root, "", "name", "the kernel's name in listings and cache keys"), "/name");
    if (root.contains("description"))
        s.description = root["description"].is_string()
                            ? root["description"].get<std::string>()
                            : (r.fail("/description", "must be a string"), std::string());
    const std::filesystem::path dir = path.parent_path();
    s.sources =
        read_paths(r, r.member(root, "", "sources", "the .cu file(s), relative to the spec"),
                   "/sources", dir, false);
    if (root.contains("include_dirs"))
        s.include_dirs = read_paths(r, root["include_dirs"], "/include_dirs", dir, true);
    read_dimensions(r, r.member(root, "", "dimensions", "the problem's named sizes"), s);
    read_parameters(r, r.member(root, "", "parameters", "the tunable parameters"), s);
    read_kernel_name(r, r.member(root, "", "kernel", "the kernel's name in the source"), s);
    if (root.contains("restrictions")) {
        const json& v = root["restrictions"];
        if (!v.is_array()) r.fail("/restrictions", "must be an array of expressions");
        for (std::size_t i = 0; i < v.size(); ++i)
            s.restrictions.push_back(r.expression(v[i], "/restrictions/" + std::to_string(i),
                                                  name_scope::everything, "a restriction"));
    }
    s.launch = detail::read_launch(r, r.member(root, "", "launch", "grid, block, shared_bytes"),
                                   "/launch");
    if (root.contains("defines")) s.defines = detail::read_defines(r, root["defines"], "/defines");
    if (root.contains("compile_options"))
        s.compile_options = read_options(r, root["compile_options"]);
    s.arguments = detail::read_arguments(
        r, r.member(root, "", "arguments", "the kernel's arguments in order"), "/arguments");
    if (root.contains("correctness"))
        s.correctness = detail::read_correctness(r, root["correctness"], "/correctness");
    if (root.contains("model")) {
        const json& m = root["model"];
        if (!m.is_object()) r.fail("/model", "must be an object: {\"bytes\": ..., \"flops\": ...}");
        r.only_keys(m, "/model", {"bytes", "flops"});
        if (m.contains("bytes"))
            s.bytes =
                r.expression(m["bytes"], "/model/bytes", name_scope::dimensions, "the bytes model");
        if (m.contains("flops"))
            s.flops =
                r.expression(m["flops"], "/model/flops", name_scope::dimensions, "the FLOP model");
    }
    if (root.contains("bucket")) s.bucket = detail::read_bucket(r, root["bucket"], "/bucket");
    check_parameters_used(r, s);
    return s;
}

kernel_spec load_spec(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw error(
            error_kind::input,
            fmt::format("{}:1:1: is a directory; give the spec's .json file", path.string()));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw error(error_kind::input,
                    fmt::format("{}:1:1: cannot open the kernel spec for reading", path.string()));
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_spec(ss.str(), path);
}

} // namespace ktune::kernel
