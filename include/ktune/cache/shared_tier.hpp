#pragma once
// The shared tier of the config cache: a Redis server many machines read and write, in front of
// which every machine keeps its local cache file. A lookup that misses the local file asks Redis
// and keeps what it finds in the file; a tuned winner goes to both. Redis is an accelerator,
// never a dependency: when it is down or slow a call returns within the timeout (a miss, or
// "not stored"); after that failure calls return at once while a background thread reconnects
// with back-off (doubling up to a ceiling), so a caller pays the timeout once per outage.
// Key and value format: docs/formats.md#ktunecache-in-redis--the-shared-cache-tier.
//
//   ktune::cache::shared_tier redis({.url = "redis://cache-host:6379/0"});
//   auto idx = ktune::cache::cache_index::load(file);
//   auto r = ktune::cache::lookup_through(file, idx, redis, ktune::cache::prepared_key(key));
//
// One shared_tier per process: a child forked while Redis is down inherits no reconnect thread
// (create the child's own tier after the fork).
//
// Built only where hiredis was found; elsewhere constructing a shared_tier throws
// error(unsupported) saying so (shared_tier::supported() tells beforehand).

#include "ktune/cache/index.hpp"
#include "ktune/cache/store.hpp"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ktune::cache {

struct shared_tier_options {
    /// redis://host[:port][/db] or unix:///path/to/redis.sock[?db=N]
    std::string url;
    /// Bound on connecting and on each command. 40 ms leaves room for scheduling inside the
    /// 50 ms a lookup may lose to an outage (docs/perf/cache.md, "Redis shared tier").
    std::chrono::milliseconds timeout{40};
    /// Entries expire from Redis after this long unless stored again.
    std::chrono::seconds ttl{std::chrono::hours(24 * 30)};
    /// After a failure, the background reconnect's first wait, doubled per failed try up to
    /// retry_max.
    std::chrono::milliseconds retry_first{500};
    std::chrono::milliseconds retry_max{std::chrono::seconds(30)};
};

struct shared_tier_stats {
    std::size_t hits = 0;     ///< get() answered by Redis
    std::size_t misses = 0;   ///< get() that Redis answered "absent"
    std::size_t stored = 0;   ///< entries written to Redis
    std::size_t failures = 0; ///< calls that found Redis down or slow
    std::size_t skipped = 0;  ///< calls not sent because Redis was down
    std::size_t retries = 0;  ///< background reconnects that failed
    std::size_t rejected = 0; ///< values read from Redis that were not a valid entry for the key
};

/// The Redis key of an entry: "ktune:cache:<schema major>:<key_hash as 16 hex digits>".
std::string shared_key(const cache_key& k);

class shared_tier {
public:
    /// Checks the URL (error(usage)) and the build (error(unsupported)); connects lazily.
    explicit shared_tier(shared_tier_options options);
    ~shared_tier();
    shared_tier(shared_tier&&) noexcept;
    shared_tier& operator=(shared_tier&&) noexcept;
    shared_tier(const shared_tier&) = delete;
    shared_tier& operator=(const shared_tier&) = delete;

    /// Fail-open: the entry stored under k, or nullopt when absent, invalid, or Redis is down.
    [[nodiscard]] std::optional<entry> get(const cache_key& k);
    /// Fail-open: writes each entry unless Redis holds a better() one for its key. False when
    /// Redis was down (nothing is thrown).
    bool put(std::span<const entry> entries);

    /// Strict forms for `ktune cache push|pull`: throw error(io) naming the URL when Redis
    /// cannot be reached. push returns how many entries were written (better ones are kept).
    std::size_t push(std::span<const entry> entries);
    /// Every valid entry under this schema version.
    [[nodiscard]] std::vector<entry> pull();

    [[nodiscard]] shared_tier_stats stats() const;
    [[nodiscard]] const std::string& url() const noexcept;
    /// True when this build has Redis support.
    static bool supported() noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

struct through_result {
    lookup_tier tier = lookup_tier::miss;
    std::optional<entry> hit; ///< the exact or nearest entry
    bool from_shared = false; ///< the exact entry came from Redis (and is now in the file)
};

/// `local` answers an exact hit; otherwise the shared tier is asked, and its entry is stored
/// in `file` and returned; otherwise `local`'s nearest-bucket answer (or a miss).
through_result lookup_through(const std::filesystem::path& file, const cache_index& local,
                              shared_tier& shared, const prepared_key& k);

/// store() into the file, then put() the same entries into the shared tier (fail-open).
store_report store_through(const std::filesystem::path& file, shared_tier& shared,
                           std::span<const entry> entries);

} // namespace ktune::cache
