#pragma once
// Renders a diff_report for people (text, Markdown for a PR comment) and machines (JSON schema
// ktune.diff 1.0.0, JUnit XML for CI test tabs: a slower key is a failed test case).
//
//   std::fputs(ktune::guard::render(report, ktune::guard::report_format::markdown).c_str(), f);

#include "ktune/guard/compare.hpp"

#include <string>
#include <string_view>

namespace ktune::guard {

enum class report_format { text, markdown, json, junit };

/// "text", "md" / "markdown", "json", "junit"; throws ktune::error(usage) otherwise.
report_format parse_report_format(std::string_view name);

/// Text and Markdown list every key that is not `same` (all keys with `all_keys`); JSON and
/// JUnit always hold every key.
std::string render(const diff_report& report, report_format format, bool all_keys = false);

} // namespace ktune::guard
