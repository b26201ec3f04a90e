#pragma once
// Builders shared by the cache tests.
#include "ktune/cache/cache.hpp"

#include <filesystem>
#include <string>
#include <unistd.h>

namespace cache_test {

inline ktune::cache::cache_key key(std::vector<std::int64_t> bucket, std::string op = "gemm") {
    return {std::move(op), "v3", "fp16", std::move(bucket), "sm_90", 13000, 580, 1};
}

inline ktune::cache::entry make(ktune::cache::cache_key k, std::int64_t block, double median,
                                double half_ci = 0.5, std::int64_t samples = 20) {
    ktune::cache::entry e;
    e.key = std::move(k);
    e.cfg = ktune::config{{"block", block}, {"vec", std::int64_t{4}}};
    e.time = {median, median - half_ci, median + half_ci, samples};
    e.origin = {"NVIDIA H200", "GPU-1", 1980, 3201, "2026-11-21T00:00:00Z", "0.1.0", "host"};
    return e;
}

/// A fresh directory under the build's temp area, removed at scope exit.
struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        path =
            std::filesystem::temp_directory_path() /
            ("ktune-cache-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    static int& counter() {
        static int c = 0;
        return c;
    }
};

} // namespace cache_test
