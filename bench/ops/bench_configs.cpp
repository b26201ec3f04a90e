// Chosen configs of one op and problem, each checked against the reference and timed under the
// tuner's protocol (bench/ops/gpu_step.sh, step kernels_stage, runs it on the GPU machine):
//   bench_configs OP SHAPE DTYPE [SUBSTRING...]
// times the op's default config and every config of its space whose text contains one of the
// substrings (e.g. "stage=smem_tma", or a whole winner "threads_per_row=256,...,cluster=8"),
// with no search in between: what a new axis value gives, config by config. One JSON line per
// config on stdout; candidates run in ktune-worker.
// BENCH_CONFIGS_NO_DEFAULT=1 leaves the default out (for ncu: the first kernel is the chosen).
// BENCH_CONFIGS_SET="k=v,k=v;k=v" adds, after each chosen config, one twin per ';'-group with
// those keys set (hand-set keys outside the space, e.g. layernorm's gb_prefetch=0; v is true,
// false, an integer or a string); twins the op rejects are reported as status "invalid".
// BENCH_CONFIGS_SOURCE_DIR=DIR writes each config's source to DIR/<n>.cu (DIR/index.txt: n and
// config) and times nothing: no GPU needed (bench/ops/sass.sh compiles and disassembles them).
#include "ktune/compile/compile.hpp"
#include "ktune/core/error.hpp"
#include "ktune/ops/op.hpp"
#include "ktune/worker/worker.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ktune;

namespace {

// "k=v,k=v" -> c with those keys set.
config with_keys(config c, const std::string& group) {
    std::size_t at = 0;
    while (at < group.size()) {
        const std::size_t end = std::min(group.find(',', at), group.size());
        const std::string kv = group.substr(at, end - at);
        at = end + 1;
        const std::size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw error(error_kind::usage, "BENCH_CONFIGS_SET: '" + kv + "' is not key=value");
        const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
        if (v == "true" || v == "false")
            c.set(k, v == "true");
        else if (!v.empty() && v.find_first_not_of("-0123456789") == std::string::npos)
            c.set(k, static_cast<std::int64_t>(std::stoll(v)));
        else
            c.set(k, v);
    }
    return c;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: bench_configs OP SHAPE DTYPE [SUBSTRING...]\n");
        return 2;
    }
    try {
        const ops::op& o = ops::find_op(argv[1]);
        const ops::problem p{ops::parse_shape(argv[2]), ops::parse_dtype(argv[3])};
        const char* nd = std::getenv("BENCH_CONFIGS_NO_DEFAULT");
        const bool with_default = !nd || std::string(nd) != "1";
        const config def = o.default_config(p);
        std::vector<config> cfgs;
        if (with_default) cfgs.push_back(def);
        for (const auto& c : o.enumerate(p)) {
            const std::string s = c.to_string();
            for (int i = 4; i < argc; ++i)
                if (s.find(argv[i]) != std::string::npos && (c != def || !with_default)) {
                    cfgs.push_back(c);
                    break;
                }
        }
        if (const char* set = std::getenv("BENCH_CONFIGS_SET"); set && *set) {
            std::vector<std::string> groups;
            for (std::string g, all = set; !all.empty();) {
                const std::size_t semi = std::min(all.find(';'), all.size());
                g = all.substr(0, semi);
                all = semi < all.size() ? all.substr(semi + 1) : "";
                if (!g.empty()) groups.push_back(g);
            }
            std::vector<config> twins;
            for (const auto& c : cfgs) {
                twins.push_back(c);
                for (const auto& g : groups)
                    twins.push_back(with_keys(c, g));
            }
            cfgs = std::move(twins);
        }
        if (const char* sd = std::getenv("BENCH_CONFIGS_SOURCE_DIR"); sd && *sd) {
            std::filesystem::create_directories(sd);
            std::string index;
            for (std::size_t i = 0; i < cfgs.size(); ++i) {
                std::string why;
                if (!o.valid(cfgs[i], p, &why)) {
                    index += fmt::format("{} invalid {} ({})\n", i, cfgs[i].to_string(), why);
                    continue;
                }
                std::ofstream(std::filesystem::path(sd) / fmt::format("{}.cu", i))
                    << o.source(cfgs[i], p);
                index += fmt::format("{} {}\n", i, cfgs[i].to_string());
            }
            std::ofstream(std::filesystem::path(sd) / "index.txt") << index;
            std::cout << index;
            return 0;
        }
        const auto dir = std::filesystem::temp_directory_path() /
                         ("ktune_bench_configs_" + std::to_string(getpid()));
        compile::compile_pool pool(0, compile::cubin_cache(dir));
        std::vector<std::future<compile::compile_result>> compiled;
        for (const auto& c : cfgs)
            compiled.push_back(
                pool.submit({o.source(c, p), std::string(ops::kernel_name), "sm_90", {}}));
        worker::worker_process w(worker::default_worker_command());
        for (std::size_t i = 0; i < cfgs.size(); ++i) {
            const auto cr = compiled[i].get();
            nlohmann::ordered_json j{{"op", argv[1]},
                                     {"shape", argv[2]},
                                     {"dtype", argv[3]},
                                     {"config", cfgs[i].to_string()},
                                     {"default", cfgs[i] == def}};
            if (std::string why; !o.valid(cfgs[i], p, &why)) {
                j["status"] = "invalid";
                j["message"] = why;
                std::cout << j.dump() << std::endl;
                continue;
            }
            if (!cr.ok) {
                j["status"] = "compile_error";
                std::cout << j.dump() << std::endl;
                continue;
            }
            measure::candidate_request r;
            r.op = argv[1];
            r.rows = p.shape.rows;
            r.cols = p.shape.cols;
            r.dtype = std::string(ops::to_string(p.type));
            r.cfg = cfgs[i];
            r.cubin_path = cr.cubin_path.string();
            r.kernel = cr.lowered_name;
            r.seed = i + 1;
            const auto res = w.run(r, std::chrono::seconds(10));
            j["status"] = std::string(measure::to_string(res.status));
            if (res.status == measure::run_status::ok) {
                j["median_ms"] = res.median_ms;
                j["ci_ms"] = {res.ci_lo_ms, res.ci_hi_ms};
                j["samples"] = res.samples_ms.size();
                j["gbs"] = o.bytes(p) / (res.median_ms * 1e6);
                j["registers"] = res.registers;
            } else {
                j["message"] = res.message;
            }
            std::cout << j.dump() << std::endl;
        }
        std::filesystem::remove_all(dir);
    } catch (const ktune::error& e) {
        std::fprintf(stderr, "bench_configs: %s\n", e.what());
        return 2;
    }
    return 0;
}
