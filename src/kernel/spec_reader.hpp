#pragma once
// The checked reader behind load_spec: every message starts with file:line:column of the
// offending member, found by json_locator. Private to src/kernel.
#include "ktune/kernel/spec.hpp"

#include "kernel/json_locator.hpp"

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <set>
#include <string>

namespace ktune::kernel::detail {

using json = nlohmann::ordered_json;

/// Which names an expression may use.
enum class name_scope {
    everything, ///< parameters, dimensions, device limits (restrictions, launch, defines)
    problem,    ///< parameters and dimensions (argument sizes and scalar values)
    dimensions, ///< dimensions only (bytes/FLOP model: the same for every config)
};

class spec_reader {
public:
    spec_reader(const std::string& text, std::string source);

    /// "file:line:column" of the value at path (of its key with at_key).
    [[nodiscard]] std::string where(const std::string& path, bool at_key = false) const;
    [[noreturn]] void fail(const std::string& path, const std::string& what,
                           bool at_key = false) const;
    /// A failure inside a string value, `offset` bytes into its text.
    [[noreturn]] void fail_in(const std::string& path, std::size_t offset,
                              const std::string& what) const;

    /// Rejects a member not in `allowed` (at its key, listing the allowed ones).
    void only_keys(const json& obj, const std::string& path,
                   std::initializer_list<const char*> allowed) const;
    const json& member(const json& obj, const std::string& path, const char* key,
                       const char* expect) const;                                 ///< required
    [[nodiscard]] std::string text(const json& v, const std::string& path) const; ///< non-empty
    [[nodiscard]] std::int64_t integer(const json& v, const std::string& path) const;
    [[nodiscard]] double number(const json& v, const std::string& path) const; ///< finite, >= 0

    /// An expression (a string, or a JSON integer), its names checked against `scope`; `shift`
    /// moves error offsets when the expression is a part of the string at `path`.
    [[nodiscard]] located_expr expression(const json& v, const std::string& path, name_scope scope,
                                          const char* what, std::size_t shift = 0) const;

    // Names known once "dimensions" and "parameters" are read.
    std::set<std::string, std::less<>> dimensions;
    std::set<std::string, std::less<>> parameters;

    const std::string& text_;
    std::string source_;
    json_locator loc_;
};

// The parts of a spec, each read by one function (spec_read_parts.cpp).
launch_spec read_launch(const spec_reader& r, const json& v, const std::string& path);
std::vector<argument_spec> read_arguments(const spec_reader& r, const json& v,
                                          const std::string& path);
correctness_spec read_correctness(const spec_reader& r, const json& v, const std::string& path);
std::vector<bucket_spec> read_bucket(const spec_reader& r, const json& v, const std::string& path);
std::vector<define_spec> read_defines(const spec_reader& r, const json& v, const std::string& path);

bool is_identifier(std::string_view s) noexcept;

} // namespace ktune::kernel::detail
