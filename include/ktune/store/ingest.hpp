#pragma once
// Ingest: a .ktrace file becomes one run in the store: its aggregates per (kernel, launch
// configuration), its roofline verdicts when it carries metrics, and the raw trace in the
// content-addressed object directory. Idempotent: the run id is the trace's SHA-256.
//
//   auto db = ktune::store::open_store("sqlite:k.db");
//   auto r = ktune::store::ingest_trace(db, "run.ktrace", {.build = "v1"});

#include "ktune/store/store.hpp"

#include <string>
#include <vector>

namespace ktune::store {

struct ingest_options {
    std::string build{};     ///< build id recorded with the run ("" = unknown)
    bool keep_object = true; ///< copy the trace into the object directory
    std::string sampling{};  ///< run sampling it was taken under ("" = "all")
};

struct ingest_result {
    std::string path;
    std::string kind = "trace"; ///< "trace" or "bench" (a `ktune bench` results file)
    run_info run;
    bool already_stored = false; ///< the same trace was stored before: nothing changed
    std::size_t groups = 0;      ///< (kernel, launch) aggregates written
    std::size_t verdicts = 0;    ///< roofline verdicts written
    std::string note;            ///< e.g. why the metrics chunk gave no verdicts
    double seconds = 0;
};

/// Reads a trace into a digest (no database work). Throws error{input} for a file that is not
/// a trace; a truncated trace contributes what it holds (run.complete false).
run_digest digest_trace(const std::string& path, const ingest_options& options = {},
                        std::string* note = nullptr);

/// Stores `path` in `db` in one transaction (see ingest.hpp's header comment). A `ktune bench`
/// results file (schema ktune.results) goes to the bench_results table, also idempotently
/// (run id = its SHA-256).
ingest_result ingest_trace(profile_store& db, const std::string& path,
                           const ingest_options& options = {});

/// Copies `path` to `objects_dir`/<first 2 hex>/<sha256>.ktrace atomically (temporary file,
/// fsync, rename, fsync of the directory); an existing object is kept. Returns the relative
/// object name.
std::string store_object(const std::string& objects_dir, const std::string& path,
                         const std::string& sha256);

/// The `ktune ingest --json` document (schema ktune.ingest, docs/formats.md#ktuneingest).
std::string ingest_json(const std::vector<ingest_result>& results, const std::string& db);

} // namespace ktune::store
