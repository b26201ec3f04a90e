#pragma once
// Shape buckets: the policy an op uses to map a problem shape onto a cache key, so one tune
// serves a range of shapes. Per op: exact, power of two, padded to a tile multiple, or custom.
//
//   auto p = ktune::cache::bucket_policy::tile({128, 128});
//   p.apply({1000, 300});  // {1024, 384}

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace ktune::cache {

class bucket_policy {
public:
    using function = std::function<std::vector<std::int64_t>(std::span<const std::int64_t>)>;
    enum class kind { exact, pow2, tile, custom };

    /// Every dimension kept as is (the default).
    static bucket_policy exact();
    /// Each dimension rounded up to the next power of two (0 stays 0).
    static bucket_policy pow2();
    /// Each dimension rounded up to a multiple of its tile; one value applies to every dim.
    static bucket_policy tile(std::vector<std::int64_t> multiples);
    /// A named function of the shape; the name goes into describe() so logs say which policy.
    static bucket_policy custom(std::string name, function f);

    bucket_policy() : bucket_policy(exact()) {}

    /// The bucket of `shape`; throws ktune::error(input) for a negative dimension.
    [[nodiscard]] std::vector<std::int64_t> apply(std::span<const std::int64_t> shape) const;
    [[nodiscard]] std::vector<std::int64_t> apply(std::initializer_list<std::int64_t> s) const {
        return apply(std::span<const std::int64_t>(s.begin(), s.size()));
    }
    [[nodiscard]] kind policy_kind() const noexcept { return kind_; }
    /// "exact", "pow2", "tile:128x128", "custom:<name>".
    [[nodiscard]] std::string describe() const;

private:
    bucket_policy(kind k, std::vector<std::int64_t> tiles, std::string name, function f)
        : kind_(k), tiles_(std::move(tiles)), name_(std::move(name)), fn_(std::move(f)) {}
    kind kind_;
    std::vector<std::int64_t> tiles_;
    std::string name_;
    function fn_;
};

/// "4096x4096" → {4096, 4096}; throws ktune::error(input) naming the text otherwise.
std::vector<std::int64_t> parse_shape(std::string_view text);
/// {4096, 4096} → "4096x4096".
std::string format_shape(std::span<const std::int64_t> shape);

} // namespace ktune::cache
