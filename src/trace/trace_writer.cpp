// .ktrace writer: column-encodes each block, compresses it with zstd (content checksum on, so
// a reader detects corruption), and appends it as one chunk.
#include "columns.hpp"
#include "format.hpp"
#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"

#include <nlohmann/json.hpp>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace ktune::trace {

struct trace_writer::impl {
    std::FILE* file = nullptr;
    std::string path;
    ZSTD_CCtx* cctx = nullptr;
    std::uint64_t bytes = 0;
    std::unordered_map<std::string, std::uint32_t> ids;
    std::uint32_t next_id = 0;
    std::string pending_strings; // raw strings chunk payload not yet written
    std::uint32_t pending_count = 0;
    std::string raw, packed; // reused buffers
    std::vector<std::uint64_t> scratch;

    impl() = default;
    impl(const impl&) = delete;
    impl& operator=(const impl&) = delete;
    ~impl() { // here, not in ~trace_writer: a constructor that throws must not leak these
        if (file) std::fclose(file);
        ZSTD_freeCCtx(cctx);
    }

    void put(const void* p, std::size_t n) {
        if (std::fwrite(p, 1, n, file) != n)
            throw error(error_kind::io, path + ": write failed: " + std::strerror(errno));
        bytes += n;
    }
    void put_chunk(detail::chunk type, std::uint32_t count, const std::string& payload,
                   std::uint64_t raw_bytes) {
        const detail::chunk_header h{static_cast<std::uint32_t>(type), count, payload.size(),
                                     raw_bytes};
        put(&h, sizeof h);
        put(payload.data(), payload.size());
    }
    void put_compressed(detail::chunk type, std::uint32_t count, const std::string& payload) {
        packed.resize(ZSTD_compressBound(payload.size()));
        const std::size_t n =
            ZSTD_compress2(cctx, packed.data(), packed.size(), payload.data(), payload.size());
        if (ZSTD_isError(n))
            throw error(error_kind::internal, std::string("zstd: ") + ZSTD_getErrorName(n));
        packed.resize(n);
        put_chunk(type, count, packed, payload.size());
    }
    void flush_strings() {
        if (pending_count == 0) return;
        put_compressed(detail::chunk::strings, pending_count, pending_strings);
        pending_strings.clear();
        pending_count = 0;
    }
    template <class T>
    void write_block(detail::chunk type, std::span<const T> rows) {
        flush_strings();
        // Blocks of at most 64 Ki rows keep the reader's memory bounded.
        constexpr std::size_t max_rows = 1u << 16;
        for (std::size_t i = 0; i < rows.size(); i += max_rows) {
            const auto part = rows.subspan(i, std::min(max_rows, rows.size() - i));
            raw.clear();
            detail::encode_columns(part, raw, scratch);
            put_compressed(type, static_cast<std::uint32_t>(part.size()), raw);
        }
    }
};

namespace {
void append_u32(std::string& s, std::uint32_t v) {
    char b[4];
    detail::put_u32(b, v);
    s.append(b, 4);
}
} // namespace

trace_writer::trace_writer(const std::string& path, const trace_environment& env, int zstd_level)
    : impl_(std::make_unique<impl>()) {
    impl_->path = path;
    impl_->file = std::fopen(path.c_str(), "wb");
    if (!impl_->file)
        throw error(error_kind::io, path + ": cannot create trace file: " + std::strerror(errno));
    impl_->cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(impl_->cctx, ZSTD_c_compressionLevel, zstd_level);
    ZSTD_CCtx_setParameter(impl_->cctx, ZSTD_c_checksumFlag, 1);
    char prefix[detail::file_prefix_bytes] = {};
    std::memcpy(prefix, detail::file_magic, 8);
    std::memcpy(prefix + 8, &format_major, 2);
    std::memcpy(prefix + 10, &format_minor, 2);
    impl_->put(prefix, sizeof prefix);
    auto j = nlohmann::json::parse(to_json(env));
    j["schema"] = format_schema;
    j["version"] = std::to_string(format_major) + "." + std::to_string(format_minor) + ".0";
    const std::string text = j.dump();
    impl_->put_chunk(detail::chunk::header, 0, text, text.size());
}

trace_writer::~trace_writer() = default;

std::uint32_t trace_writer::intern(std::string_view mangled) {
    const auto it = impl_->ids.find(std::string(mangled));
    if (it != impl_->ids.end()) return it->second;
    const std::uint32_t id = impl_->next_id;
    add_string(id, mangled);
    return id;
}

void trace_writer::add_string(std::uint32_t id, std::string_view mangled) {
    if (id != impl_->next_id)
        throw error(error_kind::internal, "trace string ids must be dense: got " +
                                              std::to_string(id) + ", expected " +
                                              std::to_string(impl_->next_id));
    impl_->ids.emplace(std::string(mangled), id);
    ++impl_->next_id;
    const std::string d = demangle(mangled);
    append_u32(impl_->pending_strings, id);
    append_u32(impl_->pending_strings, static_cast<std::uint32_t>(mangled.size()));
    impl_->pending_strings.append(mangled);
    append_u32(impl_->pending_strings, static_cast<std::uint32_t>(d.size()));
    impl_->pending_strings.append(d);
    ++impl_->pending_count;
}

void trace_writer::write(std::span<const kernel_record> r) {
    impl_->write_block(detail::chunk::kernels, r);
}
void trace_writer::write(std::span<const memcpy_record> r) {
    impl_->write_block(detail::chunk::memcpys, r);
}
void trace_writer::write(std::span<const memset_record> r) {
    impl_->write_block(detail::chunk::memsets, r);
}
void trace_writer::write(std::span<const sync_record> r) {
    impl_->write_block(detail::chunk::syncs, r);
}
void trace_writer::write(std::span<const nvtx_record> r) {
    impl_->write_block(detail::chunk::nvtx, r);
}

void trace_writer::finish(const trace_environment& end_env, const trace_counters& c) {
    if (!impl_->file) return;
    impl_->flush_strings();
    const std::string env = to_json(end_env);
    impl_->put_chunk(detail::chunk::trailer, 0, env, env.size());
    const nlohmann::json j{{"kernels", c.kernels},
                           {"memcpys", c.memcpys},
                           {"memsets", c.memsets},
                           {"syncs", c.syncs},
                           {"nvtx_ranges", c.nvtx_ranges},
                           {"dropped_by_cupti", c.dropped_by_cupti},
                           {"dropped_by_ktune", c.dropped_by_ktune},
                           {"zero_timestamps", c.zero_timestamps},
                           {"unknown_records", c.unknown_records},
                           {"unmatched_nvtx", c.unmatched_nvtx}};
    const std::string text = j.dump();
    impl_->put_chunk(detail::chunk::footer, 0, text, text.size());
    const int rc = std::fclose(impl_->file);
    impl_->file = nullptr;
    if (rc != 0)
        throw error(error_kind::io, impl_->path + ": close failed: " + std::strerror(errno));
}

std::uint64_t trace_writer::bytes_written() const noexcept {
    return impl_->bytes;
}

} // namespace ktune::trace
