// CPU cost of one candidate compile of a user kernel
// (docs/perf/kernel.md#compile-cost-per-candidate): N configs spread over each example's space
// (examples/kernels), compiled REPS times on a fresh cubin cache each time, reported as CPU ms
// (user + sys) per compile, median (min..max) over the repetitions.
//   pool       compile_pool with one compile server, requests in order two per submit_batch
//              (tune_request::candidates_per_program); this process + the server
//   grouped    the same cut by program_groups, as the tuner cuts a search batch of N
//   server     a server's own start (exec, NVRTC load, warm-up compile), once per server
//   inproc     compile_cached on this thread (the pool's threads mode)
//   nvrtc      nvrtc_compile: NVRTC with ktune's options, nothing cached
//   parts      compile_cached's pieces, thread CPU: request, key, lookup, NVRTC create +
//              compile, cubin + lowered name, store, and the wire (encode/decode/read back)
//   options    NVRTC compile alone under variants of ktune's options (one option left out)
//   verify     each group of program_groups(N configs, 4) compiled as one program and each
//              request alone: the same machine code and attributes per kernel (cubin_code.hpp)
//
//   kernel_compile_cost [N=16] [REPS=5] [MODE...]     (default: every mode)
#include "compile/compile_private.hpp"
#include "compile/compile_wire.hpp"
#include "core/cache_files.hpp"
#include "core/nvrtc_api.hpp"
#include "cubin_code.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/kernel/space.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

namespace kk = ktune::kernel;
namespace kc = ktune::compile;
namespace fs = std::filesystem;

double thread_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double ms(const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
}

/// User + system CPU of this process and of its reaped children.
double process_cpu_ms() {
    rusage self{}, kids{};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return ms(self.ru_utime) + ms(self.ru_stime) + ms(kids.ru_utime) + ms(kids.ru_stime);
}

std::string summary(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return fmt::format("{:.2f} ({:.2f}..{:.2f})", med, v.front(), v.back());
}

struct example {
    std::string name;
    kk::kernel_spec spec;
    kk::problem prob;
    kk::device_limits limits;
    std::vector<ktune::config> configs;
    std::vector<kc::compile_request> requests;
};

example load(const fs::path& path, std::size_t n) {
    example e;
    e.spec = kk::load_spec(path);
    e.name = e.spec.name;
    e.prob = e.spec.example_problem();
    e.limits = kk::device_limits::for_arch("sm_90");
    const auto cs = kk::enumerate(e.spec, e.prob, e.limits);
    n = std::min(n, cs.size());
    for (std::size_t i = 0; i < n; ++i) {
        e.configs.push_back(cs.at(i * cs.size() / n));
        e.requests.push_back(kk::compile_request_for(e.spec, e.configs.back(), e.prob, e.limits));
    }
    return e;
}

/// A fresh, empty cubin cache directory per repetition.
fs::path fresh_dir(const std::string& tag) {
    auto d = fs::temp_directory_path() /
             fmt::format("ktune-compile-cost-{}-{}", static_cast<long>(getpid()), tag);
    fs::remove_all(d);
    return d;
}

/// CPU ms per request of one pass, REPS times.
std::vector<double> repeat(int reps, std::size_t n, const std::function<void(const fs::path&)>& f) {
    std::vector<double> out;
    for (int r = 0; r < reps; ++r) {
        const auto dir = fresh_dir(std::to_string(r));
        const double t0 = process_cpu_ms();
        f(dir);
        out.push_back((process_cpu_ms() - t0) / static_cast<double>(n));
        fs::remove_all(dir);
    }
    return out;
}

void pool_mode(const example& e, int reps, bool grouped) {
    std::vector<std::vector<std::size_t>> groups;
    if (grouped) {
        groups = kc::program_groups(e.requests, 2);
    } else {
        for (std::size_t i = 0; i < e.requests.size(); i += 2)
            groups.push_back(i + 1 < e.requests.size() ? std::vector<std::size_t>{i, i + 1}
                                                       : std::vector<std::size_t>{i});
    }
    auto v = repeat(reps, e.requests.size(), [&](const fs::path& dir) {
        kc::compile_pool_options o;
        o.workers = 1;
        kc::compile_pool pool(o, kc::cubin_cache(dir));
        std::vector<std::future<kc::compile_result>> fs;
        for (const auto& g : groups) {
            std::vector<kc::compile_request> rs;
            rs.reserve(g.size());
            for (std::size_t k : g)
                rs.push_back(e.requests[k]);
            for (auto& f : pool.submit_batch(std::move(rs)))
                fs.push_back(std::move(f));
        }
        for (auto& f : fs)
            if (!f.get().ok) throw std::runtime_error("a compile failed");
    }); // the pool's destructor reaps the server: its CPU is in RUSAGE_CHILDREN
    std::size_t shared = 0;
    for (const auto& g : groups)
        shared += g.size() > 1 && e.requests[g[0]].options == e.requests[g[1]].options;
    fmt::print("| {} | pool (1 server), {} ({} of {} pairs share a program) | {} |\n", e.name,
               grouped ? "program_groups" : "pairs in order", shared, groups.size(), summary(v));
}

void verify_mode(const example& e) {
    int kernels = 0, same = 0;
    for (const auto& g : kc::program_groups(e.requests, 4)) {
        if (g.size() < 2) continue;
        std::vector<kc::compile_request> rs;
        rs.reserve(g.size());
        for (std::size_t k : g)
            rs.push_back(e.requests[k]);
        const auto together = kc::compile_batch(rs, nullptr);
        for (std::size_t k = 0; k < rs.size(); ++k) {
            const auto alone = kc::nvrtc_compile(rs[k]);
            if (together[k].lowered_name != alone.lowered_name)
                throw std::runtime_error("lowered names differ: " + rs[k].name_expression);
            ++kernels;
            same += ktune::bench::kernel_code(together[k].cubin, together[k].lowered_name) ==
                    ktune::bench::kernel_code(alone.cubin, alone.lowered_name);
        }
    }
    fmt::print("| {} | verify: kernels compiled in a shared program with the code of their own "
               "compile | {} of {} |\n",
               e.name, same, kernels);
}

void server_mode(int reps) {
    auto v = repeat(reps, 1, [&](const fs::path& dir) {
        kc::compile_pool_options o;
        o.workers = 1;
        o.lazy_servers = false;
        kc::compile_pool pool(o, kc::cubin_cache(dir));
        // Started at construction; one cached request waits until it has said ready.
        (void)pool.submit({"extern \"C\" __global__ void k() {}", "k", "sm_90", {}}).get();
    });
    fmt::print("| (any) | server start + warm-up + 1 compile | {} |\n", summary(v));
}

void inproc_mode(const example& e, int reps) {
    auto v = repeat(reps, e.requests.size(), [&](const fs::path& dir) {
        const kc::cubin_cache cache(dir);
        for (const auto& r : e.requests)
            if (!kc::compile_cached(r, &cache).ok) throw std::runtime_error("a compile failed");
    });
    fmt::print("| {} | in-process compile_cached | {} |\n", e.name, summary(v));
}

void nvrtc_mode(const example& e, int reps) {
    auto v = repeat(reps, e.requests.size(), [&](const fs::path&) {
        for (const auto& r : e.requests)
            (void)kc::nvrtc_compile(r);
    });
    fmt::print("| {} | nvrtc_compile (no cache) | {} |\n", e.name, summary(v));
}

/// NVRTC alone with the given options: create, name expression, compile, cubin, lowered name.
std::string raw_compile(const kc::compile_request& r, const std::vector<std::string>& opts,
                        std::map<std::string, std::vector<double>>* parts = nullptr) {
    const auto& rtc = ktune::detail::nvrtc();
    double t = thread_cpu_ms();
    const auto lap = [&](const char* what) {
        const double now = thread_cpu_ms();
        if (parts) (*parts)[what].push_back(now - t);
        t = now;
    };
    nvrtcProgram p = nullptr;
    rtc.nvrtcCreateProgram(&p, r.source.c_str(), "ktune_candidate.cu", 0, nullptr, nullptr);
    rtc.nvrtcAddNameExpression(p, r.name_expression.c_str());
    lap("4 nvrtc create + name");
    std::vector<const char*> argv;
    argv.reserve(opts.size());
    for (const auto& o : opts)
        argv.push_back(o.c_str());
    if (rtc.nvrtcCompileProgram(p, static_cast<int>(argv.size()), argv.data()) != NVRTC_SUCCESS)
        throw std::runtime_error("compile failed: " + fmt::format("{}", fmt::join(opts, " ")));
    lap("5 nvrtc compile");
    std::size_t n = 0;
    rtc.nvrtcGetCUBINSize(p, &n);
    std::string cubin(n, '\0');
    rtc.nvrtcGetCUBIN(p, cubin.data());
    const char* lowered = nullptr;
    rtc.nvrtcGetLoweredName(p, r.name_expression.c_str(), &lowered);
    lap("6 cubin + lowered name");
    rtc.nvrtcDestroyProgram(&p);
    return cubin;
}

std::vector<std::string> ktune_options(const kc::compile_request& r) {
    auto o = kc::detail::base_options(r.arch, true);
    o.insert(o.end(), r.options.begin(), r.options.end());
    return o;
}

void parts_mode(const example& e, int reps) {
    std::map<std::string, std::vector<double>> parts;
    for (int rep = 0; rep < reps; ++rep) {
        const auto dir = fresh_dir("parts");
        const kc::cubin_cache cache(dir);
        std::map<std::string, double> sum;
        for (const auto& cfg : e.configs) {
            std::map<std::string, std::vector<double>> one;
            double t = thread_cpu_ms();
            const auto lap = [&](const char* what) {
                const double now = thread_cpu_ms();
                sum[what] += now - t;
                t = now;
            };
            const auto r = kk::compile_request_for(e.spec, cfg, e.prob, e.limits);
            lap("1 request (sources read, options)");
            (void)kc::cubin_cache::key(r);
            lap("2 cache key");
            (void)cache.get(r);
            lap("3 cache lookup (miss)");
            kc::compile_result c;
            c.cubin = raw_compile(r, ktune_options(r), &one);
            for (const auto& [k, v] : one)
                sum[k] += v.front();
            t = thread_cpu_ms();
            c.ok = true;
            c.lowered_name = "x";
            c.cubin_path = cache.put(r, c);
            lap("7 cache store (2 files)");
            const auto line = kc::detail::encode_batch({r}, dir);
            fs::path d;
            (void)kc::detail::decode_batch(line, d);
            (void)kc::detail::decode_results(kc::detail::encode_results({c}));
            (void)ktune::detail::read_file(c.cubin_path);
            lap("8 wire + cubin read back");
        }
        for (const auto& [k, v] : sum)
            parts[k].push_back(v / static_cast<double>(e.requests.size()));
        fs::remove_all(dir);
    }
    for (const auto& [k, v] : parts)
        fmt::print("| {} | {} | {} |\n", e.name, k.substr(2), summary(v));
}

void options_mode(const example& e, int reps) {
    const auto& r0 = e.requests.front();
    const auto base = ktune_options(r0);
    // Each variant: ktune's options with one left out (or only the arch and the config's own).
    std::vector<std::pair<std::string, std::string>> variants{{"ktune's options", ""}};
    for (const auto& o : kc::detail::base_options(r0.arch, true))
        if (o.rfind("--gpu-architecture", 0) != 0) variants.emplace_back("without " + o, o);
    for (const auto& [label, drop] : variants) {
        std::vector<double> v;
        for (int rep = 0; rep < reps; ++rep) {
            const double t0 = thread_cpu_ms();
            for (const auto& r : e.requests) {
                auto o = ktune_options(r);
                if (!drop.empty()) o.erase(std::find(o.begin(), o.end(), drop));
                (void)raw_compile(r, o);
            }
            v.push_back((thread_cpu_ms() - t0) / static_cast<double>(e.requests.size()));
        }
        fmt::print("| {} | NVRTC, {} | {} |\n", e.name, label, summary(v));
    }
}

} // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::stoul(argv[1]) : 16;
    const int reps = argc > 2 ? std::stoi(argv[2]) : 5;
    std::vector<std::string> modes(argv + std::min(argc, 3), argv + argc);
    if (modes.empty())
        modes = {"server", "pool", "grouped", "inproc", "nvrtc", "parts", "options", "verify"};
    const auto has = [&](const char* m) {
        return std::find(modes.begin(), modes.end(), m) != modes.end();
    };
    const fs::path ex = KTUNE_EXAMPLES_DIR;
    std::vector<example> examples{load(ex / "matmul/matmul.json", n),
                                  load(ex / "reduction/reduction.json", n),
                                  load(ex / "stencil/stencil.json", n)};
    // NVRTC loaded and warm before anything is timed (as in a compile server after warm_up).
    (void)kc::nvrtc_compile({"extern \"C\" __global__ void k() {}", "k", "sm_90", {}});
    fmt::print("N={} configs per example, {} repetitions, nvrtc {}\n\n", n, reps,
               kc::nvrtc_version());
    fmt::print("| example | what | CPU ms per compile, median (min..max) |\n|---|---|---|\n");
    if (has("server")) server_mode(reps);
    for (const auto& e : examples) {
        if (has("pool")) pool_mode(e, reps, false);
        if (has("grouped")) pool_mode(e, reps, true);
        if (has("inproc")) inproc_mode(e, reps);
        if (has("nvrtc")) nvrtc_mode(e, reps);
        if (has("parts")) parts_mode(e, reps);
        if (has("options")) options_mode(e, reps);
        if (has("verify")) verify_mode(e);
    }
    return 0;
}
