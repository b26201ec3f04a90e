// kernel_builder and to_json(kernel_spec): spec JSON written from C++
// (docs/formats.md#ktunekernel).
#include "ktune/kernel/builder.hpp"

#include <nlohmann/json.hpp>

namespace ktune::kernel {

using ojson = nlohmann::ordered_json;

namespace {
ojson argument_json(const argument_spec& a) {
    ojson aj{{"name", a.name},
             {"kind", a.kind == argument_kind::buffer ? "buffer" : "scalar"},
             {"dtype", std::string(to_string(a.type))}};
    if (a.kind == argument_kind::scalar) {
        aj["value"] = a.value.text();
        return aj;
    }
    aj["size"] = a.size.text();
    if (a.input != input_generator::none) aj["input"] = std::string(to_string(a.input));
    if (a.output) aj["output"] = true;
    return aj;
}
} // namespace

std::string to_json(const argument_spec& a) {
    return argument_json(a).dump();
}

struct kernel_builder::impl {
    ojson j;
    ojson& obj(const char* key) {
        if (!j.contains(key)) j[key] = ojson::object();
        return j[key];
    }
    ojson& arr(const char* key) {
        if (!j.contains(key)) j[key] = ojson::array();
        return j[key];
    }
};

kernel_builder::kernel_builder(std::string name, const std::filesystem::path& source,
                               std::string kernel)
    : impl_(std::make_unique<impl>()) {
    impl_->j =
        ojson{{"schema", "ktune.kernel"},     {"version", "1.0.0"},
              {"name", std::move(name)},      {"sources", ojson::array({source.generic_string()})},
              {"kernel", std::move(kernel)},  {"dimensions", ojson::object()},
              {"parameters", ojson::object()}};
}
kernel_builder::~kernel_builder() = default;
kernel_builder::kernel_builder(const kernel_builder& o) : impl_(std::make_unique<impl>(*o.impl_)) {}
kernel_builder& kernel_builder::operator=(const kernel_builder& o) {
    if (this != &o) impl_ = std::make_unique<impl>(*o.impl_);
    return *this;
}
kernel_builder::kernel_builder(kernel_builder&&) noexcept = default;
kernel_builder& kernel_builder::operator=(kernel_builder&&) noexcept = default;

kernel_builder& kernel_builder::description(std::string text) {
    impl_->j["description"] = std::move(text);
    return *this;
}
kernel_builder& kernel_builder::source(const std::filesystem::path& more) {
    impl_->arr("sources").push_back(more.generic_string());
    return *this;
}
kernel_builder& kernel_builder::include_dir(const std::filesystem::path& dir) {
    impl_->arr("include_dirs").push_back(dir.generic_string());
    return *this;
}
kernel_builder& kernel_builder::dimension(std::string name, std::int64_t example) {
    impl_->obj("dimensions")[std::move(name)] = example;
    return *this;
}
kernel_builder& kernel_builder::param(std::string name, const std::vector<std::int64_t>& values,
                                      std::int64_t default_value) {
    impl_->obj("parameters")[std::move(name)] = {{"values", values}, {"default", default_value}};
    return *this;
}
kernel_builder& kernel_builder::restriction(std::string expression) {
    impl_->arr("restrictions").push_back(std::move(expression));
    return *this;
}
kernel_builder& kernel_builder::grid(const std::vector<std::string>& xyz) {
    impl_->obj("launch")["grid"] = xyz;
    return *this;
}
kernel_builder& kernel_builder::block(const std::vector<std::string>& xyz) {
    impl_->obj("launch")["block"] = xyz;
    return *this;
}
kernel_builder& kernel_builder::shared_bytes(std::string expression) {
    impl_->obj("launch")["shared_bytes"] = std::move(expression);
    return *this;
}
kernel_builder& kernel_builder::cluster(const std::vector<std::string>& xyz) {
    impl_->obj("launch")["cluster"] = xyz;
    return *this;
}
kernel_builder& kernel_builder::define(std::string macro, std::string expression) {
    impl_->obj("defines")[std::move(macro)] = std::move(expression);
    return *this;
}
kernel_builder& kernel_builder::compile_option(std::string option) {
    impl_->arr("compile_options").push_back(std::move(option));
    return *this;
}
kernel_builder& kernel_builder::buffer(std::string name, element_type type, std::string size,
                                       input_generator input, bool output) {
    ojson a{{"name", std::move(name)},
            {"kind", "buffer"},
            {"dtype", std::string(to_string(type))},
            {"size", std::move(size)}};
    if (input != input_generator::none) a["input"] = std::string(to_string(input));
    if (output) a["output"] = true;
    impl_->arr("arguments").push_back(std::move(a));
    return *this;
}
kernel_builder& kernel_builder::scalar(std::string name, element_type type, std::string value) {
    impl_->arr("arguments")
        .push_back({{"name", std::move(name)},
                    {"kind", "scalar"},
                    {"dtype", std::string(to_string(type))},
                    {"value", std::move(value)}});
    return *this;
}
kernel_builder& kernel_builder::tolerance(double rtol, double atol) {
    auto& c = impl_->obj("correctness");
    c["rtol"] = rtol;
    c["atol"] = atol;
    return *this;
}
kernel_builder& kernel_builder::reference_kernel(std::string kernel,
                                                 const std::vector<std::string>& grid,
                                                 const std::vector<std::string>& block) {
    impl_->obj("correctness")["reference"] = {
        {"kernel", std::move(kernel)}, {"grid", grid}, {"block", block}};
    return *this;
}
kernel_builder& kernel_builder::model(std::string bytes, std::string flops) {
    impl_->obj("model") = {{"bytes", std::move(bytes)}, {"flops", std::move(flops)}};
    return *this;
}
kernel_builder& kernel_builder::bucket(std::string dimension, std::string rule) {
    impl_->obj("bucket")[std::move(dimension)] = std::move(rule);
    return *this;
}

std::string kernel_builder::to_json() const {
    return impl_->j.dump(2) + "\n";
}

kernel_spec kernel_builder::build(const std::filesystem::path& spec_path) const {
    return parse_spec(to_json(), spec_path);
}

namespace {

ojson dims3(const std::array<located_expr, 3>& v) {
    ojson out = ojson::array();
    for (const auto& e : v)
        out.push_back(e.e.text());
    return out;
}

ojson launch_json(const launch_spec& l) {
    ojson j{{"grid", dims3(l.grid)},
            {"block", dims3(l.block)},
            {"shared_bytes", l.shared_bytes.e.text()}};
    if (l.has_cluster) j["cluster"] = dims3(l.cluster);
    return j;
}

std::string bucket_text(const bucket_spec& b) {
    switch (b.rule) {
    case bucket_rule::pow2:
        return "pow2";
    case bucket_rule::multiple:
        return "multiple:" + std::to_string(b.multiple);
    case bucket_rule::exact:
        break;
    }
    return "exact";
}

} // namespace

std::string to_json(const kernel_spec& s) {
    const auto dir = s.path.parent_path();
    auto rel = [&](const std::filesystem::path& p) {
        return p.lexically_relative(dir.empty() ? std::filesystem::path(".") : dir)
            .generic_string();
    };
    ojson j{{"schema", "ktune.kernel"}, {"version", "1.0.0"}, {"name", s.name}};
    if (!s.description.empty()) j["description"] = s.description;
    j["sources"] = ojson::array();
    for (const auto& src : s.sources)
        j["sources"].push_back(rel(src));
    for (const auto& d : s.include_dirs)
        j["include_dirs"].push_back(rel(d));
    j["kernel"] = s.kernel;
    j["dimensions"] = ojson::object();
    for (const auto& [n, v] : s.dimensions)
        j["dimensions"][n] = v;
    j["parameters"] = ojson::object();
    for (const auto& p : s.parameters)
        j["parameters"][p.name] = {{"values", p.values}, {"default", p.default_value}};
    for (const auto& r : s.restrictions)
        j["restrictions"].push_back(r.e.text());
    j["launch"] = launch_json(s.launch);
    for (const auto& d : s.defines)
        j["defines"][d.macro] = d.value.e.text();
    for (const auto& o : s.compile_options)
        j["compile_options"].push_back(o);
    j["arguments"] = ojson::array();
    for (const auto& a : s.arguments)
        j["arguments"].push_back(argument_json(a));
    const auto& ref = s.correctness.reference;
    ojson c{{"reference", "default_config"}};
    if (!ref.default_config) {
        c["reference"] = ref.launch ? launch_json(*ref.launch) : ojson::object();
        c["reference"]["kernel"] = ref.kernel;
    }
    c["rtol"] = s.correctness.rtol;
    c["atol"] = s.correctness.atol;
    j["correctness"] = std::move(c);
    if (s.bytes) j["model"]["bytes"] = s.bytes->e.text();
    if (s.flops) j["model"]["flops"] = s.flops->e.text();
    for (const auto& b : s.bucket)
        j["bucket"][b.dim] = bucket_text(b);
    return j.dump(2) + "\n";
}

} // namespace ktune::kernel
