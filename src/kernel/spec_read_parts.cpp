// The parts of a kernel spec below the top level: launch geometry, defines, arguments,
// correctness and the bucket policy (docs/formats.md#ktunekernel).
#include "kernel/spec_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ktune::kernel::detail {
namespace {

std::array<located_expr, 3> read_dims3(const spec_reader& r, const json& obj,
                                       const std::string& path, const char* key, const char* what) {
    std::array<located_expr, 3> out{located_expr{expr::constant(1), r.where(path)},
                                    located_expr{expr::constant(1), r.where(path)},
                                    located_expr{expr::constant(1), r.where(path)}};
    const std::string p = path + "/" + key;
    const json& v = r.member(obj, path, key, "[x, y, z] as expressions");
    if (!v.is_array() || v.empty() || v.size() > 3)
        r.fail(p,
               fmt::format("must be an array of 1 to 3 expressions [x, y, z], not {}", v.dump()));
    static constexpr const char* axis[] = {"x", "y", "z"};
    for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = r.expression(v[i], p + "/" + std::to_string(i), name_scope::everything,
                              fmt::format("{}.{}", what, axis[i]).c_str());
    return out;
}

} // namespace

launch_spec read_launch(const spec_reader& r, const json& v, const std::string& path) {
    if (!v.is_object())
        r.fail(path,
               "must be an object: {\"grid\": [...], \"block\": [...], \"shared_bytes\": ...}");
    r.only_keys(v, path, {"grid", "block", "shared_bytes", "cluster"});
    launch_spec l;
    l.where = r.where(path);
    l.grid = read_dims3(r, v, path, "grid", "grid");
    l.block = read_dims3(r, v, path, "block", "block");
    l.shared_bytes = {expr::constant(0), r.where(path)};
    if (v.contains("shared_bytes"))
        l.shared_bytes = r.expression(v["shared_bytes"], path + "/shared_bytes",
                                      name_scope::everything, "shared_bytes");
    l.cluster = {located_expr{expr::constant(1), r.where(path)},
                 located_expr{expr::constant(1), r.where(path)},
                 located_expr{expr::constant(1), r.where(path)}};
    if (v.contains("cluster")) {
        l.cluster = read_dims3(r, v, path, "cluster", "cluster");
        l.has_cluster = true;
    }
    return l;
}

std::vector<define_spec> read_defines(const spec_reader& r, const json& v,
                                      const std::string& path) {
    std::vector<define_spec> out;
    if (v.is_array()) { // ["TILE", "VEC"]: each parameter under its own name
        for (std::size_t i = 0; i < v.size(); ++i) {
            const std::string p = path + "/" + std::to_string(i);
            const std::string name = r.text(v[i], p);
            if (!r.parameters.count(name))
                r.fail(p, fmt::format("'{}' is not a parameter (the array form of \"defines\" "
                                      "lists parameter names; use an object for other values)",
                                      name));
            out.push_back({name, r.expression(v[i], p, name_scope::everything, "a define")});
        }
        return out;
    }
    if (!v.is_object())
        r.fail(path,
               "must be an object {\"MACRO\": \"expression\"} or an array of parameter names");
    for (const auto& [macro, value] : v.items()) {
        const std::string p = path + "/" + path_step(macro);
        if (!is_identifier(macro))
            r.fail(p, fmt::format("'{}' is not a macro name (letters, digits, '_')", macro), true);
        out.push_back({macro, r.expression(value, p, name_scope::everything,
                                           fmt::format("define {}", macro).c_str())});
    }
    return out;
}

std::vector<argument_spec> read_arguments(const spec_reader& r, const json& v,
                                          const std::string& path) {
    if (!v.is_array() || v.empty())
        r.fail(path, "must be a non-empty array of the kernel's arguments, in order");
    std::vector<argument_spec> out;
    bool any_output = false;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string p = path + "/" + std::to_string(i);
        const json& a = v[i];
        if (!a.is_object())
            r.fail(p, "an argument is an object such as {\"name\": \"x\", \"kind\": \"buffer\", "
                      "\"dtype\": \"fp32\", \"size\": \"N\", \"input\": \"uniform\"}");
        argument_spec arg;
        arg.where = r.where(p);
        arg.name = r.text(r.member(a, p, "name", "the argument's name"), p + "/name");
        if (!is_identifier(arg.name))
            r.fail(p + "/name", fmt::format("'{}' is not an identifier", arg.name));
        for (const auto& earlier : out)
            if (earlier.name == arg.name)
                r.fail(p + "/name", fmt::format("a second argument named '{}'", arg.name));
        const std::string kind =
            r.text(r.member(a, p, "kind", "\"buffer\" or \"scalar\""), p + "/kind");
        const std::string dtype = r.text(r.member(a, p, "dtype", "its element type"), p + "/dtype");
        const auto t = parse_element_type(dtype);
        if (!t)
            r.fail(p + "/dtype",
                   fmt::format("unknown dtype '{}' (known: {})", dtype, element_type_names()));
        arg.type = *t;
        if (kind == "buffer") {
            r.only_keys(a, p, {"name", "kind", "dtype", "size", "input", "output"});
            arg.kind = argument_kind::buffer;
            arg.size = r.expression(r.member(a, p, "size", "its element count as an expression"),
                                    p + "/size", name_scope::problem, "a buffer size")
                           .e;
            if (a.contains("input")) {
                const std::string g = r.text(a["input"], p + "/input");
                const auto gen = parse_input_generator(g);
                if (!gen)
                    r.fail(p + "/input", fmt::format("unknown input generator '{}' (known: "
                                                     "uniform, normal, ones, zeros, iota)",
                                                     g));
                arg.input = *gen;
            }
            if (a.contains("output")) {
                if (!a["output"].is_boolean()) r.fail(p + "/output", "must be true or false");
                arg.output = a["output"].get<bool>();
            }
            if (arg.input == input_generator::none && !arg.output)
                r.fail(p, fmt::format("buffer '{}' is neither an input (\"input\": a generator) "
                                      "nor an output (\"output\": true)",
                                      arg.name));
            any_output = any_output || arg.output;
        } else if (kind == "scalar") {
            r.only_keys(a, p, {"name", "kind", "dtype", "value"});
            arg.kind = argument_kind::scalar;
            if (arg.type != element_type::int32 && arg.type != element_type::int64)
                r.fail(p + "/dtype", fmt::format("a scalar's dtype is int32 or int64 (its value "
                                                 "is an integer expression), not '{}'",
                                                 dtype));
            arg.value = r.expression(r.member(a, p, "value", "its value as an expression"),
                                     p + "/value", name_scope::problem, "a scalar value")
                            .e;
        } else {
            r.fail(p + "/kind", fmt::format("unknown kind '{}' (known: buffer, scalar)", kind));
        }
        out.push_back(std::move(arg));
    }
    if (!any_output)
        r.fail(path, "no buffer is an output (\"output\": true): nothing could be checked");
    return out;
}

correctness_spec read_correctness(const spec_reader& r, const json& v, const std::string& path) {
    if (!v.is_object())
        r.fail(path, "must be an object: {\"reference\": \"default_config\", \"rtol\": ..., "
                     "\"atol\": ...}");
    r.only_keys(v, path, {"reference", "rtol", "atol"});
    correctness_spec c;
    if (v.contains("rtol")) c.rtol = r.number(v["rtol"], path + "/rtol");
    if (v.contains("atol")) c.atol = r.number(v["atol"], path + "/atol");
    if (!v.contains("reference")) return c;
    const std::string p = path + "/reference";
    const json& ref = v["reference"];
    c.reference.where = r.where(p);
    if (ref.is_string()) {
        if (ref.get<std::string>() != "default_config")
            r.fail(p, fmt::format("'{}': a string reference is \"default_config\"; a reference "
                                  "kernel is an object {{\"kernel\": ..., \"grid\": ..., "
                                  "\"block\": ...}}",
                                  ref.get<std::string>()));
        return c;
    }
    if (!ref.is_object())
        r.fail(p, "must be \"default_config\" or an object {\"kernel\": ..., \"grid\": ..., "
                  "\"block\": ...}");
    r.only_keys(ref, p, {"kernel", "grid", "block", "shared_bytes"});
    c.reference.default_config = false;
    c.reference.kernel =
        r.text(r.member(ref, p, "kernel", "the reference kernel's name"), p + "/kernel");
    if (!is_identifier(c.reference.kernel))
        r.fail(p + "/kernel", fmt::format("'{}' is not a kernel name (a reference kernel is a "
                                          "plain, non-template kernel)",
                                          c.reference.kernel));
    if (ref.contains("grid") || ref.contains("block")) {
        json geometry = ref; // the same object less its kernel name; paths (and so positions) hold
        geometry.erase("kernel");
        c.reference.launch = read_launch(r, geometry, p);
    }
    return c;
}

std::vector<bucket_spec> read_bucket(const spec_reader& r, const json& v, const std::string& path) {
    if (!v.is_object())
        r.fail(path, "must be an object {\"M\": \"pow2\", \"K\": \"multiple:64\", ...}");
    std::vector<bucket_spec> out;
    for (const auto& [dim, rule] : v.items()) {
        const std::string p = path + "/" + path_step(dim);
        if (!r.dimensions.count(dim))
            r.fail(p, fmt::format("'{}' is not a dimension of the spec", dim), true);
        const std::string text = r.text(rule, p);
        bucket_spec b{dim, bucket_rule::exact, 1};
        if (text == "pow2") {
            b.rule = bucket_rule::pow2;
        } else if (text.rfind("multiple:", 0) == 0) {
            b.rule = bucket_rule::multiple;
            try {
                std::size_t used = 0;
                b.multiple = std::stoll(text.substr(9), &used);
                if (used != text.size() - 9 || b.multiple <= 0) b.multiple = 0;
            } catch (const std::exception&) {
                b.multiple = 0;
            }
            if (b.multiple <= 0)
                r.fail(p, fmt::format("'{}': multiple:N needs a positive integer N", text));
        } else if (text != "exact") {
            r.fail(p,
                   fmt::format("unknown bucket rule '{}' (known: exact, pow2, multiple:N)", text));
        }
        out.push_back(b);
    }
    return out;
}

} // namespace ktune::kernel::detail
