#pragma once
// A kernel spec declared in C++: the same spec as the JSON file (docs/formats.md#ktunekernel),
// built member by member with expressions as text, so it stays serialisable: to_json() is the
// spec file, and build() runs it through the same reader and checks as load_spec.
//
//   auto spec = ktune::kernel::kernel_builder("saxpy", "saxpy.cu", "saxpy<BLOCK>")
//                   .dimension("N", 1 << 20)
//                   .param("BLOCK", {128, 256, 512}, 256)
//                   .restriction("BLOCK <= max_threads_per_block")
//                   .grid({"ceil_div(N, BLOCK)"})
//                   .block({"BLOCK"})
//                   .buffer("x", ktune::kernel::element_type::fp32, "N",
//                           ktune::kernel::input_generator::uniform, false)
//                   .buffer("y", ktune::kernel::element_type::fp32, "N",
//                           ktune::kernel::input_generator::none, true)
//                   .scalar("n", ktune::kernel::element_type::int32, "N")
//                   .build("kernels/saxpy.json");   // sources resolve beside this path

#include "ktune/kernel/problem.hpp"
#include "ktune/kernel/spec.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ktune::kernel {

class kernel_builder {
public:
    /// `kernel` is the name in the source, template arguments as expressions ("mm<TILE>").
    kernel_builder(std::string name, const std::filesystem::path& source, std::string kernel);
    ~kernel_builder();
    kernel_builder(const kernel_builder& o);
    kernel_builder& operator=(const kernel_builder& o);
    kernel_builder(kernel_builder&&) noexcept;
    kernel_builder& operator=(kernel_builder&&) noexcept;

    kernel_builder& description(std::string text);
    kernel_builder& source(const std::filesystem::path& more); ///< another source file, in order
    kernel_builder& include_dir(const std::filesystem::path& dir);
    kernel_builder& dimension(std::string name, std::int64_t example);
    kernel_builder& param(std::string name, const std::vector<std::int64_t>& values,
                          std::int64_t default_value);
    kernel_builder& restriction(std::string expression);
    kernel_builder& grid(const std::vector<std::string>& xyz);
    kernel_builder& block(const std::vector<std::string>& xyz);
    kernel_builder& shared_bytes(std::string expression);
    kernel_builder& cluster(const std::vector<std::string>& xyz);
    kernel_builder& define(std::string macro, std::string expression);
    kernel_builder& compile_option(std::string option);
    kernel_builder& buffer(std::string name, element_type type, std::string size,
                           input_generator input, bool output);
    kernel_builder& scalar(std::string name, element_type type, std::string value);
    /// The default config's output is the reference (the default when nothing is said).
    kernel_builder& tolerance(double rtol, double atol);
    /// A plain kernel of the same sources, same arguments, with its own geometry.
    kernel_builder& reference_kernel(std::string kernel, const std::vector<std::string>& grid,
                                     const std::vector<std::string>& block);
    kernel_builder& model(std::string bytes, std::string flops);
    kernel_builder& bucket(std::string dimension, std::string rule); ///< exact|pow2|multiple:N

    /// The spec as JSON text (what a spec file beside the source would hold).
    [[nodiscard]] std::string to_json() const;
    /// The checked spec, as load_spec would give for to_json() saved at `spec_path` (sources
    /// are relative to its directory). Errors name spec_path:line:column of the JSON text.
    [[nodiscard]] kernel_spec build(const std::filesystem::path& spec_path) const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// A loaded spec written back as spec JSON (sources relative to its own directory, expressions
/// as their text): parse_spec of the result gives the same spec.
std::string to_json(const kernel_spec& s);
/// One argument as a spec's "arguments" entry writes it (`ktune ops --json` lists the built-in
/// ops' arguments in this form).
std::string to_json(const argument_spec& a);

} // namespace ktune::kernel
