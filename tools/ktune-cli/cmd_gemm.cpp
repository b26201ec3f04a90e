// ktune tune gemm --shape MxNxK [--shape …] [--dtype bf16,fp8] [--layout tn] [--epilogue none]
//                 [--plan FILE] [--strategy S] [--budget N] [--cache FILE] [--vs-torch] [--json]
#include "cmd_gemm.hpp"

#include "command.hpp"
#include "validators.hpp"

#include "ktune/cache/store.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/gemm/cache.hpp"
#include "ktune/gemm/plan.hpp"
#include "ktune/gemm/report.hpp"
#include "ktune/gemm/tune.hpp"
#include "ktune/gemm/vs_torch.hpp"
#include "ktune/metrics/device_measure.hpp"
#include "ktune/tune/tuner_plan.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

namespace ktune::cli {
namespace {

struct planned {
    gemm::problem prob;
    tune_op_options opt;
};

std::vector<planned> read_plan(const tune_op_options& o, const gemm_cli_options& g) {
    std::vector<planned> out;
    if (!o.plan.empty()) {
        // The plan file of `ktune tune --plan` (ktune.tune_plan), every entry op "gemm"; layout
        // and epilogue come from the command line.
        const auto entries = tune::load_tune_plan(o.plan);
        for (auto& e : gemm::plan_problems(entries, g.layout, g.epilogue)) {
            planned pl{e.prob, o};
            if (e.budget > 0) pl.opt.budget = static_cast<int>(e.budget);
            if (!e.strategy.empty()) pl.opt.strategy = std::move(e.strategy);
            out.push_back(std::move(pl));
        }
        return out;
    }
    if (o.shapes.empty())
        throw error(error_kind::usage, "ktune tune gemm needs --shape MxNxK (repeatable) or "
                                       "--plan FILE");
    const std::vector<std::string> dtypes =
        o.dtypes.empty() ? std::vector<std::string>{"bf16"} : o.dtypes;
    for (const auto& s : o.shapes)
        for (const auto& d : dtypes)
            out.push_back({gemm::parse_problem(s, d, g.layout, g.epilogue), o});
    return out;
}

} // namespace

std::shared_ptr<gemm_cli_options> add_gemm_options(CLI::App* app) {
    auto g = std::make_shared<gemm_cli_options>();
    app->add_option("--layout", g->layout,
                    "gemm: op(A) op(B) transposes, column-major as cuBLAS: nn, nt, tn (x @ W^T), "
                    "tt")
        ->capture_default_str();
    app->add_option("--epilogue", g->epilogue, "gemm: none, bias, relu_bias, gelu_bias")
        ->capture_default_str();
    app->add_option("--workspace-mib", g->workspace_mib,
                    "gemm: cuBLASLt workspace limit; algorithms needing more are pruned")
        ->capture_default_str()
        ->check(CLI::Range(0, 4096));
    app->add_option("--heuristic-count", g->heuristic_count,
                    "gemm: how many of cuBLASLt's heuristic picks to measure first")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    app->add_flag("--cublaslt-only", g->cublaslt_only,
                  "gemm: search cuBLASLt's algorithms only, not ktune's own kernels (the Hopper "
                  "template on sm_90 GPUs, the mma.sync form on other sm_80+ GPUs; tn problems)");
    app->add_flag("--with-mma", g->with_mma,
                  "gemm: search ktune's mma.sync form on an sm_90 GPU too, beside the template "
                  "(docs/perf/gemm.md#mma-fallback)");
    app->add_option(
           "--inject-faults", g->inject_faults,
           "gemm: test the correctness gate: plant a bug in this share (0..1) of the "
           "template's candidates; each must be rejected (docs/perf/gemm.md#hopper-faults)")
        ->check(CLI::Range(0.0, 1.0));
    app->add_option("--b-operand", g->b_operand,
                    "gemm: written_before, or weights: B is not written by the kernel before the "
                    "GEMM, so the template's candidates read it while that kernel ends, as the "
                    "application's calls that pass b_operand::weights "
                    "(docs/perf/gemm.md#early-weights)")
        ->capture_default_str()
        ->check(CLI::IsMember({"written_before", "weights"}));
    app->add_option("--max-seconds", g->max_seconds,
                    "gemm: leave out candidates that would end a tune past this many seconds "
                    "(0: no limit)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 86400.0));
    return g;
}

int run_tune_gemm(const tune_op_options& o, const gemm_cli_options& g) {
    const std::vector<planned> plan = read_plan(o, g);
    const auto env = cache::environment::current();
    if (!env.has_gpu())
        throw error(error_kind::no_device, "ktune tune gemm needs a CUDA GPU; `ktune device` "
                                           "says what this machine has");
    const std::filesystem::path cache_file =
        o.cache.empty() ? cache::default_cache_path() : std::filesystem::path(o.cache);
    std::vector<std::string> docs;
    bool failed = false;
    for (const auto& pl : plan) {
        gemm::tune_options to;
        to.strategy = pl.opt.strategy;
        if (pl.opt.budget > 0) to.budget = static_cast<std::size_t>(pl.opt.budget);
        to.seed = o.seed;
        to.max_workspace = std::size_t(g.workspace_mib) << 20;
        to.heuristic_count = g.heuristic_count;
        to.max_seconds = g.max_seconds;
        to.own_kernels = !g.cublaslt_only;
        to.mma_on_hopper = g.with_mma;
        to.inject_faults = g.inject_faults;
        to.b_is =
            g.b_operand == "weights" ? gemm::b_operand::weights : gemm::b_operand::written_before;
        const gemm::tune_result r = gemm::tune(pl.prob, to);
        const auto [roof, roof_source] =
            metrics::find_tensor_roof(r.gpu, pl.prob.type == gemm::dtype::fp8_e4m3);
        const bool passed = r.winner.ok();
        failed |= !passed;
        if (passed) {
            const auto devs = query_devices().devices;
            const auto origin =
                devs.empty() ? cache::provenance{} : cache::provenance::current(devs.front());
            cache::store(cache_file, gemm::to_cache_entry(r, env, origin));
        }
        std::optional<gemm::torch_timing> torch;
        if (o.vs_torch) torch = gemm::time_torch(pl.prob, r.rotation_sets);
        if (o.json)
            docs.push_back(torch ? gemm::to_json(r, roof, roof_source, *torch)
                                 : gemm::to_json(r, roof, roof_source));
        else
            fmt::print("{}{}", gemm::format_text(r, roof, roof_source),
                       torch ? gemm::format_torch(r, *torch) : std::string());
    }
    if (o.json)
        fmt::print("{}\n", docs.size() == 1 ? docs.front() : gemm::plan_json(docs));
    else if (plan.size() > 1)
        fmt::print("{} GEMM tunes; winners stored in {}\n", plan.size(), cache_file.string());
    return failed ? finding : ok;
}

} // namespace ktune::cli
