#include "ktune/cache/bucket.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <limits>

namespace ktune::cache {
namespace {

std::int64_t round_up_pow2(std::int64_t x) {
    if (x <= 1) return x; // 0 and 1 are their own buckets
    constexpr auto top = std::int64_t{1} << 62;
    if (x > top)
        throw error(error_kind::input, fmt::format("dimension {} too large for a pow2 bucket", x));
    return static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(x)));
}

std::int64_t round_up_multiple(std::int64_t x, std::int64_t m) {
    if (x > std::numeric_limits<std::int64_t>::max() - m)
        throw error(error_kind::input, fmt::format("dimension {} too large for tile {}", x, m));
    return (x + m - 1) / m * m;
}

} // namespace

bucket_policy bucket_policy::exact() {
    return {kind::exact, {}, {}, {}};
}
bucket_policy bucket_policy::pow2() {
    return {kind::pow2, {}, {}, {}};
}
bucket_policy bucket_policy::tile(std::vector<std::int64_t> multiples) {
    if (multiples.empty())
        throw error(error_kind::usage, "bucket_policy::tile needs at least one tile size");
    for (auto m : multiples)
        if (m < 1)
            throw error(error_kind::usage,
                        fmt::format("bucket_policy::tile: tile size {} must be >= 1", m));
    return {kind::tile, std::move(multiples), {}, {}};
}
bucket_policy bucket_policy::custom(std::string name, function f) {
    if (!f) throw error(error_kind::usage, "bucket_policy::custom needs a function");
    return {kind::custom, {}, std::move(name), std::move(f)};
}

std::vector<std::int64_t> bucket_policy::apply(std::span<const std::int64_t> shape) const {
    for (auto d : shape)
        if (d < 0)
            throw error(error_kind::input,
                        fmt::format("shape {} has a negative dimension", format_shape(shape)));
    switch (kind_) {
    case kind::exact:
        return {shape.begin(), shape.end()};
    case kind::pow2: {
        std::vector<std::int64_t> out;
        out.reserve(shape.size());
        for (auto d : shape)
            out.push_back(round_up_pow2(d));
        return out;
    }
    case kind::tile: {
        if (tiles_.size() != 1 && tiles_.size() != shape.size())
            throw error(error_kind::input,
                        fmt::format("tile policy {} has {} tile sizes, shape {} has {} dimensions",
                                    describe(), tiles_.size(), format_shape(shape), shape.size()));
        std::vector<std::int64_t> out;
        out.reserve(shape.size());
        for (std::size_t i = 0; i < shape.size(); ++i)
            out.push_back(round_up_multiple(shape[i], tiles_[tiles_.size() == 1 ? 0 : i]));
        return out;
    }
    case kind::custom:
        return fn_(shape);
    }
    return {shape.begin(), shape.end()};
}

std::string bucket_policy::describe() const {
    switch (kind_) {
    case kind::exact:
        return "exact";
    case kind::pow2:
        return "pow2";
    case kind::tile:
        return "tile:" + format_shape(tiles_);
    case kind::custom:
        return "custom:" + name_;
    }
    return "?";
}

std::vector<std::int64_t> parse_shape(std::string_view text) {
    std::vector<std::int64_t> out;
    if (text.empty()) throw error(error_kind::input, "empty shape; write e.g. 4096x4096");
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t end = std::min(text.find_first_of("x,", pos), text.size());
        std::int64_t v = 0;
        const char* first = text.data() + pos;
        const char* last = text.data() + end;
        auto [p, ec] = std::from_chars(first, last, v);
        if (ec != std::errc{} || p != last || v < 0)
            throw error(error_kind::input,
                        fmt::format("shape '{}': '{}' is not a non-negative integer; write e.g. "
                                    "4096x4096",
                                    text, std::string_view(first, last)));
        out.push_back(v);
        pos = end + 1;
    }
    return out;
}

std::string format_shape(std::span<const std::int64_t> shape) {
    return fmt::format("{}", fmt::join(shape, "x"));
}

} // namespace ktune::cache
