#pragma once
// The profile store: many runs' kernel aggregates in a real database (SQLite by default,
// PostgreSQL for a fleet), raw traces in a content-addressed object directory. The schema and
// its migrations are in docs/formats.md#store-database; the SQL is written once for both engines.
//
//   auto db = ktune::store::open_store("sqlite:/tmp/k.db");
//   auto r = ktune::store::ingest_trace(*db, "run.ktrace", {.build = "v1.2"});
//   if (r.already_stored) std::puts("already stored");

#include "ktune/store/sketch.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::store {

namespace detail {
class connection;
}

/// Schema version this build writes; a database with a newer one is refused (error{unsupported}).
inline constexpr int schema_version = 1;

/// One ingested trace.
struct run_info {
    std::string id; ///< SHA-256 of the trace's bytes: the same trace is the same run
    std::string build;
    std::string host;
    std::string gpu;
    std::string driver;
    std::string toolkit; ///< "13.0"
    std::string command;
    std::string sampling; ///< "all" or "1/N" (run sampling), as recorded
    std::string object;   ///< the raw trace in the object directory (relative to it)
    std::int64_t start_unix_ns = 0;
    std::uint64_t trace_bytes = 0;
    std::uint64_t kernels = 0;  ///< timed kernel records
    std::uint64_t total_ns = 0; ///< their GPU time
    bool complete = true;       ///< the trace ended cleanly (else: what it held up to damage)
    bool operator==(const run_info&) const = default;
};

/// One (run, kernel, launch configuration) group.
struct kernel_aggregate {
    std::string mangled;
    std::string demangled;
    std::string launch; ///< "grid 128x1x1 block 256x1x1 regs 32 smem 0"
    std::uint64_t count = 0;
    std::uint64_t total_ns = 0;
    std::uint64_t min_ns = 0;
    std::uint64_t max_ns = 0;
    quantile_sketch sketch;
    duration_reservoir reservoir;
};

/// A sampled kernel's roofline verdict (from the trace's metrics chunk).
struct kernel_verdict {
    std::string mangled;
    std::string demangled;
    std::string bound;      ///< "memory" | "compute" | "latency" | "launch"
    std::string unit;       ///< "DRAM", "L2", …
    double pct_of_roof = 0; ///< achieved / attainable, %
    double intensity = 0;   ///< FLOP per DRAM byte
    std::string lever;
};

/// Everything a trace contributes, computed before any database work.
struct run_digest {
    run_info run;
    std::vector<kernel_aggregate> kernels;
    std::vector<kernel_verdict> verdicts;
};

/// Selects runs: empty fields match all.
struct run_filter {
    std::string gpu{};
    std::string build{};
};

/// Fleet totals of one kernel name (all launch configurations).
struct kernel_total {
    std::int64_t name_id = 0;
    std::string mangled, demangled;
    std::uint64_t count = 0;
    std::uint64_t total_ns = 0;
    std::uint64_t runs = 0;
    std::string bound;       ///< of the verdicts covering most time; empty when none
    double pct_of_roof = -1; ///< time-weighted over verdicts; < 0 when none
    std::string lever;
};

/// Per run stored distribution of one kernel (for regressions and fleet quantiles).
struct stored_distribution {
    std::string run_id, build, toolkit, driver, gpu;
    std::string demangled, launch;
    std::uint64_t count = 0, total_ns = 0;
    quantile_sketch sketch;
    duration_reservoir reservoir;
};

/// One `ktune bench` entry (schema ktune.results) as stored in bench_results.
struct bench_row {
    std::string name, shape, unit;
    double median = 0;
    std::vector<double> samples;
};

/// A `ktune bench` results file: its hash is the idempotence key, as a trace's is.
struct bench_digest {
    std::string hash, suite, gpu, build;
    std::int64_t recorded_unix_ns = 0;
    std::vector<bench_row> rows;
};

/// A store over one database. Move-only; one connection, used from one thread.
class profile_store {
public:
    profile_store(std::unique_ptr<detail::connection> db, std::string objects_dir);
    ~profile_store();
    profile_store(profile_store&&) noexcept;
    profile_store& operator=(profile_store&&) noexcept;

    /// Inserts the run and its rows in one transaction; false (nothing changed) when a run with
    /// the same id is stored already, also when another process stored it concurrently.
    bool add_run(const run_digest& digest);
    [[nodiscard]] bool has_run(std::string_view id);
    /// Inserts a bench results file's entries in one transaction; false when the file (by
    /// hash) is stored already.
    bool add_bench(const bench_digest& digest);
    [[nodiscard]] std::size_t bench_rows(std::string_view hash);
    [[nodiscard]] std::vector<run_info> runs(const run_filter& filter = {});
    /// Kernels by fleet GPU time, largest first; `limit` 0 = all.
    [[nodiscard]] std::vector<kernel_total> kernel_totals(const run_filter& filter,
                                                          std::size_t limit = 0);
    /// Every stored group of the kernel `name_id` in the selected runs.
    [[nodiscard]] std::vector<stored_distribution> distributions(const run_filter& filter,
                                                                 std::int64_t name_id);
    /// All groups of the selected runs (regressions).
    [[nodiscard]] std::vector<stored_distribution> distributions(const run_filter& filter);

    [[nodiscard]] const std::string& objects_dir() const noexcept { return objects_; }
    [[nodiscard]] std::string describe() const;
    [[nodiscard]] int version();

private:
    std::unique_ptr<detail::connection> db_;
    std::string objects_;
};

/// The default database: sqlite:$XDG_DATA_HOME/ktune/ktune.db (~/.local/share/ktune/ktune.db).
std::string default_db_url();
/// Opens (creating and migrating) "sqlite:PATH", a bare path, or "postgresql://…"; empty =
/// default_db_url(). `objects_dir` empty: "objects" beside a SQLite file, else
/// $XDG_DATA_HOME/ktune/objects. Throws error{usage} for an unknown scheme, {io} when the
/// database cannot be opened, {unsupported} for a newer schema or a build without libpq.
profile_store open_store(std::string_view url, std::string objects_dir = {});

} // namespace ktune::store
