// The metrics chunk of a .ktrace: appended after the footer once the activity trace is saved,
// because the range profiler's last ranges are decoded only when the program ends. The chunk
// walk below seeks over payloads, so finding it costs one header read per chunk.
#include "format.hpp"
#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"

#include <zstd.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace ktune::trace {
namespace {

struct file_closer {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

file_ptr open_trace(const std::string& path, const char* mode) {
    file_ptr f(std::fopen(path.c_str(), mode));
    if (!f) throw error(error_kind::io, path + ": cannot open: " + std::strerror(errno));
    char magic[detail::file_prefix_bytes];
    if (std::fread(magic, 1, sizeof magic, f.get()) != sizeof magic ||
        std::memcmp(magic, detail::file_magic, 8) != 0)
        throw error(error_kind::input, path + ": not a ktune trace (.ktrace magic missing)");
    return f;
}

} // namespace

bool is_trace_file(const std::string& path) noexcept {
    file_ptr f(std::fopen(path.c_str(), "rb"));
    char magic[8];
    return f && std::fread(magic, 1, sizeof magic, f.get()) == sizeof magic &&
           std::memcmp(magic, detail::file_magic, 8) == 0;
}

void append_metrics_chunk(const std::string& path, std::string_view json) {
    (void)open_trace(path, "rb"); // refuse to append to something that is not a trace
    std::string packed(ZSTD_compressBound(json.size()), '\0');
    const std::size_t n = ZSTD_compress(packed.data(), packed.size(), json.data(), json.size(), 3);
    if (ZSTD_isError(n))
        throw error(error_kind::internal, std::string("zstd: ") + ZSTD_getErrorName(n));
    packed.resize(n);
    const detail::chunk_header h{static_cast<std::uint32_t>(detail::chunk::metrics), 1,
                                 packed.size(), json.size()};
    file_ptr f(std::fopen(path.c_str(), "ab"));
    if (!f || std::fwrite(&h, sizeof h, 1, f.get()) != 1 ||
        std::fwrite(packed.data(), 1, packed.size(), f.get()) != packed.size() ||
        std::fflush(f.get()) != 0)
        throw error(error_kind::io,
                    path + ": cannot append the metrics chunk: " + std::strerror(errno));
}

std::string read_metrics_chunk(const std::string& path) {
    auto f = open_trace(path, "rb");
    struct stat info {};
    const std::uint64_t size = ::fstat(::fileno(f.get()), &info) == 0 && info.st_size > 0
                                   ? static_cast<std::uint64_t>(info.st_size)
                                   : 0;
    std::string found;
    std::uint64_t offset = detail::file_prefix_bytes;
    for (;;) {
        detail::chunk_header h;
        if (std::fread(&h, sizeof h, 1, f.get()) != 1) break; // end (or a cut tail): done
        const std::uint64_t at = offset;
        offset += sizeof h;
        // Every step moves forward and stays inside the file: a damaged length ends the walk
        // (the trace reader reports the damage with its byte offset).
        if (offset > size || h.stored > size - offset) break;
        if (h.type != static_cast<std::uint32_t>(detail::chunk::metrics)) {
            if (std::fseek(f.get(), static_cast<long>(h.stored), SEEK_CUR) != 0) break;
            offset += h.stored;
            continue;
        }
        if (h.raw > std::max(detail::min_text_raw, h.stored * detail::max_text_ratio))
            throw error(error_kind::input, path + ": damaged metrics chunk at byte " +
                                               std::to_string(at) + " (it claims " +
                                               std::to_string(h.raw) + " bytes from " +
                                               std::to_string(h.stored) + ")");
        std::string packed(h.stored, '\0');
        if (std::fread(packed.data(), 1, packed.size(), f.get()) != packed.size())
            throw error(error_kind::input,
                        path + ": metrics chunk at byte " + std::to_string(at) + " is cut short");
        offset += h.stored;
        if (ZSTD_getFrameContentSize(packed.data(), packed.size()) != h.raw)
            throw error(error_kind::input, path + ": metrics chunk at byte " + std::to_string(at) +
                                               " is corrupt (sizes disagree)");
        std::string raw(h.raw, '\0');
        const std::size_t n = ZSTD_decompress(raw.data(), raw.size(), packed.data(), packed.size());
        if (ZSTD_isError(n) || n != h.raw)
            throw error(error_kind::input,
                        path + ": metrics chunk at byte " + std::to_string(at) + " is corrupt");
        found = std::move(raw); // the last one wins: a re-profiled run appends a newer one
    }
    return found;
}

} // namespace ktune::trace
