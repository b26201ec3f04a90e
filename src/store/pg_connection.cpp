// The PostgreSQL backend of the store's SQL seam (sql_seam.hpp), through libpq. Parameters go
// as text (blobs as binary) with types inferred by the server; results come back as text.
#include "store/libpq_api.hpp"
#include "store/sql_seam.hpp"

#include "ktune/core/error.hpp"

#include <cstdlib>
#include <memory>
#include <vector>

namespace ktune::store::detail {
namespace {

struct result_clear {
    void operator()(PGresult* r) const noexcept { libpq().PQclear(r); }
};
using result_ptr = std::unique_ptr<PGresult, result_clear>;

std::string redact(const std::string& url) { // never print a password from the URL
    const auto at = url.find('@');
    const auto colon = url.find(':', url.find("://") + 3);
    if (at == std::string::npos || colon == std::string::npos || colon > at) return url;
    return url.substr(0, colon) + ":***" + url.substr(at);
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw error(error_kind::input, "postgresql: bad bytea hex digit");
}

class pg_statement final : public statement {
public:
    pg_statement(PGconn* db, std::string sql) : db_(db), sql_(std::move(sql)) {}

    void bind_int(int i, std::int64_t v) override { set(i, std::to_string(v), 0); }
    void bind_double(int i, double v) override {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        set(i, buf, 0);
    }
    void bind_text(int i, std::string_view v) override { set(i, std::string(v), 0); }
    void bind_blob(int i, std::span<const std::uint8_t> v) override {
        set(i, std::string(reinterpret_cast<const char*>(v.data()), v.size()), 1);
    }
    bool step() override {
        if (!res_) run();
        return ++row_ < libpq().PQntuples(res_.get());
    }
    void reset() override {
        res_.reset();
        row_ = -1;
        values_.clear();
        formats_.clear();
    }
    std::int64_t column_int(int c) override {
        return column_null(c) ? 0
                              : std::strtoll(libpq().PQgetvalue(res_.get(), row_, c), nullptr, 10);
    }
    double column_double(int c) override {
        return column_null(c) ? 0 : std::strtod(libpq().PQgetvalue(res_.get(), row_, c), nullptr);
    }
    std::string column_text(int c) override {
        return {libpq().PQgetvalue(res_.get(), row_, c),
                static_cast<std::size_t>(libpq().PQgetlength(res_.get(), row_, c))};
    }
    std::string column_blob(int c) override {
        const std::string t = column_text(c); // bytea_output = hex: "\x0a1b…"
        if (t.size() < 2 || t[0] != '\\' || t[1] != 'x')
            throw error(error_kind::input, "postgresql: bytea not in hex form");
        std::string out;
        out.reserve((t.size() - 2) / 2);
        for (std::size_t i = 2; i + 1 < t.size(); i += 2)
            out.push_back(static_cast<char>(hex_value(t[i]) * 16 + hex_value(t[i + 1])));
        return out;
    }
    bool column_null(int c) override { return libpq().PQgetisnull(res_.get(), row_, c) != 0; }

private:
    void set(int i, std::string v, int format) {
        const auto n = static_cast<std::size_t>(i);
        if (values_.size() < n) {
            values_.resize(n);
            formats_.resize(n, 0);
        }
        values_[n - 1] = std::move(v);
        formats_[n - 1] = format;
    }
    void run() {
        std::vector<const char*> ptrs;
        std::vector<int> lengths;
        for (const auto& v : values_) {
            ptrs.push_back(v.data());
            lengths.push_back(static_cast<int>(v.size()));
        }
        res_.reset(libpq().PQexecParams(db_, sql_.c_str(), static_cast<int>(values_.size()),
                                        nullptr, ptrs.data(), lengths.data(), formats_.data(), 0));
        const auto st = res_ ? libpq().PQresultStatus(res_.get()) : PGRES_FATAL_ERROR;
        if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
            throw error(error_kind::io, std::string("postgresql: ") + libpq().PQerrorMessage(db_) +
                                            " in: " + sql_.substr(0, 120));
        row_ = -1;
    }
    PGconn* db_;
    std::string sql_;
    std::vector<std::string> values_;
    std::vector<int> formats_;
    result_ptr res_;
    int row_ = -1;
};

class pg_connection final : public connection {
public:
    explicit pg_connection(const std::string& url)
        : url_(redact(url)), db_(libpq().PQconnectdb(url.c_str())) {
        if (!db_ || libpq().PQstatus(db_) != CONNECTION_OK) {
            std::string msg = db_ ? libpq().PQerrorMessage(db_) : "out of memory";
            libpq().PQfinish(db_);
            throw error(error_kind::io, "cannot connect to the store database " + url_ + ": " +
                                            msg + "(is the server running? check --db)");
        }
        exec("SET client_min_messages = warning");
    }
    ~pg_connection() override { libpq().PQfinish(db_); }
    pg_connection(const pg_connection&) = delete;
    pg_connection& operator=(const pg_connection&) = delete;

    [[nodiscard]] dialect kind() const noexcept override { return dialect::postgresql; }
    void exec(std::string_view sql) override {
        result_ptr r(libpq().PQexec(db_, std::string(sql).c_str()));
        const auto st = r ? libpq().PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
            throw error(error_kind::io, "postgresql " + url_ + ": " + libpq().PQerrorMessage(db_));
    }
    std::unique_ptr<statement> prepare(std::string_view sql) override {
        return std::make_unique<pg_statement>(db_, std::string(sql));
    }
    void begin_write() override { exec("BEGIN"); }
    [[nodiscard]] std::string describe() const override { return url_; }

private:
    std::string url_;
    PGconn* db_;
};

} // namespace

std::unique_ptr<connection> open_postgresql(const std::string& url) {
    return std::make_unique<pg_connection>(url);
}

} // namespace ktune::store::detail
