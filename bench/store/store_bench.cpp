// The store's claims (docs/perf/store.md), on the CPU:
//   store_bench gen OUT RECORDS [SEED]           synthetic trace of a training loop
//   store_bench ingest DB TRACE                  one trace's ingest time (hash, digest, insert)
//   store_bench fleet DIR RUNS RECORDS [REPEAT]  RUNS traces ingested, DB size vs traces, backlog
//                                                time (median of REPEAT), fleet quantiles vs exact
//   store_bench concurrent URL DIR PROCS TRACES  PROCS processes ingest TRACES traces each (plus
//                                                every process re-ingests one shared trace): every
//                                                run present once, nothing lost
#include "ktune/store/backlog.hpp"
#include "ktune/store/ingest.hpp"
#include "ktune/trace/trace_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace ktune;

namespace {

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct kernel_kind {
    std::string mangled;
    double base_ns;
    trace::dim3_u grid, block;
    int per_step; ///< launches per training step
};

// ~60 kernels shaped like one transformer training step: GEMMs (extern "C" names as cuBLAS
// emits them), ATen elementwise / reduce / norm / softmax templates (mangled).
std::vector<kernel_kind> step_kernels(std::mt19937_64& rng) {
    const std::vector<std::string> aten{"elementwise_kernel",   "vectorized_elementwise_kernel",
                                        "reduce_kernel",        "vectorized_layer_norm_kernel",
                                        "softmax_warp_forward", "index_select_kernel",
                                        "fused_dropout_kernel", "cat_array_batched_copy"};
    std::lognormal_distribution<double> base(std::log(30000.0), 1.2);
    std::vector<kernel_kind> ks;
    for (int i = 0; i < 12; ++i)
        ks.push_back({fmt::format("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize{}x{}x64_"
                                  "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
                                  64 << (i % 3), 64 << (i % 2)),
                      4 * base(rng),
                      {132, 1, 1},
                      {384, 1, 1},
                      1 + i % 3});
    for (int i = 0; i < 48; ++i) {
        const auto& n = aten[static_cast<std::size_t>(i) % aten.size()];
        ks.push_back(
            {fmt::format("_ZN2at6native{}{}ILi{}EEEvPfi", n.size(), n, (64 << (i % 4)) + i),
             base(rng) / 4,
             {static_cast<std::uint32_t>(1024 << (i % 3)), 1, 1},
             {static_cast<std::uint32_t>(128 << (i % 2)), 1, 1},
             1 + i % 4});
    }
    return ks;
}

void generate(const std::string& out, std::uint64_t records, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::mt19937_64 names_rng(1); // the same kernels in every run of the fleet
    const auto kinds = step_kernels(names_rng);
    trace::trace_environment env;
    env.host = fmt::format("node{:04}", seed % 512);
    env.command_line = {"python3", "train.py", "--seed", std::to_string(seed)};
    env.toolkit_version = 13000;
    env.start_unix_ns = 1'790'000'000'000'000'000 + static_cast<std::int64_t>(seed) * 1'000'000'000;
    trace::trace_writer w(out, env);
    std::vector<std::uint32_t> ids;
    for (const auto& k : kinds)
        ids.push_back(w.intern(k.mangled));
    std::lognormal_distribution<double> jitter(0, 0.05);
    std::uniform_int_distribution<int> gap(500, 3000);
    std::vector<trace::kernel_record> buf;
    buf.reserve(8192);
    std::uint64_t t = 1'000'000, n = 0;
    std::uint32_t corr = 0;
    while (n < records) {
        for (std::size_t i = 0; i < kinds.size() && n < records; ++i)
            for (int j = 0; j < kinds[i].per_step && n < records; ++j, ++n) {
                trace::kernel_record k;
                k.name_id = ids[i];
                k.start_ns = t;
                k.end_ns = t + static_cast<std::uint64_t>(kinds[i].base_ns * jitter(rng)) + 1;
                k.grid = kinds[i].grid;
                k.block = kinds[i].block;
                k.stream = 7;
                k.correlation = ++corr;
                k.registers = 64;
                t = k.end_ns + static_cast<std::uint64_t>(gap(rng));
                buf.push_back(k);
                if (buf.size() == buf.capacity()) {
                    w.write(std::span(buf));
                    buf.clear();
                }
            }
    }
    w.write(std::span(buf));
    auto end = env;
    trace::gpu_identity g;
    g.name = "NVIDIA H200";
    end.gpus.push_back(g);
    end.driver_version = "580.159.04";
    w.finish(end, {.kernels = records});
}

int cmd_ingest(const std::string& db_path, const std::string& trace) {
    auto db = store::open_store("sqlite:" + db_path);
    const double t0 = now_s();
    const auto d = store::digest_trace(trace);
    const double t1 = now_s();
    const auto r = store::ingest_trace(db, trace);
    const double t2 = now_s();
    fmt::print("ingest {} ({} records, {:.1f} MB): {:.3f} s total ({:.3f} s read + aggregate of "
               "a separate pass), {} groups, {}\n",
               trace, d.run.kernels, static_cast<double>(d.run.trace_bytes) / 1e6, t2 - t1, t1 - t0,
               r.groups, r.already_stored ? "already stored" : "stored");
    return 0;
}

int cmd_fleet(const std::string& dir, int runs, std::uint64_t records, int repeat) {
    fs::create_directories(dir + "/traces");
    const std::string db_path = dir + "/fleet.db";
    fs::remove(db_path);
    double gen_s = 0, ingest_s = 0, trace_bytes = 0;
    auto db = store::open_store("sqlite:" + db_path, dir + "/objects");
    std::uint64_t total_records = 0;
    for (int i = 0; i < runs; ++i) {
        const auto path = fmt::format("{}/traces/run{:04}.ktrace", dir, i);
        double t0 = now_s();
        if (!fs::exists(path)) generate(path, records, static_cast<std::uint64_t>(i) + 100);
        gen_s += now_s() - t0;
        trace_bytes += static_cast<double>(fs::file_size(path));
        t0 = now_s();
        const auto r =
            store::ingest_trace(db, path, {.build = i % 2 ? "v2" : "v1", .keep_object = false});
        ingest_s += now_s() - t0;
        total_records += r.run.kernels;
    }
    // The database's own size: the file after a checkpoint (WAL folded in).
    { auto c = store::open_store("sqlite:" + db_path); }
    const double db_bytes = static_cast<double>(fs::file_size(db_path));
    fmt::print("fleet: {} runs, {} kernel records, traces {:.1f} MB, DB {:.2f} MB = {:.2f} % of "
               "the traces; generate {:.1f} s, ingest {:.1f} s ({:.0f} ms per run)\n",
               runs, total_records, trace_bytes / 1e6, db_bytes / 1e6, 100 * db_bytes / trace_bytes,
               gen_s, ingest_s, 1e3 * ingest_s / runs);
    std::vector<double> times;
    store::backlog_report b;
    for (int k = 0; k < repeat; ++k) {
        auto fresh = store::open_store("sqlite:" + db_path); // a CLI call opens the DB too
        const double t0 = now_s();
        b = store::backlog(fresh, {.limit = 20});
        times.push_back(now_s() - t0);
    }
    std::sort(times.begin(), times.end());
    fmt::print("backlog over {} runs ({} records, limit 20): median {:.3f} s, min {:.3f} s, max "
               "{:.3f} s (n={})\n",
               b.runs, b.kernels, times[times.size() / 2], times.front(), times.back(), repeat);
    // Fleet quantiles of the top kernel against the exact ones from every trace's records.
    const auto& top = b.rows.at(0);
    std::vector<std::uint64_t> all;
    struct collect : trace::trace_visitor {
        std::string name;
        std::vector<std::uint64_t>* out = nullptr;
        const trace::trace_reader* reader = nullptr;
        void on_kernels(std::span<const trace::kernel_record> ks) override {
            for (const auto& k : ks)
                if (k.timed() && reader->string(k.name_id).mangled == name)
                    out->push_back(k.duration_ns());
        }
    };
    for (int i = 0; i < runs; ++i) {
        trace::trace_reader rd(fmt::format("{}/traces/run{:04}.ktrace", dir, i));
        collect c;
        c.name = top.mangled, c.out = &all, c.reader = &rd;
        rd.read(c);
    }
    std::sort(all.begin(), all.end());
    for (auto [q, got] : {std::pair{0.5, top.p50_ns}, {0.95, top.p95_ns}, {0.99, top.p99_ns}}) {
        const auto want = static_cast<double>(
            all[static_cast<std::size_t>(q * static_cast<double>(all.size() - 1))]);
        fmt::print("fleet p{:.0f} of {} ({} launches): merged sketches {:.0f} ns, exact {:.0f} ns, "
                   "error {:+.3f} %\n",
                   100 * q, top.kernel.substr(0, 40), all.size(), got, want,
                   100 * (got - want) / want);
    }
    return 0;
}

int cmd_concurrent(const std::string& url, const std::string& dir, int procs, int traces) {
    fs::create_directories(dir);
    const std::string shared = dir + "/shared.ktrace";
    if (!fs::exists(shared)) generate(shared, 2000, 999999);
    for (int p = 0; p < procs; ++p)
        for (int i = 0; i < traces; ++i) {
            const auto path = fmt::format("{}/p{:02}_{:04}.ktrace", dir, p, i);
            if (!fs::exists(path))
                generate(path, 500,
                         static_cast<std::uint64_t>(p) * 100000 + static_cast<std::uint64_t>(i));
        }
    store::open_store(url, dir + "/objects"); // schema first, so the timing is the ingest's
    const double t0 = now_s();
    std::vector<pid_t> kids;
    for (int p = 0; p < procs; ++p) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            int rc = 0;
            try {
                auto db = store::open_store(url, dir + "/objects");
                store::ingest_trace(db, shared);
                for (int i = 0; i < traces; ++i)
                    store::ingest_trace(db, fmt::format("{}/p{:02}_{:04}.ktrace", dir, p, i));
            } catch (const std::exception& e) {
                fmt::print(stderr, "ingester {}: {}\n", p, e.what());
                rc = 1;
            }
            ::_exit(rc);
        }
        kids.push_back(pid);
    }
    int failed = 0;
    for (auto pid : kids) {
        int st = 0;
        ::waitpid(pid, &st, 0);
        failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    const double secs = now_s() - t0;
    auto db = store::open_store(url, dir + "/objects");
    const auto runs = db.runs();
    std::set<std::string> ids;
    for (const auto& r : runs)
        ids.insert(r.id);
    const std::size_t want = static_cast<std::size_t>(procs * traces) + 1;
    fmt::print("concurrent: {} ingesters x {} traces (+1 shared by all) into {}: {} runs stored, "
               "{} distinct, want {}; {} ingesters failed; {:.2f} s\n",
               procs, traces, db.describe(), runs.size(), ids.size(), want, failed, secs);
    return runs.size() == want && ids.size() == want && failed == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> a(argv + 1, argv + argc);
    try {
        if (a.size() >= 3 && a[0] == "gen") {
            generate(a[1], std::stoull(a[2]), a.size() > 3 ? std::stoull(a[3]) : 1);
            return 0;
        }
        if (a.size() == 3 && a[0] == "ingest") return cmd_ingest(a[1], a[2]);
        if (a.size() >= 4 && a[0] == "fleet")
            return cmd_fleet(a[1], std::stoi(a[2]), std::stoull(a[3]),
                             a.size() > 4 ? std::stoi(a[4]) : 5);
        if (a.size() == 5 && a[0] == "concurrent")
            return cmd_concurrent(a[1], a[2], std::stoi(a[3]), std::stoi(a[4]));
    } catch (const std::exception& e) {
        fmt::print(stderr, "store_bench: {}\n", e.what());
        return 2;
    }
    fmt::print(stderr, "usage: see the comment at the top of bench/store/store_bench.cpp\n");
    return 2;
}
