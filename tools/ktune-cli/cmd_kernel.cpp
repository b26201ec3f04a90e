// ktune kernel check SPEC [--problem M=..,N=..] [--arch sm_90] [--no-compile] [--json]: a
// user kernel's spec validated without a GPU (ktune/kernel/check.hpp).
#include "command.hpp"

#include "ktune/kernel/check.hpp"

#include <fmt/format.h>

#include <memory>

namespace ktune::cli {

command add_kernel(CLI::App& root) {
    auto* app = root.add_subcommand("kernel", "Check a user kernel's JSON spec (no GPU needed)");
    app->require_subcommand(1);
    auto* check = app->add_subcommand(
        "check", "Load and validate a kernel spec, size its space for a problem and compile its "
                 "default config with NVRTC");
    struct options {
        std::string spec;
        std::string problem;
        std::string arch = "sm_90";
        bool no_compile = false;
        unsigned sample = 0;
        bool json = false;
    };
    auto o = std::make_shared<options>();
    check->add_option("spec", o->spec, "the kernel spec (docs/formats.md#ktunekernel)")->required();
    check->add_option("--problem", o->problem,
                      "dimensions, e.g. M=4096,N=4096,K=4096 (default: the spec's)");
    check->add_option("--arch", o->arch, "target of the compile and its device limits")
        ->capture_default_str();
    check->add_flag("--no-compile", o->no_compile, "skip the NVRTC compile of the default config");
    check->add_option("--sample", o->sample,
                      "also compile N other valid configs, drawn with a fixed seed; exit 1 if "
                      "one fails");
    check->add_flag("--json", o->json, "machine-readable report (schema ktune.kernel_check)");
    return {app, [o] {
                kernel::check_options co;
                co.limits = kernel::device_limits::for_arch(o->arch);
                co.compile = !o->no_compile;
                co.sample = co.compile ? o->sample : 0;
                if (!o->problem.empty()) co.prob = kernel::parse_problem(o->problem);
                const kernel::kernel_spec s = kernel::load_spec(o->spec);
                const kernel::check_report r = kernel::check_spec(s, co);
                fmt::print("{}",
                           o->json ? kernel::check_report_json(r) : kernel::format_check_report(r));
                return static_cast<int>(r.sample_failures() ? finding : ok);
            }};
}

} // namespace ktune::cli
