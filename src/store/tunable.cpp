// match_tunable: which stored kernels ktune's built-in ops can tune (include/ktune/store/
// backlog.hpp). ktune's op kernels are all named `ktune_op_kernel` (ops/op.hpp kernel_name), so
// the op and its shape come from the `ktune tune` command line recorded with the run.
#include "ktune/store/backlog.hpp"

#include <array>
#include <sstream>

namespace ktune::store {
namespace {

struct torch_pattern {
    std::string_view needle; ///< substring of the demangled name
    std::string_view op;
};

// PyTorch's kernels for the math ktune's ops implement (ATen's names, stable across releases).
constexpr std::array<torch_pattern, 6> torch_patterns{{
    {"softmax_warp_forward", "softmax"},
    {"cunn_SoftMaxForward", "softmax"},
    {"vectorized_layer_norm_kernel", "layernorm"},
    {"RowwiseMomentsCUDAKernel", "layernorm"},
    {"LayerNormForwardCUDAKernel", "layernorm"},
    {"transpose_kernel", "transpose"},
}};

std::string dtype_of(const std::string& name) {
    if (name.find("BFloat16") != std::string::npos) return "bf16";
    if (name.find("float") != std::string::npos) return "f32";
    return {};
}

/// "ktune tune softmax --shape 4096x4096 --dtype bf16" → op, shape, dtype.
bool parse_tune_command(const std::string& command, tune_target& t) {
    std::istringstream in(command);
    std::vector<std::string> w;
    for (std::string s; in >> s;)
        w.push_back(s);
    for (std::size_t i = 0; i + 2 < w.size(); ++i) {
        const bool is_ktune = w[i] == "ktune" || w[i].ends_with("/ktune");
        if (!is_ktune || w[i + 1] != "tune" || w[i + 2].starts_with("-")) continue;
        t.op = w[i + 2];
        for (std::size_t j = i + 3; j + 1 < w.size(); ++j) {
            if (w[j] == "--shape" && t.shape.empty()) t.shape = w[j + 1];
            if (w[j] == "--dtype" && t.dtype.empty()) t.dtype = w[j + 1];
        }
        return !t.shape.empty();
    }
    return false;
}

std::string command_for(const tune_target& t, const std::string& shape) {
    std::string c = "ktune tune " + t.op + " --shape " + shape;
    if (!t.dtype.empty()) c += " --dtype " + t.dtype;
    return c;
}

} // namespace

tune_target match_tunable(const std::string& demangled, const std::vector<std::string>& commands) {
    tune_target t;
    if (demangled == "ktune_op_kernel") {
        for (const auto& c : commands) {
            tune_target cand;
            if (parse_tune_command(c, cand)) {
                cand.command = command_for(cand, cand.shape);
                return cand;
            }
        }
        t.op = "(ktune op)";
        t.hint = "ktune tune <op> --shape ROWSxCOLS (the op is named by the command that ran it)";
        return t;
    }
    for (const auto& p : torch_patterns)
        if (demangled.find(p.needle) != std::string::npos) {
            t.op = std::string(p.op);
            t.dtype = dtype_of(demangled);
            t.hint = command_for(t, "ROWSxCOLS");
            return t;
        }
    return t;
}

} // namespace ktune::store
