#pragma once
// The .ktrace file: a versioned, streamable container of compressed column blocks.
//
//   magic "KTRACE\0\0", u16 major, u16 minor, u32 0               (16 bytes)
//   chunks: u32 type, u32 record count, u64 stored bytes, u64 raw bytes, then the payload
//     header (JSON environment) · strings (zstd) · kernels/memcpy/memset/sync/nvtx blocks
//     (zstd of delta + varint encoded columns) · trailer (JSON environment) · footer (JSON
//     counters)
//
// A block's strings always precede it, so a reader streams the file once with bounded memory.
// A file cut short (a crashed process) reads up to the damage and says where.
//
//   trace_writer w("run.ktrace", env);
//   kernel_record k; k.name_id = w.intern("_Z4axpyPf"); ...; w.write(std::span(&k, 1));
//   w.finish(counters);

#include "ktune/trace/environment.hpp"
#include "ktune/trace/records.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::trace {

inline constexpr std::uint16_t format_major = 1;
/// 1.1: kernel blocks carry two more columns (the launch's NVTX range and path).
inline constexpr std::uint16_t format_minor = 1;
inline constexpr std::string_view format_schema = "ktune.trace";

/// Writes a .ktrace file. Not thread-safe: one writer thread owns it.
class trace_writer {
public:
    /// Creates (truncates) `path` and writes the header. Throws ktune::error{io}.
    trace_writer(const std::string& path, const trace_environment& env, int zstd_level = 3);
    ~trace_writer();
    trace_writer(const trace_writer&) = delete;
    trace_writer& operator=(const trace_writer&) = delete;

    /// Id of `mangled` in the string table, adding it (with its demangled form) if new.
    std::uint32_t intern(std::string_view mangled);
    /// Adds a string under an id chosen by the caller (ids must be new and dense from 0).
    void add_string(std::uint32_t id, std::string_view mangled);

    void write(std::span<const kernel_record> records);
    void write(std::span<const memcpy_record> records);
    void write(std::span<const memset_record> records);
    void write(std::span<const sync_record> records);
    void write(std::span<const nvtx_record> records);

    /// Writes the trailer (end environment) and footer, then closes. Throws ktune::error{io}.
    void finish(const trace_environment& end_env, const trace_counters& counters);
    /// Bytes written so far.
    [[nodiscard]] std::uint64_t bytes_written() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// One interned name.
struct trace_string {
    std::string mangled;
    std::string demangled; ///< equal to mangled when it is not a mangled C++ name
    bool operator==(const trace_string&) const = default;
};

/// Receives a trace's records block by block (spans are valid during the call only).
class trace_visitor {
public:
    virtual ~trace_visitor() = default;
    virtual void on_kernels(std::span<const kernel_record>) {}
    virtual void on_memcpys(std::span<const memcpy_record>) {}
    virtual void on_memsets(std::span<const memset_record>) {}
    virtual void on_syncs(std::span<const sync_record>) {}
    virtual void on_nvtx(std::span<const nvtx_record>) {}
};

/// What a read pass saw.
struct read_status {
    bool complete = false;        ///< footer read: the recording ended cleanly
    std::string damage;           ///< why reading stopped early (empty when complete)
    std::uint64_t bytes_read = 0; ///< up to the last whole chunk
    trace_counters counters;      ///< footer counters, or counted records when incomplete
};

/// Streams a .ktrace file. The constructor reads and checks the header: an unknown major version
/// or a file that is not a trace throws ktune::error{input} naming the file.
class trace_reader {
public:
    explicit trace_reader(const std::string& path);
    ~trace_reader();
    trace_reader(const trace_reader&) = delete;
    trace_reader& operator=(const trace_reader&) = delete;

    /// One pass over every chunk; strings and the end environment are collected on the way.
    /// Never throws for damage after the header: the status says where it stopped.
    read_status read(trace_visitor& visitor);

    [[nodiscard]] const trace_environment& environment() const noexcept;
    [[nodiscard]] const std::vector<trace_string>& strings() const noexcept;
    /// The string with `id`, or a placeholder naming the id when it is unknown.
    [[nodiscard]] const trace_string& string(std::uint32_t id) const noexcept;
    [[nodiscard]] const std::string& path() const noexcept;
    [[nodiscard]] int minor_version() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// One pass over the trace at `path` that only checks it: the status says whether it is complete
/// and, if not, where and why it stops (the file and byte offset). Throws like trace_reader.
read_status scan_trace(const std::string& path);

/// Appends a metrics chunk (a ktune.kernel_metrics JSON document, see
/// include/ktune/metrics/kernel_metrics.hpp) after the footer of the complete trace at `path`.
/// Throws ktune::error{io} when the file cannot be written, {input} when it is not a trace.
void append_metrics_chunk(const std::string& path, std::string_view metrics_json);
/// The JSON of the last metrics chunk of the trace at `path`; empty when it has none (a trace
/// recorded without --metrics, or by an older ktune). Throws ktune::error{input} when the file
/// is not a trace or its metrics chunk is corrupt.
std::string read_metrics_chunk(const std::string& path);
/// True when `path` starts with the .ktrace magic (false for a missing or short file).
bool is_trace_file(const std::string& path) noexcept;

/// Demangled form of a C++/CUDA symbol, or the input itself when it is not mangled.
std::string demangle(std::string_view mangled);

} // namespace ktune::trace
