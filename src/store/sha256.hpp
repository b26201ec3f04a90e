#pragma once
// SHA-256 (FIPS 180-4) of a byte stream: the content address of a trace in the object
// directory and its run id, so the same trace ingested twice is the same run.
#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace ktune::store::detail {

class sha256 {
public:
    sha256();
    void update(std::span<const std::uint8_t> data);
    /// Lower-case hex of the digest; the object is spent afterwards.
    std::string hex();

private:
    void block(const std::uint8_t* p);
    std::array<std::uint32_t, 8> h_;
    std::array<std::uint8_t, 64> buf_{};
    std::size_t used_ = 0;
    std::uint64_t bytes_ = 0;
};

/// SHA-256 hex of a file's bytes; throws error{io} naming the file.
std::string sha256_file(const std::string& path);

} // namespace ktune::store::detail
