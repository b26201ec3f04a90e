#pragma once
// The seam in front of the database C APIs (SQLite, libpq): the store's SQL is written once
// against this interface and each backend adapts it. Parameters are `$1`, `$2`, … numbered in
// order of first appearance (both engines accept that spelling); blobs travel as bytes.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace ktune::store::detail {

enum class dialect { sqlite, postgresql };

/// A prepared statement; rows are read with step() until it returns false.
class statement {
public:
    virtual ~statement() = default;
    virtual void bind_int(int index, std::int64_t v) = 0; ///< index from 1
    virtual void bind_double(int index, double v) = 0;
    virtual void bind_text(int index, std::string_view v) = 0;
    virtual void bind_blob(int index, std::span<const std::uint8_t> v) = 0;
    /// Runs the statement (first call) and moves to the next row; false when there is none.
    virtual bool step() = 0;
    /// Clears the result so the statement can run again with new bindings.
    virtual void reset() = 0;
    virtual std::int64_t column_int(int col) = 0; ///< col from 0
    virtual double column_double(int col) = 0;
    virtual std::string column_text(int col) = 0;
    virtual std::string column_blob(int col) = 0;
    virtual bool column_null(int col) = 0;
};

/// One connection. Throws ktune::error{io} on a database failure, with the engine's message.
class connection {
public:
    virtual ~connection() = default;
    [[nodiscard]] virtual dialect kind() const noexcept = 0;
    virtual void exec(std::string_view sql) = 0; ///< one or more statements, no parameters
    virtual std::unique_ptr<statement> prepare(std::string_view sql) = 0;
    /// BEGIN that takes the write lock now (SQLite: IMMEDIATE; PostgreSQL: plain BEGIN).
    virtual void begin_write() = 0;
    [[nodiscard]] virtual std::string describe() const = 0; ///< for messages: the URL
};

std::unique_ptr<connection> open_sqlite(const std::string& path);
/// Throws error{unsupported} when this build has no libpq.
std::unique_ptr<connection> open_postgresql(const std::string& url);

} // namespace ktune::store::detail
