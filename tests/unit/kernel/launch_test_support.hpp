#pragma once
// Shared by the launcher tests: the test kernel's spec (tests/data/kernel/launcher/scale.json),
// a temporary directory, a tuned cache entry and a golden-file compare.
#include "fake_launch_driver.hpp"

#include "ktune/cache/store.hpp"
#include "ktune/kernel/launcher.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ktune::kernel::testing {

namespace fs = std::filesystem;

inline fs::path launcher_data() {
    return fs::path(KTUNE_TEST_DATA_DIR) / "kernel" / "launcher";
}

inline cache::environment sm90() {
    return {"sm_90", 13000, 580, cache::current_protocol};
}

struct temp_dir {
    fs::path path;
    explicit temp_dir(const std::string& name)
        : path(fs::temp_directory_path() /
               ("ktune_launch_" + name + "_" + std::to_string(::getpid()))) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
};

inline cache::entry tuned(const kernel_spec& s, const char* prob, config c,
                          const cache::environment& env = sm90()) {
    cache::entry e;
    e.key = kernel_cache_key(s, parse_problem(prob), env);
    e.cfg = std::move(c);
    e.time = {10, 9, 11, 100};
    e.origin.gpu_name = "NVIDIA H100 80GB HBM3";
    e.origin.date = "2026-11-25T00:00:00Z";
    return e;
}

/// Options on the fake driver with the cache, cubins and misses under `t`.
inline launcher_options fake_options(const temp_dir& t, std::shared_ptr<fake_launch_driver> d,
                                     const cache::environment& env = sm90()) {
    launcher_options o;
    o.cache_file = t.path / "tuned.json";
    o.cubin_dir = t.path / "cubin";
    o.env = env;
    o.driver = std::move(d);
    return o;
}

inline std::string read_text(const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Every occurrence of `from` in s replaced by `to` (a temporary path by a placeholder).
inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

/// The golden file's text; KTUNE_UPDATE_GOLDEN=1 rewrites it from `actual` first.
inline std::string golden(const std::string& name, const std::string& actual) {
    const fs::path f = launcher_data() / name;
    if (std::getenv("KTUNE_UPDATE_GOLDEN")) std::ofstream(f, std::ios::binary) << actual;
    return read_text(f);
}

} // namespace ktune::kernel::testing
