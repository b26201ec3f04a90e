// The SQLite backend of the store's SQL seam (sql_seam.hpp).
#include "store/sql_seam.hpp"

#include "ktune/core/error.hpp"

#include <sqlite3.h>

#include <filesystem>

namespace ktune::store::detail {
namespace {

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
    throw error(error_kind::io, what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

class sqlite_statement final : public statement {
public:
    sqlite_statement(sqlite3* db, sqlite3_stmt* s) : db_(db), s_(s) {}
    ~sqlite_statement() override { sqlite3_finalize(s_); }
    sqlite_statement(const sqlite_statement&) = delete;
    sqlite_statement& operator=(const sqlite_statement&) = delete;

    void bind_int(int i, std::int64_t v) override { check(sqlite3_bind_int64(s_, i, v)); }
    void bind_double(int i, double v) override { check(sqlite3_bind_double(s_, i, v)); }
    void bind_text(int i, std::string_view v) override {
        check(sqlite3_bind_text64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
    }
    void bind_blob(int i, std::span<const std::uint8_t> v) override {
        check(sqlite3_bind_blob64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT));
    }
    bool step() override {
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        fail(db_, std::string("sqlite: ") + sqlite3_sql(s_));
    }
    void reset() override {
        sqlite3_reset(s_);
        sqlite3_clear_bindings(s_);
    }
    std::int64_t column_int(int c) override { return sqlite3_column_int64(s_, c); }
    double column_double(int c) override { return sqlite3_column_double(s_, c); }
    std::string column_text(int c) override {
        const auto* p = sqlite3_column_text(s_, c);
        return p ? std::string(reinterpret_cast<const char*>(p),
                               static_cast<std::size_t>(sqlite3_column_bytes(s_, c)))
                 : std::string();
    }
    std::string column_blob(int c) override {
        const auto* p = static_cast<const char*>(sqlite3_column_blob(s_, c));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, c)))
                 : std::string();
    }
    bool column_null(int c) override { return sqlite3_column_type(s_, c) == SQLITE_NULL; }

private:
    void check(int rc) {
        if (rc != SQLITE_OK) fail(db_, "sqlite bind");
    }
    sqlite3* db_;
    sqlite3_stmt* s_;
};

class sqlite_connection final : public connection {
public:
    explicit sqlite_connection(const std::string& path) : path_(path) {
        const auto parent = std::filesystem::path(path).parent_path();
        std::error_code ec;
        if (!parent.empty()) std::filesystem::create_directories(parent, ec);
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                            nullptr) != SQLITE_OK) {
            std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw error(error_kind::io, "cannot open the store database " + path + ": " + msg);
        }
        // Several ingesters may share one file: wait for the write lock instead of failing;
        // WAL lets backlog queries read while an ingest writes.
        sqlite3_busy_timeout(db_, 60'000);
        exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
    }
    ~sqlite_connection() override { sqlite3_close_v2(db_); }
    sqlite_connection(const sqlite_connection&) = delete;
    sqlite_connection& operator=(const sqlite_connection&) = delete;

    [[nodiscard]] dialect kind() const noexcept override { return dialect::sqlite; }
    void exec(std::string_view sql) override {
        char* msg = nullptr;
        if (sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
            std::string m = msg ? msg : "unknown error";
            sqlite3_free(msg);
            throw error(error_kind::io, "sqlite " + path_ + ": " + m);
        }
    }
    std::unique_ptr<statement> prepare(std::string_view sql) override {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &s, nullptr) !=
            SQLITE_OK)
            fail(db_, "sqlite prepare " + std::string(sql));
        return std::make_unique<sqlite_statement>(db_, s);
    }
    void begin_write() override { exec("BEGIN IMMEDIATE"); }
    [[nodiscard]] std::string describe() const override { return "sqlite:" + path_; }

private:
    std::string path_;
    sqlite3* db_ = nullptr;
};

} // namespace

std::unique_ptr<connection> open_sqlite(const std::string& path) {
    return std::make_unique<sqlite_connection>(path);
}

} // namespace ktune::store::detail
