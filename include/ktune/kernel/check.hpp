#pragma once
// `ktune kernel check`: everything about a spec that can be known without a GPU. It loads and
// validates the spec, sizes its space for a problem, computes the default config's launch
// geometry and compiles that config with NVRTC (which also proves the kernel name exists).
//
//   auto s = ktune::kernel::load_spec("matmul.json");
//   ktune::kernel::check_report r = ktune::kernel::check_spec(s, {});
//   std::puts(ktune::kernel::check_report_json(r).c_str());   // schema ktune.kernel_check

#include "ktune/core/config.hpp"
#include "ktune/kernel/limits.hpp"
#include "ktune/kernel/space.hpp"
#include "ktune/kernel/spec.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune::kernel {

struct check_options {
    std::optional<problem> prob; ///< none: the spec's example dimensions
    device_limits limits;
    bool compile = true; ///< compile the default config (and a kernel reference) with NVRTC
    /// Also compile this many other valid configs, drawn at random with a fixed seed (the same
    /// ones every run): a space whose corners do not compile is found before any tune.
    unsigned sample = 0;
};

/// One sampled config's compile: a failure is a finding of the check, not an error.
struct sampled_compile {
    config cfg;
    bool ok = false;
    std::string error; ///< the first error line of NVRTC's log
};

struct buffer_size {
    std::string name;
    std::string dtype;
    std::int64_t elements = 0;
    std::int64_t bytes = 0;
    bool input = false;
    bool output = false;
};

struct check_report {
    std::string spec; ///< the spec's path as given
    std::string name;
    std::string hash; ///< spec_hash
    problem prob;
    std::string arch;
    space_counts counts;
    std::vector<std::string> restrictions; ///< texts, in the order of counts.rejected_by
    config default_cfg;
    geometry default_geometry;
    std::string name_expression;
    std::vector<buffer_size> buffers;
    std::optional<std::int64_t> bytes;
    std::optional<std::int64_t> flops;
    problem bucket; ///< the problem's shape bucket
    bool compiled = false;
    std::string lowered_name;      ///< from NVRTC
    std::string reference_lowered; ///< a reference kernel's, when the spec names one
    double compile_ms = 0;         ///< not in the JSON (it varies run to run)
    std::vector<sampled_compile> sampled;
    /// Sampled configs that failed to compile.
    [[nodiscard]] std::size_t sample_failures() const;
};

/// Throws error{input} (file:line:column) for the first problem found, error{nvrtc} when the
/// default config does not compile for another reason than a missing kernel.
check_report check_spec(const kernel_spec& s, const check_options& o);

/// The problem's shape bucket under the spec's policy.
problem bucket_of(const kernel_spec& s, const problem& p);

/// Schema ktune.kernel_check 1.0.0 (docs/formats.md#ktunekernel_check).
std::string check_report_json(const check_report& r);
/// A few lines for a terminal.
std::string format_check_report(const check_report& r);

/// One line per spec found under `dir` (files *.json whose "schema" is ktune.kernel): its
/// name and space size at its example problem, or the error that stops it loading.
struct listed_spec {
    std::string path;
    std::string name;
    std::string kernel;
    std::uint64_t valid = 0;
    std::string error; ///< non-empty when the spec does not load
};
std::vector<listed_spec> list_specs(const std::filesystem::path& dir, const device_limits& l);

} // namespace ktune::kernel
