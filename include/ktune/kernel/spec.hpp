#pragma once
// A user kernel declared once in a JSON spec beside its .cu file: sources, kernel name
// (templates allowed), tunable parameters, restrictions and launch geometry as expressions,
// how parameters reach the source, arguments, correctness reference, bytes/FLOP model and
// shape-bucket policy. The format is docs/formats.md#ktunekernel.
//
//   ktune::kernel::kernel_spec s = ktune::kernel::load_spec("examples/kernels/matmul/matmul.json");
//   for (const auto& p : s.parameters) std::puts(p.name.c_str());
//
// Every error is an error{input} that starts with "file:line:column: " pointing into the spec.

#include "ktune/kernel/expr.hpp"
#include "ktune/kernel/problem.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ktune::kernel {

/// An expression with where it was written ("matmul.json:12:9"), for messages.
struct located_expr {
    expr e;
    std::string where;
};

struct tunable_parameter {
    std::string name;
    std::vector<std::int64_t> values;
    std::int64_t default_value = 0;
    std::string where;
};

/// A template argument of the kernel name: an integer expression, or a C++ type written as is.
struct template_arg {
    std::optional<located_expr> value; ///< set for an expression
    std::string type;                  ///< set for a type ("float", "__nv_bfloat16")
};

struct launch_spec {
    std::array<located_expr, 3> grid;
    std::array<located_expr, 3> block;
    located_expr shared_bytes; ///< dynamic shared memory
    std::array<located_expr, 3> cluster;
    bool has_cluster = false;
    std::string where; ///< the "launch" object
};

/// -D<macro>=<value> handed to NVRTC for each config.
struct define_spec {
    std::string macro;
    located_expr value;
};

struct reference_spec {
    bool default_config = true;        ///< the default config's output is the reference
    std::string kernel;                ///< else a kernel in the same sources
    std::optional<launch_spec> launch; ///< its geometry (none: the candidate's)
    std::string where;
};

struct correctness_spec {
    reference_spec reference;
    double rtol = 1e-5;
    double atol = 1e-5;
};

enum class bucket_rule { exact, pow2, multiple };

/// A cache entry is filed under each dimension rounded by its rule (pow2: the next power of
/// two; multiple: the next multiple of `multiple`).
struct bucket_spec {
    std::string dim;
    bucket_rule rule = bucket_rule::exact;
    std::int64_t multiple = 1;
};

struct kernel_spec {
    std::filesystem::path path; ///< the spec file
    std::string text;           ///< the spec file's bytes (hashed into the key)
    std::string name;
    std::string description;
    std::vector<std::filesystem::path> sources; ///< resolved against the spec's directory
    std::vector<std::filesystem::path> include_dirs;
    std::string kernel;      ///< as written: "matmul<TILE_M, TILE_N>"
    std::string kernel_base; ///< "matmul"
    std::vector<template_arg> template_args;
    std::string kernel_where;
    std::vector<std::pair<std::string, std::int64_t>> dimensions; ///< name, example value
    std::vector<tunable_parameter> parameters;
    std::vector<located_expr> restrictions;
    launch_spec launch;
    std::vector<define_spec> defines;
    std::vector<std::string> compile_options;
    std::vector<argument_spec> arguments;
    correctness_spec correctness;
    std::optional<located_expr> bytes; ///< minimum bytes moved, over dimensions
    std::optional<located_expr> flops;
    std::vector<bucket_spec> bucket;

    /// The spec's example problem (its "dimensions" values).
    [[nodiscard]] problem example_problem() const;
    [[nodiscard]] const tunable_parameter* find_parameter(std::string_view n) const noexcept;
};

/// Reads and checks a spec: JSON syntax, unknown or missing keys, types, every expression's
/// syntax and names (parameters, dimensions, device limits), defaults among the values,
/// duplicate names, source files present. Throws error{input} with "file:line:column: ".
kernel_spec load_spec(const std::filesystem::path& path);
/// The same from text already read; `path` names the file in messages and anchors sources.
kernel_spec parse_spec(std::string text, const std::filesystem::path& path);

} // namespace ktune::kernel
