#include "ktune/cache/entry.hpp"
#include "cache/cache_json.hpp"
#include "ktune/core/clocks.hpp"
#include "ktune/core/version.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <tuple>
#include <unistd.h>

namespace ktune::cache {
namespace {

// Every string goes into a JSON file that both readers validate as UTF-8, so a bad byte must be
// refused before the store, not discovered by the next reader.
bool valid_utf8(std::string_view s) noexcept {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        for (std::size_t k = 1; k <= n; ++k) {
            if (i + k >= s.size()) return false;
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (cc & 0x3F);
        }
        constexpr std::uint32_t min_cp[] = {0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += n + 1;
    }
    return true;
}

} // namespace

bool better(const entry& a, const entry& b) noexcept {
    const auto& ta = a.time;
    const auto& tb = b.time;
    if (ta.ci_high_us != tb.ci_high_us) return ta.ci_high_us < tb.ci_high_us;
    if (ta.samples != tb.samples) return ta.samples > tb.samples;
    if (ta.median_us != tb.median_us) return ta.median_us < tb.median_us;
    if (ta.ci_low_us != tb.ci_low_us) return ta.ci_low_us < tb.ci_low_us;
    // Identical measurements: the rest only has to be some fixed total order.
    const auto ca = a.cfg.to_string();
    const auto cb = b.cfg.to_string();
    if (ca != cb) return ca < cb;
    const auto& pa = a.origin;
    const auto& pb = b.origin;
    return std::tie(pa.gpu_uuid, pa.date, pa.host, pa.gpu_name, pa.ktune_version, pa.sm_mhz,
                    pa.memory_mhz) < std::tie(pb.gpu_uuid, pb.date, pb.host, pb.gpu_name,
                                              pb.ktune_version, pb.sm_mhz, pb.memory_mhz);
}

std::string validate(const entry& e) {
    const auto& t = e.time;
    if (e.key.op.empty()) return "empty op name";
    if (e.key.arch.empty()) return "empty arch";
    if (e.cfg.empty()) return "empty config";
    for (std::string_view s :
         {std::string_view(e.key.op), std::string_view(e.key.op_version),
          std::string_view(e.key.dtype), std::string_view(e.key.arch),
          std::string_view(e.origin.gpu_name), std::string_view(e.origin.gpu_uuid),
          std::string_view(e.origin.date), std::string_view(e.origin.ktune_version),
          std::string_view(e.origin.host)})
        if (!valid_utf8(s)) return "a key or provenance string is not valid UTF-8";
    for (const auto& [n, v] : e.cfg.values()) {
        if (!valid_utf8(n)) return "a parameter name is not valid UTF-8";
        if (const auto* str = std::get_if<std::string>(&v); str && !valid_utf8(*str))
            return fmt::format("parameter '{}' is not valid UTF-8", n);
        if (const auto* d = std::get_if<double>(&v); d && !std::isfinite(*d))
            return fmt::format("parameter '{}' is not a finite number", n);
    }
    if (!std::isfinite(t.median_us) || !std::isfinite(t.ci_low_us) || !std::isfinite(t.ci_high_us))
        return "non-finite time";
    if (t.median_us < 0) return fmt::format("negative median {} us", t.median_us);
    if (!(t.ci_low_us <= t.median_us && t.median_us <= t.ci_high_us))
        return fmt::format("median {} us outside its confidence interval [{}, {}] us", t.median_us,
                           t.ci_low_us, t.ci_high_us);
    if (t.samples < 1) return fmt::format("sample count {} < 1", t.samples);
    return {};
}

provenance provenance::current(const device_info& dev) {
    provenance p;
    p.gpu_name = dev.name;
    p.gpu_uuid = dev.uuid;
    if (auto c = read_clocks(dev)) {
        p.sm_mhz = c->sm_mhz;
        p.memory_mhz = c->memory_mhz;
    }
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    p.date = buf;
    p.ktune_version = std::string(version());
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) p.host = host;
    return p;
}

std::string to_json_text(const entry& e) {
    return detail::entry_to_json(e).dump();
}

} // namespace ktune::cache
