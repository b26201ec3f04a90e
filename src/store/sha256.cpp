// SHA-256 as FIPS 180-4 states it; checked against the standard's test vectors (store_test).
#include "store/sha256.hpp"

#include "ktune/core/error.hpp"

#include <bit>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace ktune::store::detail {
namespace {

constexpr std::array<std::uint32_t, 64> k{
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

} // namespace

sha256::sha256()
    : h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void sha256::block(const std::uint8_t* p) {
    std::array<std::uint32_t, 64> w;
    for (int i = 0; i < 16; ++i)
        w[i] = static_cast<std::uint32_t>(p[4 * i]) << 24 |
               static_cast<std::uint32_t>(p[4 * i + 1]) << 16 |
               static_cast<std::uint32_t>(p[4 * i + 2]) << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; ++i) {
        const auto s0 = std::rotr(w[i - 15], 7) ^ std::rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        const auto s1 = std::rotr(w[i - 2], 17) ^ std::rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    auto [a, b, c, d, e, f, g, h] = h_;
    for (int i = 0; i < 64; ++i) {
        const auto s1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
        const auto ch = (e & f) ^ (~e & g);
        const auto t1 = h + s1 + ch + k[i] + w[i];
        const auto s0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
        const auto maj = (a & b) ^ (a & c) ^ (b & c);
        const auto t2 = s0 + maj;
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h_[0] += a, h_[1] += b, h_[2] += c, h_[3] += d, h_[4] += e, h_[5] += f, h_[6] += g, h_[7] += h;
}

void sha256::update(std::span<const std::uint8_t> data) {
    bytes_ += data.size();
    std::size_t i = 0;
    if (used_ > 0) {
        const std::size_t n = std::min(data.size(), 64 - used_);
        std::memcpy(buf_.data() + used_, data.data(), n);
        used_ += n, i = n;
        if (used_ < 64) return;
        block(buf_.data());
        used_ = 0;
    }
    for (; i + 64 <= data.size(); i += 64)
        block(data.data() + i);
    std::memcpy(buf_.data(), data.data() + i, data.size() - i);
    used_ = data.size() - i;
}

std::string sha256::hex() {
    const std::uint64_t bits = bytes_ * 8;
    std::array<std::uint8_t, 72> pad{};
    pad[0] = 0x80;
    const std::size_t n = (used_ < 56 ? 56 - used_ : 120 - used_);
    for (int i = 0; i < 8; ++i)
        pad[n + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
    const auto saved = bytes_;
    update(std::span(pad.data(), n + 8));
    bytes_ = saved;
    std::string out;
    out.reserve(64);
    static constexpr char digits[] = "0123456789abcdef";
    for (auto v : h_)
        for (int s = 28; s >= 0; s -= 4)
            out.push_back(digits[(v >> s) & 0xf]);
    return out;
}

std::string sha256_file(const std::string& path) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!f) throw error(error_kind::io, "cannot open " + path);
    sha256 h;
    std::vector<std::uint8_t> buf(1 << 20);
    for (;;) {
        const auto n = std::fread(buf.data(), 1, buf.size(), f.get());
        if (n > 0) h.update(std::span(buf.data(), n));
        if (n < buf.size()) break;
    }
    if (std::ferror(f.get())) throw error(error_kind::io, "cannot read " + path);
    return h.hex();
}

} // namespace ktune::store::detail
