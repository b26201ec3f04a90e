#pragma once
// Runs one of ktune's bundled PyTorch timing scripts with $KTUNE_PYTHON (default python3) and
// reads its answer: the JSON object on its last line that starts with "KTUNE_TORCH ". The op
// tuner's --vs-torch and the GEMM tuner's both time PyTorch this way.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ktune::detail {

struct torch_script_answer {
    bool answered = false; ///< the script ran and printed its answer (which may say ok: false)
    nlohmann::json doc;    ///< the answer, when answered
    std::string message;   ///< why not, when !answered (no python, no torch, unreadable answer)
};

/// `args` are passed as single-quoted words: names and numbers only. Never throws for a
/// missing interpreter or torch (answered = false); throws error{io} if the script cannot be
/// written to the temporary directory.
torch_script_answer run_torch_script(std::string_view script, const std::vector<std::string>& args);

} // namespace ktune::detail
