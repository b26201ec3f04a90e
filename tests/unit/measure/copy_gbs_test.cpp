// The copy-bandwidth figure is kept per device and driver, so a second tune needs no CUDA
// context of its own: a fresh file answers without touching the GPU (none here).
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/tune/tuner.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

TEST_CASE("a fresh per-device copy-bandwidth file answers copy_gbs_for") {
    const auto dir = fs::temp_directory_path() / fmt::format("ktune-copy-{}", getpid());
    fs::remove_all(dir);
    fs::create_directories(dir);
    ::setenv("KTUNE_CUBIN_CACHE", dir.c_str(), 1);
    ktune::device_info dev;
    dev.uuid = "GPU-1234-abcd";
    bool cached = false;
    // No file yet: it would measure, which needs a GPU (none here) or succeeds (GPU machine).
    try {
        const double v = ktune::tune::copy_gbs_for(dev, "580.1", &cached);
        CHECK(v > 0);
        CHECK_FALSE(cached);
    } catch (const ktune::error&) {
        CHECK_FALSE(cached);
    }
    std::ofstream(dir / "copy-gbs-v4-GPU-1234-abcd-driver580.1.txt") << "4177.5\n";
    CHECK(ktune::tune::copy_gbs_for(dev, "580.1", &cached) == 4177.5);
    CHECK(cached);
    // Another driver, another figure: not answered by this one.
    std::ofstream(dir / "copy-gbs-v4-GPU-1234-abcd-driver590.2.txt") << "garbage\n";
    try {
        (void)ktune::tune::copy_gbs_for(dev, "590.2", &cached);
    } catch (const ktune::error&) {
    }
    CHECK_FALSE(cached);
    // A size of its own: another file, the default size's figure does not answer it.
    std::ofstream(dir / "copy-gbs-v4-GPU-1234-abcd-driver580.1-128MiB.txt") << "3100.25\n";
    CHECK(ktune::tune::copy_gbs_for(dev, "580.1", &cached, std::size_t{128} << 20) == 3100.25);
    CHECK(cached);
    CHECK(ktune::tune::copy_gbs_for(dev, "580.1", &cached, std::size_t{512} << 20) == 4177.5);
    ::unsetenv("KTUNE_CUBIN_CACHE");
    fs::remove_all(dir);
}

TEST_CASE("an op is compared with a copy of its own size, a power of two in [1, 512] MiB") {
    using ktune::tune::copy_roof_bytes;
    constexpr std::size_t MiB = std::size_t{1} << 20;
    CHECK(copy_roof_bytes(2.0 * 128 * MiB) == 128 * MiB); // softmax bf16 8192x8192
    CHECK(copy_roof_bytes(2.0 * 129 * MiB) == 256 * MiB);
    CHECK(copy_roof_bytes(100) == MiB);
    CHECK(copy_roof_bytes(1e12) == 512 * MiB);
    CHECK(copy_roof_bytes(0) == 512 * MiB); // no byte model: the device's roof
}
