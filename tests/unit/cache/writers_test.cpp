// Every cache writer under 16 concurrent processes (merge into a shared file, rm beside store),
// a merge killed mid-write, and the directory left clean: no lock or temporary file stays.
#include "cache_test_util.hpp"
#include "catch.hpp"
#include "ktune/core/atomic_file.hpp"
#include "ktune/core/error.hpp"
#include "processes.hpp"

#include <csignal>
#include <functional>
#include <sys/wait.h>
#include <unistd.h>

using namespace ktune::cache;
using cache_test::key;
using cache_test::make;

namespace {

constexpr int procs = 16;

std::vector<std::string> leftovers(const std::filesystem::path& dir,
                                   const std::filesystem::path& keep) {
    std::vector<std::string> out;
    for (const auto& f : std::filesystem::directory_iterator(dir))
        if (f.path().filename() != keep.filename() &&
            f.path().filename().string().rfind("shard", 0) != 0)
            out.push_back(f.path().filename().string());
    return out;
}

} // namespace

TEST_CASE("16 concurrent merges into the file they also read lose nothing") {
    cache_test::temp_dir dir;
    const auto fleet = dir.path / "fleet.json";
    store(fleet, make(key({0}, "seed"), 1, 1.0));
    for (int p = 0; p < procs; ++p)
        store(dir.path / ("shard" + std::to_string(p) + ".json"), make(key({p}), p, 1.0));
    ktune_test::run_in_processes(procs, [&](int p) {
        const std::vector<std::filesystem::path> in{
            dir.path / ("shard" + std::to_string(p) + ".json"), fleet};
        merge_files(in, fleet);
    });
    const auto all = read_cache(fleet); // throws if the file were torn
    CHECK(all.size() == static_cast<std::size_t>(procs + 1));
    const cache_index idx = cache_index::load(fleet);
    CHECK(idx.find(prepared_key(key({0}, "seed"))) != nullptr);
    for (int p = 0; p < procs; ++p)
        CHECK(idx.find(prepared_key(key({p}))) != nullptr);
    CHECK(leftovers(dir.path, fleet).empty());
}

TEST_CASE("16 processes removing and storing at once: each removal and store holds") {
    cache_test::temp_dir dir;
    const auto file = dir.path / "cache.json";
    std::vector<entry> initial;
    for (int p = 0; p < procs; ++p)
        for (int i = 0; i < 4; ++i)
            initial.push_back(make(key({p, i}, "old" + std::to_string(p)), i, 1.0));
    store(file, initial);
    ktune_test::run_in_processes(procs, [&](int p) {
        if (p % 2 == 0) {
            key_filter f;
            f.op = "old" + std::to_string(p);
            if (remove(file, f) != 4) throw std::runtime_error("removed the wrong count");
        } else {
            for (int i = 0; i < 4; ++i)
                store(file, make(key({p, i}, "new"), i, 1.0));
        }
    });
    const cache_index idx = cache_index::load(file);
    for (int p = 0; p < procs; ++p)
        for (int i = 0; i < 4; ++i) {
            const bool old_present =
                idx.find(prepared_key(key({p, i}, "old" + std::to_string(p)))) != nullptr;
            CHECK(old_present == (p % 2 == 1));
            if (p % 2 == 1) CHECK(idx.find(prepared_key(key({p, i}, "new"))) != nullptr);
        }
    CHECK(idx.size() == static_cast<std::size_t>(procs / 2 * 4 * 2));
    CHECK(leftovers(dir.path, file).empty());
}

TEST_CASE("a merge killed mid-write leaves the old or the new output, never a broken one") {
    cache_test::temp_dir dir;
    const auto out = dir.path / "out.json";
    const auto shard = dir.path / "shard.json";
    std::vector<entry> bulk;
    for (int i = 0; i < 5000; ++i)
        bulk.push_back(make(key({i}, "bulk"), i, 1.0));
    store(shard, bulk);
    store(out, make(key({1}, "old"), 1, 1.0));
    for (int round = 0; round < 6; ++round) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            for (;;)
                merge_files(std::vector<std::filesystem::path>{shard, out}, out);
        }
        ::usleep(static_cast<useconds_t>(5000 + 9000 * round));
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        const auto es = read_cache(out); // throws if torn
        CHECK((es.size() == 1 || es.size() == 5001));
    }
}

TEST_CASE("store, merge and rm leave no lock or temporary file behind") {
    cache_test::temp_dir dir;
    const auto file = dir.path / "cache.json";
    store(file, make(key({1}), 1, 1.0));
    CHECK(leftovers(dir.path, file).empty());
    merge_files(std::vector<std::filesystem::path>{file}, file);
    CHECK(leftovers(dir.path, file).empty());
    key_filter f;
    f.op = "gemm";
    CHECK(remove(file, f) == 1);
    CHECK(leftovers(dir.path, file).empty());
    // A store that fails under the lock (the file does not parse) leaves nothing either.
    ktune::write_file_atomically(file, "{\"schema\": \"ktune.cache\", \"entr");
    CHECK_THROWS_AS(store(file, make(key({2}), 2, 1.0)), ktune::error);
    CHECK(leftovers(dir.path, file).empty());
}

TEST_CASE("writers through two links to one cache share its lock and lose nothing") {
    cache_test::temp_dir dir;
    const auto real = dir.path / "cache.json";
    store(real, make(key({0}, "seed"), 1, 1.0));
    std::filesystem::create_symlink(real, dir.path / "a.json");
    std::filesystem::create_symlink(real, dir.path / "b.json");
    ktune_test::run_in_processes(procs, [&](int p) {
        const auto via = dir.path / (p % 2 ? "a.json" : "b.json");
        for (int i = 0; i < 5; ++i)
            store(via, make(key({p, i}), i, 1.0));
    });
    CHECK(std::filesystem::is_symlink(dir.path / "a.json"));
    CHECK(read_cache(real).size() == static_cast<std::size_t>(procs * 5 + 1));
}
