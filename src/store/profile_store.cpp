// profile_store: the store's writes and queries, written once over the SQL seam.
#include "ktune/core/error.hpp"
#include "ktune/store/store.hpp"
#include "store/schema.hpp"
#include "store/sql_seam.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <unordered_map>

namespace ktune::store {
namespace {

std::span<const std::uint8_t> bytes(const std::string& s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// Runs selected by a filter; `$1` gpu, `$2` build ('' = any).
constexpr std::string_view selected_runs =
    "SELECT id FROM runs WHERE ($1 = '' OR gpu = $1) AND ($2 = '' OR build = $2)";

void bind_filter(detail::statement& s, const run_filter& f) {
    s.bind_text(1, f.gpu);
    s.bind_text(2, f.build);
}

class transaction {
public:
    explicit transaction(detail::connection& db) : db_(db) { db_.begin_write(); }
    ~transaction() {
        if (open_) try {
                db_.exec("ROLLBACK");
            } catch (...) { // the error in flight says more
            }
    }
    transaction(const transaction&) = delete;
    transaction& operator=(const transaction&) = delete;
    void commit() {
        db_.exec("COMMIT");
        open_ = false;
    }

private:
    detail::connection& db_;
    bool open_ = true;
};

std::int64_t now_unix_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

profile_store::profile_store(std::unique_ptr<detail::connection> db, std::string objects_dir)
    : db_(std::move(db)), objects_(std::move(objects_dir)) {
    detail::migrate(*db_);
}
profile_store::~profile_store() = default;
profile_store::profile_store(profile_store&&) noexcept = default;
profile_store& profile_store::operator=(profile_store&&) noexcept = default;

std::string profile_store::describe() const {
    return db_->describe();
}

int profile_store::version() {
    auto s = db_->prepare("SELECT MAX(version) FROM schema_version");
    return s->step() ? static_cast<int>(s->column_int(0)) : 0;
}

bool profile_store::has_run(std::string_view id) {
    auto s = db_->prepare("SELECT 1 FROM runs WHERE hash = $1");
    s->bind_text(1, id);
    return s->step();
}

bool profile_store::add_run(const run_digest& d) {
    transaction tx(*db_);
    const auto& r = d.run;
    // ON CONFLICT DO NOTHING on the content hash: a concurrent ingester of the same trace makes
    // this insert return no row, and this transaction then writes nothing.
    auto ins = db_->prepare(
        "INSERT INTO runs (hash, build, host, gpu, driver, toolkit, command, sampling, object, "
        "start_unix_ns, trace_bytes, kernels, total_ns, complete, ingested_unix_ns) VALUES ($1, "
        "$2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT (hash) DO "
        "NOTHING RETURNING id");
    int i = 1;
    for (const auto* t : {&r.id, &r.build, &r.host, &r.gpu, &r.driver, &r.toolkit, &r.command,
                          &r.sampling, &r.object})
        ins->bind_text(i++, *t);
    ins->bind_int(i++, r.start_unix_ns);
    ins->bind_int(i++, static_cast<std::int64_t>(r.trace_bytes));
    ins->bind_int(i++, static_cast<std::int64_t>(r.kernels));
    ins->bind_int(i++, static_cast<std::int64_t>(r.total_ns));
    ins->bind_int(i++, r.complete ? 1 : 0);
    ins->bind_int(i++, now_unix_ns());
    if (!ins->step()) return false; // rolled back by ~transaction: nothing was written
    const std::int64_t run_id = ins->column_int(0);
    ins.reset();

    auto put_name = db_->prepare("INSERT INTO kernel_names (mangled, demangled) VALUES ($1, $2) "
                                 "ON CONFLICT (mangled) DO NOTHING");
    auto get_name = db_->prepare("SELECT id FROM kernel_names WHERE mangled = $1");
    std::unordered_map<std::string, std::int64_t> ids;
    auto name_id = [&](const std::string& mangled, const std::string& demangled) {
        if (auto it = ids.find(mangled); it != ids.end()) return it->second;
        put_name->bind_text(1, mangled);
        put_name->bind_text(2, demangled);
        put_name->step();
        put_name->reset();
        get_name->bind_text(1, mangled);
        if (!get_name->step())
            throw error(error_kind::internal, "kernel name vanished: " + mangled);
        const auto id = get_name->column_int(0);
        get_name->reset();
        ids.emplace(mangled, id);
        return id;
    };

    // Names first, in sorted order: concurrent PostgreSQL ingesters then take the names' row
    // locks in one global order and cannot deadlock.
    std::map<std::string, std::string> names;
    for (const auto& k : d.kernels)
        names.emplace(k.mangled, k.demangled);
    for (const auto& v : d.verdicts)
        names.emplace(v.mangled, v.demangled);
    for (const auto& [mangled, demangled] : names)
        name_id(mangled, demangled);

    auto agg = db_->prepare("INSERT INTO kernel_aggregates (run_id, name_id, launch, count, "
                            "total_ns, min_ns, max_ns, sketch, reservoir) VALUES ($1, $2, $3, $4, "
                            "$5, $6, $7, $8, $9)");
    for (const auto& k : d.kernels) {
        const auto sketch = k.sketch.serialize();
        const auto reservoir = k.reservoir.serialize();
        agg->bind_int(1, run_id);
        agg->bind_int(2, name_id(k.mangled, k.demangled));
        agg->bind_text(3, k.launch);
        agg->bind_int(4, static_cast<std::int64_t>(k.count));
        agg->bind_int(5, static_cast<std::int64_t>(k.total_ns));
        agg->bind_int(6, static_cast<std::int64_t>(k.min_ns));
        agg->bind_int(7, static_cast<std::int64_t>(k.max_ns));
        agg->bind_blob(8, bytes(sketch));
        agg->bind_blob(9, bytes(reservoir));
        agg->step();
        agg->reset();
    }

    std::unordered_map<std::string, std::uint64_t> time_of;
    for (const auto& k : d.kernels)
        time_of[k.mangled] += k.total_ns;
    auto ver = db_->prepare("INSERT INTO kernel_verdicts (run_id, name_id, bound, unit, "
                            "pct_of_roof, intensity, lever, time_ns) VALUES ($1, $2, $3, $4, $5, "
                            "$6, $7, $8) ON CONFLICT (run_id, name_id) DO NOTHING");
    for (const auto& v : d.verdicts) {
        ver->bind_int(1, run_id);
        ver->bind_int(2, name_id(v.mangled, v.demangled));
        ver->bind_text(3, v.bound);
        ver->bind_text(4, v.unit);
        ver->bind_double(5, v.pct_of_roof);
        ver->bind_double(6, v.intensity);
        ver->bind_text(7, v.lever);
        ver->bind_int(8, static_cast<std::int64_t>(time_of[v.mangled]));
        ver->step();
        ver->reset();
    }
    tx.commit();
    return true;
}

bool profile_store::add_bench(const bench_digest& d) {
    transaction tx(*db_);
    auto seen = db_->prepare("SELECT 1 FROM bench_results WHERE run_hash = $1");
    seen->bind_text(1, d.hash);
    if (seen->step()) return false;
    seen.reset();
    // ON CONFLICT: a concurrent ingester of the same file has inserted the same rows.
    auto ins = db_->prepare("INSERT INTO bench_results (run_hash, suite, name, shape, gpu, build, "
                            "unit, median, samples, recorded_unix_ns) VALUES ($1, $2, $3, $4, $5, "
                            "$6, $7, $8, $9, $10) ON CONFLICT (run_hash, name, shape) DO NOTHING");
    bool added = false;
    for (const auto& r : d.rows) {
        // Samples as little-endian IEEE doubles: exact, and the same bytes on every platform
        // this runs on (x86-64, aarch64).
        std::string blob(r.samples.size() * sizeof(double), '\0');
        std::memcpy(blob.data(), r.samples.data(), blob.size());
        ins->bind_text(1, d.hash);
        ins->bind_text(2, d.suite);
        ins->bind_text(3, r.name);
        ins->bind_text(4, r.shape);
        ins->bind_text(5, d.gpu);
        ins->bind_text(6, d.build);
        ins->bind_text(7, r.unit);
        ins->bind_double(8, r.median);
        ins->bind_blob(9, bytes(blob));
        ins->bind_int(10, d.recorded_unix_ns);
        ins->step();
        ins->reset();
        added = true;
    }
    tx.commit();
    return added;
}

std::size_t profile_store::bench_rows(std::string_view hash) {
    auto s = db_->prepare("SELECT COUNT(*) FROM bench_results WHERE run_hash = $1");
    s->bind_text(1, hash);
    return s->step() ? static_cast<std::size_t>(s->column_int(0)) : 0;
}

std::vector<run_info> profile_store::runs(const run_filter& filter) {
    auto s = db_->prepare(
        "SELECT hash, build, host, gpu, driver, toolkit, command, sampling, object, "
        "start_unix_ns, trace_bytes, kernels, total_ns, complete FROM runs WHERE ($1 = '' OR gpu "
        "= $1) AND ($2 = '' OR build = $2) ORDER BY start_unix_ns, hash");
    bind_filter(*s, filter);
    std::vector<run_info> out;
    while (s->step()) {
        run_info r;
        int c = 0;
        for (auto* t : {&r.id, &r.build, &r.host, &r.gpu, &r.driver, &r.toolkit, &r.command,
                        &r.sampling, &r.object})
            *t = s->column_text(c++);
        r.start_unix_ns = s->column_int(c++);
        r.trace_bytes = static_cast<std::uint64_t>(s->column_int(c++));
        r.kernels = static_cast<std::uint64_t>(s->column_int(c++));
        r.total_ns = static_cast<std::uint64_t>(s->column_int(c++));
        r.complete = s->column_int(c++) != 0;
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<kernel_total> profile_store::kernel_totals(const run_filter& filter,
                                                       std::size_t limit) {
    // The aggregates_by_name index covers (name_id, run_id, total_ns, count): the ranking never
    // reads the rows' blobs.
    std::string sql = "SELECT a.name_id, SUM(a.count), SUM(a.total_ns), COUNT(DISTINCT a.run_id) "
                      "FROM kernel_aggregates a WHERE a.run_id IN (" +
                      std::string(selected_runs) + ") GROUP BY a.name_id ORDER BY 3 DESC, 1";
    if (limit > 0) sql += " LIMIT " + std::to_string(limit);
    auto s = db_->prepare(sql);
    bind_filter(*s, filter);
    std::vector<kernel_total> out;
    std::map<std::int64_t, std::size_t> at;
    while (s->step()) {
        kernel_total k;
        k.name_id = s->column_int(0);
        k.count = static_cast<std::uint64_t>(s->column_int(1));
        k.total_ns = static_cast<std::uint64_t>(s->column_int(2));
        k.runs = static_cast<std::uint64_t>(s->column_int(3));
        at[k.name_id] = out.size();
        out.push_back(std::move(k));
    }
    if (out.empty()) return out;
    auto names = db_->prepare("SELECT id, mangled, demangled FROM kernel_names");
    while (names->step())
        if (auto it = at.find(names->column_int(0)); it != at.end()) {
            out[it->second].mangled = names->column_text(1);
            out[it->second].demangled = names->column_text(2);
        }
    // Verdicts: the class that covers most of the kernel's sampled time, % of roof weighted by
    // time over the verdicts of that class.
    auto v = db_->prepare("SELECT name_id, bound, SUM(time_ns), SUM(time_ns * pct_of_roof), "
                          "MAX(lever) FROM kernel_verdicts WHERE run_id IN (" +
                          std::string(selected_runs) + ") GROUP BY name_id, bound");
    bind_filter(*v, filter);
    std::map<std::int64_t, double> best_time;
    while (v->step()) {
        const auto it = at.find(v->column_int(0));
        if (it == at.end()) continue;
        const double t = v->column_double(2);
        const auto [bt, fresh] = best_time.try_emplace(it->first, t);
        if (!fresh && t <= bt->second) continue;
        bt->second = t;
        auto& k = out[it->second];
        k.bound = v->column_text(1);
        k.pct_of_roof = t > 0 ? v->column_double(3) / t : 0;
        k.lever = v->column_text(4);
    }
    return out;
}

namespace {

std::vector<stored_distribution> read_distributions(detail::statement& s) {
    std::vector<stored_distribution> out;
    while (s.step()) {
        stored_distribution d;
        int c = 0;
        for (auto* t :
             {&d.run_id, &d.build, &d.toolkit, &d.driver, &d.gpu, &d.demangled, &d.launch})
            *t = s.column_text(c++);
        d.count = static_cast<std::uint64_t>(s.column_int(c++));
        d.total_ns = static_cast<std::uint64_t>(s.column_int(c++));
        d.sketch = quantile_sketch::deserialize(bytes(s.column_blob(c++)));
        d.reservoir = duration_reservoir::deserialize(bytes(s.column_blob(c++)));
        out.push_back(std::move(d));
    }
    return out;
}

constexpr std::string_view distribution_columns =
    "SELECT r.hash, r.build, r.toolkit, r.driver, r.gpu, n.demangled, a.launch, a.count, "
    "a.total_ns, a.sketch, a.reservoir FROM kernel_aggregates a JOIN runs r ON r.id = a.run_id "
    "JOIN kernel_names n ON n.id = a.name_id WHERE ($1 = '' OR r.gpu = $1) AND ($2 = '' OR "
    "r.build = $2)";

} // namespace

std::vector<stored_distribution> profile_store::distributions(const run_filter& filter,
                                                              std::int64_t name_id) {
    auto s = db_->prepare(std::string(distribution_columns) + " AND a.name_id = $3");
    bind_filter(*s, filter);
    s->bind_int(3, name_id);
    return read_distributions(*s);
}

std::vector<stored_distribution> profile_store::distributions(const run_filter& filter) {
    auto s = db_->prepare(distribution_columns);
    bind_filter(*s, filter);
    return read_distributions(*s);
}

std::string default_db_url() {
    std::filesystem::path base;
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
        base = x;
    else if (const char* h = std::getenv("HOME"); h && *h)
        base = std::filesystem::path(h) / ".local" / "share";
    else
        throw error(error_kind::usage, "neither XDG_DATA_HOME nor HOME is set: pass --db URL");
    return "sqlite:" + (base / "ktune" / "ktune.db").string();
}

profile_store open_store(std::string_view url, std::string objects_dir) {
    std::string u(url.empty() ? default_db_url() : std::string(url));
    if (u.starts_with("postgresql://") || u.starts_with("postgres://")) {
        if (objects_dir.empty()) {
            const auto def = default_db_url().substr(7);
            objects_dir = (std::filesystem::path(def).parent_path() / "objects").string();
        }
        return profile_store(detail::open_postgresql(u), objects_dir);
    }
    if (u.starts_with("sqlite:"))
        u = u.substr(7);
    else if (u.find("://") != std::string::npos)
        throw error(error_kind::usage, "--db " + u +
                                           ": unknown scheme; use sqlite:PATH, a path, or "
                                           "postgresql://…");
    if (u.empty()) throw error(error_kind::usage, "--db sqlite: needs a path (sqlite:PATH)");
    if (objects_dir.empty())
        objects_dir = (std::filesystem::path(u).parent_path() / "objects").string();
    return profile_store(detail::open_sqlite(u), objects_dir);
}

} // namespace ktune::store
