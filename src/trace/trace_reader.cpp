// .ktrace streaming reader: one pass, one block in memory at a time. Damage after the header
// (a process killed mid-write, a cut copy) ends the pass with a status naming the byte offset;
// everything before it is still delivered.
#include "columns.hpp"
#include "format.hpp"
#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"
#include "utf8.hpp"

#include <nlohmann/json.hpp>
#include <zstd.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ktune::trace {

struct trace_reader::impl {
    std::string path;
    std::FILE* file = nullptr;
    int minor = 0;
    trace_environment env;
    std::vector<trace_string> strings;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;         ///< of the file when opened: no length field may pass it
    std::uint64_t string_bytes = 0; ///< held in `strings`, bounded by a multiple of `size`
    ZSTD_DCtx* dctx = nullptr;
    std::vector<std::uint8_t> stored, raw;
    std::vector<std::uint64_t> scratch;
    std::vector<kernel_record> kernels;
    std::vector<memcpy_record> memcpys;
    std::vector<memset_record> memsets;
    std::vector<sync_record> syncs;
    std::vector<nvtx_record> nvtx;
    trace_string unknown{"<unknown name>", "<unknown name>"};

    impl() = default;
    impl(const impl&) = delete;
    impl& operator=(const impl&) = delete;
    ~impl() { // here, not in ~trace_reader: a constructor that throws must not leak these
        if (file) std::fclose(file);
        ZSTD_freeDCtx(dctx);
    }

    // 0: ok, 1: clean end of file, 2: truncated
    int read_exact(void* p, std::size_t n) {
        const std::size_t got = std::fread(p, 1, n, file);
        offset += got;
        if (got == n) return 0;
        return got == 0 && std::feof(file) ? 1 : 2;
    }
    std::string where() const { return path + " at byte " + std::to_string(offset); }
    std::uint64_t remaining() const { return size > offset ? size - offset : 0; }
};

trace_reader::trace_reader(const std::string& path) : impl_(std::make_unique<impl>()) {
    impl_->path = path;
    impl_->file = std::fopen(path.c_str(), "rb");
    if (!impl_->file)
        throw error(error_kind::io, path + ": cannot open trace: " + std::strerror(errno));
    std::setvbuf(impl_->file, nullptr, _IOFBF, 1 << 20);
    struct stat info {};
    if (::fstat(::fileno(impl_->file), &info) == 0 && info.st_size > 0)
        impl_->size = static_cast<std::uint64_t>(info.st_size);
    impl_->dctx = ZSTD_createDCtx();
    unsigned char prefix[detail::file_prefix_bytes];
    if (impl_->read_exact(prefix, sizeof prefix) != 0 ||
        std::memcmp(prefix, detail::file_magic, 8) != 0)
        throw error(error_kind::input, path + ": not a ktune trace (.ktrace magic missing); record "
                                              "one with `ktune profile -o out.ktrace -- <cmd>`");
    std::uint16_t major = 0, minor = 0;
    std::memcpy(&major, prefix + 8, 2);
    std::memcpy(&minor, prefix + 10, 2);
    if (major != format_major)
        throw error(error_kind::input,
                    path + ": trace format " + std::to_string(major) + "." + std::to_string(minor) +
                        " is not readable by this ktune (reads " + std::to_string(format_major) +
                        ".x); use a ktune release that writes format " + std::to_string(major));
    impl_->minor = minor;
    detail::chunk_header h;
    if (impl_->read_exact(&h, sizeof h) != 0 ||
        h.type != static_cast<std::uint32_t>(detail::chunk::header) ||
        h.stored > detail::max_json_chunk || h.stored > impl_->remaining())
        throw error(error_kind::input, path + ": trace header chunk missing or damaged (at byte " +
                                           std::to_string(detail::file_prefix_bytes) + ")");
    std::string text(h.stored, '\0');
    if (impl_->read_exact(text.data(), text.size()) != 0)
        throw error(error_kind::input, path + ": trace header truncated");
    try {
        impl_->env = environment_from_json(text);
    } catch (const error& e) {
        throw error(error_kind::input, path + ": header chunk at byte " +
                                           std::to_string(detail::file_prefix_bytes) + ": " +
                                           e.what());
    }
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("schema") || !j["schema"].is_string() ||
        j["schema"].get<std::string>() != format_schema)
        throw error(error_kind::input,
                    path + ": header schema is not " + std::string(format_schema));
}

trace_reader::~trace_reader() = default;

namespace {

trace_counters counters_from_json(const std::string& text) {
    const auto j = nlohmann::json::parse(text);
    trace_counters c;
    c.kernels = j.value("kernels", std::uint64_t{0});
    c.memcpys = j.value("memcpys", std::uint64_t{0});
    c.memsets = j.value("memsets", std::uint64_t{0});
    c.syncs = j.value("syncs", std::uint64_t{0});
    c.nvtx_ranges = j.value("nvtx_ranges", std::uint64_t{0});
    c.dropped_by_cupti = j.value("dropped_by_cupti", std::uint64_t{0});
    c.dropped_by_ktune = j.value("dropped_by_ktune", std::uint64_t{0});
    c.zero_timestamps = j.value("zero_timestamps", std::uint64_t{0});
    c.unknown_records = j.value("unknown_records", std::uint64_t{0});
    c.unmatched_nvtx = j.value("unmatched_nvtx", std::uint64_t{0});
    return c;
}

// A block's names precede it in the file (trace_file.hpp), so a record naming a string id the
// trace has not defined is damage; trusting it would size tables by a hostile id.
bool names_known(const std::vector<kernel_record>& ks, std::size_t n) {
    for (const auto& k : ks)
        if (k.name_id >= n || k.nvtx_range > n || k.nvtx_path > n) return false;
    return true;
}
bool names_known(const std::vector<nvtx_record>& rs, std::size_t n) {
    for (const auto& r : rs)
        if (r.name_id >= n || r.domain_id >= n) return false;
    return true;
}

// "" when every record the footer counts was read or is counted as dropped; otherwise what is
// missing. Records the writer dropped (queue full) are in the footer's kind counts but in no
// block, so the kinds may fall short by at most `dropped_by_ktune` records in all. (A chunk of
// an unknown type skipped by length must not hide records: this is where that shows.)
std::string missing_records(const trace_counters& footer, const trace_counters& seen) {
    struct kind {
        const char* name;
        std::uint64_t said, read;
    };
    const kind kinds[] = {{"kernels", footer.kernels, seen.kernels},
                          {"memcpys", footer.memcpys, seen.memcpys},
                          {"memsets", footer.memsets, seen.memsets},
                          {"syncs", footer.syncs, seen.syncs},
                          {"nvtx ranges", footer.nvtx_ranges, seen.nvtx_ranges}};
    std::uint64_t short_by = 0;
    std::string what;
    for (const auto& k : kinds) {
        if (k.read >= k.said) continue; // more than counted: a writer that does not count
        short_by += k.said - k.read;
        if (k.said != k.read)
            what += (what.empty() ? "" : ", ") + std::to_string(k.said) + " " + k.name + " (" +
                    std::to_string(k.read) + " read)";
    }
    if (short_by <= footer.dropped_by_ktune) return "";
    return what + " and only " + std::to_string(footer.dropped_by_ktune) + " dropped";
}

} // namespace

read_status trace_reader::read(trace_visitor& v) {
    auto& m = *impl_;
    read_status st;
    trace_counters seen;
    const auto fail = [&](const std::string& why) {
        // Parser messages quote the damaged bytes, and the damage goes into JSON reports.
        st.damage = detail::valid_utf8(why);
        st.counters = seen;
        return st;
    };
    for (;;) {
        st.bytes_read = m.offset;
        detail::chunk_header h;
        const int rc = m.read_exact(&h, sizeof h);
        if (rc == 1)
            return fail(m.path + ": ends after " + std::to_string(m.offset) +
                        " bytes without a footer: the recording was cut short "
                        "(records up to there were read)");
        if (rc == 2)
            return fail(m.path + ": truncated inside a chunk header at byte " +
                        std::to_string(st.bytes_read));
        const std::uint64_t at = st.bytes_read;
        if (h.stored > m.remaining())
            return fail(m.path + ": truncated: the chunk at byte " + std::to_string(at) +
                        " claims " + std::to_string(h.stored) + " bytes but " +
                        std::to_string(m.remaining()) +
                        " remain in the file (records before it were read)");
        const auto type = static_cast<detail::chunk>(h.type);
        const bool json_chunk = type == detail::chunk::trailer || type == detail::chunk::footer;
        const bool known =
            json_chunk || (h.type >= static_cast<std::uint32_t>(detail::chunk::strings) &&
                           h.type <= static_cast<std::uint32_t>(detail::chunk::nvtx));
        if (!known) {
            if (h.type == static_cast<std::uint32_t>(detail::chunk::header) ||
                h.type > static_cast<std::uint32_t>(detail::chunk::metrics) + 64 || h.type == 0)
                return fail(m.path + ": chunk at byte " + std::to_string(at) + " has type " +
                            std::to_string(h.type) + ", which no .ktrace writer uses (damaged)");
            // A chunk type from a newer minor version: skipped by its length. The footer's
            // counts then say whether records were lost with it.
            if (std::fseek(m.file, static_cast<long>(h.stored), SEEK_CUR) != 0)
                return fail(m.where() + ": cannot skip an unknown chunk: " + std::strerror(errno));
            m.offset += h.stored;
            continue;
        }
        if (json_chunk && h.stored > detail::max_json_chunk)
            return fail(m.path + ": chunk at byte " + std::to_string(at) + " is " +
                        std::to_string(h.stored) + " bytes, too large for a trailer or footer");
        if (!json_chunk) {
            if (const auto why = detail::check_block_sizes(h, m.minor, m.size); !why.empty())
                return fail(m.path + ": chunk at byte " + std::to_string(at) + ": " + why);
        }
        m.stored.resize(h.stored);
        if (m.read_exact(m.stored.data(), h.stored) != 0)
            return fail(m.path + ": truncated: a " + std::to_string(h.stored) +
                        "-byte chunk starting at byte " + std::to_string(at) +
                        " is cut short (records before it were read)");
        if (type == detail::chunk::trailer) {
            try {
                auto end = environment_from_json(std::string(m.stored.begin(), m.stored.end()));
                m.env.gpus = end.gpus;
                m.env.driver_version = end.driver_version;
                m.env.driver_api_version = end.driver_api_version;
                // Decided when recording begins (CUPTI may refuse graph-level records).
                if (!end.graph_trace.empty()) m.env.graph_trace = end.graph_trace;
            } catch (const std::exception& e) {
                return fail(m.path + ": damaged trailer at byte " + std::to_string(at) + ": " +
                            e.what());
            }
            continue;
        }
        if (type == detail::chunk::footer) {
            trace_counters footer;
            try {
                footer = counters_from_json(std::string(m.stored.begin(), m.stored.end()));
            } catch (const std::exception& e) {
                return fail(m.path + ": damaged footer at byte " + std::to_string(at) + ": " +
                            e.what());
            }
            if (const auto why = missing_records(footer, seen); !why.empty())
                return fail(m.path + ": the footer at byte " + std::to_string(at) + " counts " +
                            why + " (chunks were lost or skipped: damaged trace)");
            st.complete = true;
            st.bytes_read = m.offset;
            st.counters = footer;
            return st;
        }
        // The zstd frame header must agree with the chunk header before anything is allocated.
        const unsigned long long framed = ZSTD_getFrameContentSize(m.stored.data(), h.stored);
        if (framed != h.raw)
            return fail(m.path + ": chunk at byte " + std::to_string(at) +
                        " is corrupt (its zstd frame does not hold the " + std::to_string(h.raw) +
                        " bytes the chunk header claims)");
        if (type == detail::chunk::strings &&
            m.string_bytes + h.raw > std::max(detail::min_text_raw, 64 * m.size))
            return fail(m.path + ": chunk at byte " + std::to_string(at) +
                        " holds more name bytes than a trace of this size can (damaged)");
        m.raw.resize(h.raw);
        const std::size_t n =
            ZSTD_decompressDCtx(m.dctx, m.raw.data(), m.raw.size(), m.stored.data(), h.stored);
        if (ZSTD_isError(n) || n != h.raw)
            return fail(m.path + ": chunk at byte " + std::to_string(at) + " is corrupt (" +
                        (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "size") + ")");
        const std::span<const std::uint8_t> in(m.raw.data(), n);
        bool ok = true;
        switch (type) {
        case detail::chunk::strings: {
            std::size_t p = 0;
            const auto take = [&](std::string& out) {
                if (p + 4 > n) return false;
                const std::uint32_t len = detail::get_u32(m.raw.data() + p);
                p += 4;
                if (p + len > n) return false;
                out = detail::valid_utf8(
                    std::string_view(reinterpret_cast<const char*>(m.raw.data() + p), len));
                p += len;
                return true;
            };
            for (std::uint32_t i = 0; i < h.count && ok; ++i) {
                if (p + 4 > n) {
                    ok = false;
                    break;
                }
                const std::uint32_t id = detail::get_u32(m.raw.data() + p);
                p += 4;
                trace_string s;
                ok = take(s.mangled) && take(s.demangled) && id == m.strings.size();
                if (ok) {
                    m.string_bytes += s.mangled.size() + s.demangled.size() + 64;
                    m.strings.push_back(std::move(s));
                }
            }
            break;
        }
        case detail::chunk::kernels:
            ok = detail::decode_columns(in, h.count, m.kernels, m.scratch,
                                        m.minor == 0 ? detail::columns_of<kernel_record>::n_v1_0
                                                     : detail::columns_of<kernel_record>::n);
            ok = ok && names_known(m.kernels, m.strings.size());
            if (ok) v.on_kernels(m.kernels), seen.kernels += h.count;
            break;
        case detail::chunk::memcpys:
            ok = detail::decode_columns(in, h.count, m.memcpys, m.scratch);
            if (ok) v.on_memcpys(m.memcpys), seen.memcpys += h.count;
            break;
        case detail::chunk::memsets:
            ok = detail::decode_columns(in, h.count, m.memsets, m.scratch);
            if (ok) v.on_memsets(m.memsets), seen.memsets += h.count;
            break;
        case detail::chunk::syncs:
            ok = detail::decode_columns(in, h.count, m.syncs, m.scratch);
            if (ok) v.on_syncs(m.syncs), seen.syncs += h.count;
            break;
        case detail::chunk::nvtx:
            ok = detail::decode_columns(in, h.count, m.nvtx, m.scratch);
            ok = ok && names_known(m.nvtx, m.strings.size());
            if (ok) v.on_nvtx(m.nvtx), seen.nvtx_ranges += h.count;
            break;
        default:
            break;
        }
        if (!ok)
            return fail(m.path + ": chunk at byte " + std::to_string(at) +
                        " does not decode (damaged block)");
    }
}

read_status scan_trace(const std::string& path) {
    trace_reader reader(path);
    trace_visitor nothing;
    return reader.read(nothing);
}

const trace_environment& trace_reader::environment() const noexcept {
    return impl_->env;
}
const std::vector<trace_string>& trace_reader::strings() const noexcept {
    return impl_->strings;
}
const trace_string& trace_reader::string(std::uint32_t id) const noexcept {
    return id < impl_->strings.size() ? impl_->strings[id] : impl_->unknown;
}
const std::string& trace_reader::path() const noexcept {
    return impl_->path;
}
int trace_reader::minor_version() const noexcept {
    return impl_->minor;
}

} // namespace ktune::trace
