// The Redis shared tier (see shared_tier.hpp): fail-open calls with a back-off after a failure,
// strict push/pull, and the read-through / write-through pair over the local file.
#include "ktune/cache/shared_tier.hpp"

#include "cache/cache_json.hpp"
#include "cache/kv_client.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ktune::cache {
namespace {

constexpr std::size_t batch = 1000; // keys per MGET / pipelined SETs

std::string_view schema_major() {
    return schema_version.substr(0, schema_version.find('.'));
}

// A value is one entry in the cache file's line form; read back through the file's reader.
// Anything that is not one valid entry whose key hashes to `redis_key` is not trusted.
std::optional<entry> parse_value(const std::string& value, std::string_view redis_key) {
    try {
        auto es =
            parse_cache(fmt::format("{{\"schema\":\"{}\",\"version\":\"{}\",\"entries\":[{}]}}",
                                    schema_name, schema_version, value),
                        "redis value");
        if (es.size() != 1 || shared_key(es.front().key) != redis_key ||
            !validate(es.front()).empty())
            return std::nullopt;
        return std::move(es.front());
    } catch (const error&) {
        return std::nullopt;
    }
}

std::string value_of(const entry& e) {
    std::string out;
    detail::append_entry_json(out, e);
    return out;
}

} // namespace

namespace detail {

kv_endpoint parse_redis_url(std::string_view url) {
    const auto bad = [&] {
        return error(error_kind::usage, fmt::format("--redis '{}': write redis://host:port/db or "
                                                    "unix:///path/to/redis.sock",
                                                    url));
    };
    const auto number = [&](std::string_view s, int lo, int hi) {
        int v = -1;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) throw bad();
        return v;
    };
    kv_endpoint ep;
    if (url.starts_with("unix://")) {
        std::string_view rest = url.substr(7);
        if (const auto q = rest.find("?db="); q != std::string_view::npos) {
            ep.db = number(rest.substr(q + 4), 0, 1 << 20);
            rest = rest.substr(0, q);
        }
        if (rest.empty() || rest.front() != '/') throw bad();
        ep.socket = std::string(rest);
        return ep;
    }
    if (!url.starts_with("redis://")) throw bad();
    std::string_view rest = url.substr(8);
    if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
        if (slash + 1 < rest.size()) ep.db = number(rest.substr(slash + 1), 0, 1 << 20);
        rest = rest.substr(0, slash);
    }
    if (const auto colon = rest.rfind(':'); colon != std::string_view::npos) {
        ep.port = number(rest.substr(colon + 1), 1, 65535);
        rest = rest.substr(0, colon);
    }
    if (rest.empty()) throw bad();
    ep.host = std::string(rest);
    return ep;
}

} // namespace detail

std::string shared_key(const cache_key& k) {
    return fmt::format("ktune:cache:{}:{:016x}", schema_major(), key_hash(k));
}

struct shared_tier::impl {
    shared_tier_options opt;
    detail::kv_endpoint where;
    std::mutex m; // guards everything below; held for a call, never while the prober connects
    std::unique_ptr<detail::kv_client> client;
    bool down = false;
    bool stopping = false;
    std::chrono::milliseconds backoff{0};
    std::condition_variable wake;
    std::thread prober;
    shared_tier_stats stats;

    ~impl() {
        {
            const std::lock_guard lock(m);
            stopping = true;
        }
        wake.notify_all();
        if (prober.joinable()) prober.join();
    }

    // After a failure the callers stop asking (fail-open at once) and this thread reconnects
    // with back-off; the first connection that answers is handed back to the callers. So a
    // caller pays the timeout once per outage, never for a retry.
    void probe() {
        std::unique_lock lock(m);
        while (!stopping && down) {
            wake.wait_for(lock, backoff, [&] { return stopping; });
            if (stopping || !down) return;
            lock.unlock();
            std::unique_ptr<detail::kv_client> c;
            try {
                c = detail::kv_connect(where, opt.timeout);
                (void)c->get({"ktune:cache:probe"});
            } catch (const detail::kv_failure&) {
                c.reset();
            }
            lock.lock();
            if (c) {
                client = std::move(c);
                down = false;
                return;
            }
            ++stats.retries;
            backoff = std::min(backoff * 2, opt.retry_max);
        }
    }

    // With m held.
    void mark_down() {
        client.reset();
        ++stats.failures;
        if (down) return;
        down = true;
        backoff = opt.retry_first;
        // A prober that ended has already released m for good: joining here cannot deadlock.
        if (prober.joinable()) prober.join();
        prober = std::thread([this] { probe(); });
    }

    // Runs op on a live connection, with m held. Fail-open (strict == false): false when Redis
    // is down, nothing thrown. Strict: tries even during an outage; throws error(io) naming the
    // URL.
    template <class Op>
    bool run(Op&& op, bool strict) {
        if (down && !strict) {
            ++stats.skipped;
            return false;
        }
        try {
            if (!client) client = detail::kv_connect(where, opt.timeout);
            op(*client);
            down = false; // a strict call got through: the prober stops at its next wake-up
            return true;
        } catch (const detail::kv_failure& f) {
            mark_down();
            if (strict)
                throw error(
                    error_kind::io,
                    fmt::format("Redis {}: {}; is the server running there?", opt.url, f.what()));
            return false;
        }
    }

    // Entries worth writing: those for which Redis holds nothing better.
    std::size_t put(std::span<const entry> entries, bool strict) {
        std::size_t written = 0;
        for (std::size_t first = 0; first < entries.size(); first += batch) {
            const auto part = entries.subspan(first, std::min(batch, entries.size() - first));
            std::vector<std::string> keys;
            for (const auto& e : part)
                keys.push_back(shared_key(e.key));
            const bool ok = run(
                [&](detail::kv_client& c) {
                    const auto old = c.get(keys);
                    std::vector<std::pair<std::string, std::string>> kvs;
                    for (std::size_t i = 0; i < part.size(); ++i) {
                        std::optional<entry> prev;
                        if (old[i]) prev = parse_value(*old[i], keys[i]);
                        if (!prev || better(part[i], *prev))
                            kvs.emplace_back(keys[i], value_of(part[i]));
                    }
                    c.set(kvs, opt.ttl);
                    written += kvs.size();
                },
                strict);
            if (!ok) break;
        }
        stats.stored += written;
        return written;
    }
};

shared_tier::shared_tier(shared_tier_options options) : impl_(std::make_unique<impl>()) {
    impl_->where = detail::parse_redis_url(options.url);
    if (!detail::kv_supported()) detail::kv_connect(impl_->where, options.timeout); // throws
    impl_->opt = std::move(options);
}
shared_tier::~shared_tier() = default;
shared_tier::shared_tier(shared_tier&&) noexcept = default;
shared_tier& shared_tier::operator=(shared_tier&&) noexcept = default;

bool shared_tier::supported() noexcept {
    return detail::kv_supported();
}
const std::string& shared_tier::url() const noexcept {
    return impl_->opt.url;
}

shared_tier_stats shared_tier::stats() const {
    const std::lock_guard lock(impl_->m);
    return impl_->stats;
}

std::optional<entry> shared_tier::get(const cache_key& k) {
    const std::lock_guard lock(impl_->m);
    const std::string key = shared_key(k);
    std::optional<std::string> value;
    if (!impl_->run([&](detail::kv_client& c) { value = c.get({key}).front(); }, false))
        return std::nullopt;
    if (!value) {
        ++impl_->stats.misses;
        return std::nullopt;
    }
    auto e = parse_value(*value, key);
    // Equal hashes but another key (a 64-bit collision) is a miss, never a wrong config.
    if (e && !(e->key == k)) e.reset();
    ++(e ? impl_->stats.hits : impl_->stats.rejected);
    return e;
}

bool shared_tier::put(std::span<const entry> entries) {
    const std::lock_guard lock(impl_->m);
    const auto failed = impl_->stats.failures + impl_->stats.skipped;
    impl_->put(entries, false);
    return impl_->stats.failures + impl_->stats.skipped == failed;
}

std::size_t shared_tier::push(std::span<const entry> entries) {
    const std::lock_guard lock(impl_->m);
    return impl_->put(entries, true);
}

std::vector<entry> shared_tier::pull() {
    const std::lock_guard lock(impl_->m);
    std::vector<std::string> keys;
    impl_->run(
        [&](detail::kv_client& c) {
            keys = c.keys(fmt::format("ktune:cache:{}:*", schema_major()));
        },
        true);
    std::vector<entry> out;
    for (std::size_t first = 0; first < keys.size(); first += batch) {
        const std::vector<std::string> part(
            keys.begin() + static_cast<std::ptrdiff_t>(first),
            keys.begin() + static_cast<std::ptrdiff_t>(std::min(keys.size(), first + batch)));
        std::vector<std::optional<std::string>> values;
        impl_->run([&](detail::kv_client& c) { values = c.get(part); }, true);
        for (std::size_t i = 0; i < part.size(); ++i) {
            if (!values[i]) continue; // expired between SCAN and MGET
            std::optional<entry> e = parse_value(*values[i], part[i]);
            if (e)
                out.push_back(std::move(*e));
            else
                ++impl_->stats.rejected;
        }
    }
    return out;
}

through_result lookup_through(const std::filesystem::path& file, const cache_index& local,
                              shared_tier& shared, const prepared_key& k) {
    const lookup_result r = local.lookup(k);
    through_result out;
    if (r.tier == lookup_tier::exact) {
        out.tier = r.tier;
        out.hit = *r.hit;
        return out;
    }
    if (auto e = shared.get(k.key)) {
        store(file, *e);
        out.tier = lookup_tier::exact;
        out.hit = std::move(e);
        out.from_shared = true;
        return out;
    }
    out.tier = r.tier;
    if (r.hit) out.hit = *r.hit;
    return out;
}

store_report store_through(const std::filesystem::path& file, shared_tier& shared,
                           std::span<const entry> entries) {
    const store_report r = store(file, entries);
    shared.put(entries);
    return r;
}

} // namespace ktune::cache
