#pragma once
// The reports of `ktune tune gemm` beyond to_json/format_text (tune.hpp): the comparison with
// PyTorch (`--vs-torch`) and the document of several tunes (schema ktune.tune.gemm_plan,
// docs/formats.md#ktunetunegemm_plan).
//
//   std::vector<std::string> docs;
//   for (const auto& p : problems) docs.push_back(ktune::gemm::to_json(ktune::gemm::tune(p, {}),
//                                                                      0, "datasheet"));
//   std::puts(ktune::gemm::plan_json(docs).c_str());

#include "ktune/gemm/tune.hpp"
#include "ktune/gemm/vs_torch.hpp"

#include <span>
#include <string>

namespace ktune::gemm {

/// The ktune.tune.gemm report with its `torch` block: `ok`, then `median_us`, `ci_us`,
/// `version`, `speedup` (torch / winner, 0 when no candidate passed), or `message`.
std::string to_json(const tune_result& r, double roof_tflops, const std::string& roof_source,
                    const torch_timing& torch);
/// The text line of the same comparison (or why torch was not timed).
std::string format_torch(const tune_result& r, const torch_timing& torch);

/// Schema ktune.tune.gemm_plan 1.0.0: `tunes`, each a ktune.tune.gemm document (to_json's text),
/// in the order given.
std::string plan_json(std::span<const std::string> tunes);

} // namespace ktune::gemm
