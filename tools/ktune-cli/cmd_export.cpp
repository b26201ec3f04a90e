// ktune export <trace> --format chrome|csv -o <file>
#include "command.hpp"
#include "damage.hpp"

#include "ktune/trace/export.hpp"
#include "ktune/trace/trace_file.hpp"

#include <fmt/format.h>

#include <memory>

namespace ktune::cli {
namespace {

struct export_options {
    std::string trace;
    std::string format = "chrome";
    std::string output;
    bool allow_incomplete = false;
};

} // namespace

command add_export(CLI::App& root) {
    auto o = std::make_shared<export_options>();
    auto* app = root.add_subcommand("export", "Convert a trace for Perfetto (chrome) or a "
                                              "spreadsheet (csv)");
    app->add_option("trace", o->trace, "A .ktrace file")->required()->check(CLI::ExistingFile);
    app->add_option("--format", o->format, "chrome (Perfetto / chrome://tracing) or csv")
        ->capture_default_str();
    app->add_option("-o,--output", o->output, "Output file")->required();
    add_allow_incomplete(app, o->allow_incomplete);
    return {app, [o] {
                const auto format = trace::parse_export_format(o->format);
                // Damage is found before anything is written: a refused export leaves no file.
                refuse_damage(trace::scan_trace(o->trace).damage, o->allow_incomplete, "export");
                const auto s = trace::export_trace(o->trace, o->output, format);
                fmt::print(stderr, "ktune export: {} records to {}{}\n", s.records, o->output,
                           o->format == "chrome" ? " (open it in https://ui.perfetto.dev)" : "");
                return static_cast<int>(ok);
            }};
}

} // namespace ktune::cli
