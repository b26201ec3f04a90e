#pragma once
// Private: the seam in front of the Redis C API (hiredis). The shared tier (shared_tier.cpp)
// speaks only this interface; kv_hiredis.cpp is the one file that includes hiredis, and
// kv_unavailable.cpp stands in for it in a build without hiredis.
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ktune::cache::detail {

/// Where the server is: redis://host:port/db or unix:///path.sock[?db=N].
struct kv_endpoint {
    std::string host; ///< empty for a unix socket
    int port = 6379;
    std::string socket; ///< unix socket path, or empty
    int db = 0;
    bool operator==(const kv_endpoint&) const = default;
};
/// Throws error(usage) naming the URL and the accepted forms.
kv_endpoint parse_redis_url(std::string_view url);

/// A transport failure (refused, timed out, closed, protocol error): the shared tier treats it
/// as "Redis is down" and fails open.
struct kv_failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// One connection. Every call either completes within the timeout given at connect or throws
/// kv_failure; after a failure the connection is not used again.
class kv_client {
public:
    virtual ~kv_client() = default;
    /// GET of each key, in one round trip (MGET); nullopt where absent.
    virtual std::vector<std::optional<std::string>> get(const std::vector<std::string>& keys) = 0;
    /// SET key value EX ttl for each pair, pipelined.
    virtual void set(const std::vector<std::pair<std::string, std::string>>& kvs,
                     std::chrono::seconds ttl) = 0;
    /// Every key matching the glob `pattern` (SCAN, so the server is never blocked).
    virtual std::vector<std::string> keys(const std::string& pattern) = 0;
};

/// True when this build has a real client (hiredis found at configure time).
bool kv_supported() noexcept;
/// Connects within `timeout` (also each command's timeout). Throws kv_failure when the server
/// cannot be reached, error(unsupported) in a build without hiredis.
std::unique_ptr<kv_client> kv_connect(const kv_endpoint& where, std::chrono::milliseconds timeout);

} // namespace ktune::cache::detail
