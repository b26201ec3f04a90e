// Reading, writing and merging cache documents (no file locking here: see file_store.cpp).
#include "cache/cache_json.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ktune::cache {

std::vector<entry> parse_cache(std::string_view text, std::string_view name) {
    // One padded copy lets the fast reader parse line by line in place.
    std::string buf;
    buf.reserve(text.size() + detail::padding_bytes);
    buf.append(text);
    buf.append(detail::padding_bytes, ' ');
    const std::string_view doc(buf.data(), text.size());
    if (auto fast = detail::parse_cache_simdjson(doc, name, true)) return std::move(*fast);
    return detail::parse_cache_nlohmann(doc, name);
}

namespace detail {
// Whole file in one read; the size comes from fstat so the buffer is allocated once.
std::string read_all(const std::filesystem::path& file, bool& exists) {
    exists = false;
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return {};
        throw error(error_kind::io,
                    fmt::format("cannot open cache {}: {}", file.string(), std::strerror(errno)));
    }
    exists = true;
    struct stat st {};
    std::string text;
    if (::fstat(fd, &st) == 0 && st.st_size > 0)
        text.reserve(static_cast<std::size_t>(st.st_size) + padding_bytes);
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw error(error_kind::io,
                        fmt::format("cannot read cache {}: {}", file.string(), std::strerror(err)));
        }
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}
} // namespace detail

std::vector<entry> read_cache(const std::filesystem::path& file) {
    bool exists = false;
    std::string text = detail::read_all(file, exists);
    if (!exists) return {};
    // Parsed in place: the padding simdjson reads past the end is appended, not copied around.
    const std::size_t n = text.size();
    text.append(detail::padding_bytes, ' ');
    const std::string_view doc(text.data(), n);
    if (auto fast = detail::parse_cache_simdjson(doc, file.string(), true)) return std::move(*fast);
    return detail::parse_cache_nlohmann(doc, file.string());
}

std::vector<entry> merge(std::span<const entry> a, std::span<const entry> b) {
    std::vector<const entry*> all;
    all.reserve(a.size() + b.size());
    for (const auto& e : a)
        all.push_back(&e);
    for (const auto& e : b)
        all.push_back(&e);
    // Within a key the better() entry sorts first, so the first of each run is the winner.
    std::sort(all.begin(), all.end(), [](const entry* x, const entry* y) {
        if (key_less(x->key, y->key)) return true;
        if (key_less(y->key, x->key)) return false;
        return better(*x, *y);
    });
    std::vector<entry> out;
    for (const entry* e : all)
        if (out.empty() || !(out.back().key == e->key)) out.push_back(*e);
    return out;
}

} // namespace ktune::cache
