// The one atomic-write path: the target keeps its old bytes until commit(), a writer that throws
// or is killed leaves the old or the new file whole, and an output that is an input is refused.
#include "catch.hpp"
#include "ktune/core/atomic_file.hpp"
#include "ktune/core/error.hpp"

#include <csignal>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        static int n = 0;
        path = std::filesystem::temp_directory_path() /
               ("ktune-atomic-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    [[nodiscard]] std::size_t files() const {
        std::size_t n = 0;
        for ([[maybe_unused]] const auto& f : std::filesystem::directory_iterator(path))
            ++n;
        return n;
    }
};

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST_CASE("the target keeps its old bytes until commit, then has the new ones") {
    temp_dir d;
    const auto out = d.path / "out.json";
    ktune::write_file_atomically(out, "old");
    {
        ktune::atomic_file f(out);
        f.write("new ");
        f.write("bytes");
        CHECK(slurp(out) == "old");
        f.commit();
    }
    CHECK(slurp(out) == "new bytes");
    CHECK(d.files() == 1); // no temporary left
}

TEST_CASE("a writer that fails before commit leaves the old file byte-identical") {
    temp_dir d;
    const auto out = d.path / "out.json";
    ktune::write_file_atomically(out, "good output\n");
    try {
        ktune::atomic_file f(out);
        f.write("{\"half\":");
        throw std::runtime_error("the export failed half-way");
    } catch (const std::runtime_error&) {
    }
    CHECK(slurp(out) == "good output\n");
    CHECK(d.files() == 1);
}

TEST_CASE("a writer killed mid-write leaves the old or the new file, never a broken one") {
    temp_dir d;
    const auto out = d.path / "out.txt";
    constexpr std::size_t size = 1 << 20;
    ktune::write_file_atomically(out, std::string(size, 'a'));
    for (int round = 0; round < 8; ++round) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            for (int i = 1;; ++i) {
                ktune::atomic_file f(out);
                // Several writes per file, so a kill lands inside one as often as not.
                for (int part = 0; part < 16; ++part)
                    f.write(std::string(size / 16, static_cast<char>('a' + i % 26)));
                f.commit();
            }
        }
        ::usleep(static_cast<useconds_t>(3000 + 4000 * round));
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        const std::string got = slurp(out);
        REQUIRE(got.size() == size);
        CHECK(got.find_first_not_of(got.front()) == std::string::npos);
    }
}

TEST_CASE("an output that is one of the inputs is refused, however it is spelled") {
    temp_dir d;
    const auto in = d.path / "r.ktrace";
    ktune::write_file_atomically(in, "trace bytes");
    using paths = std::vector<std::filesystem::path>;
    CHECK_THROWS_AS(ktune::refuse_same_file(in, paths{in}), ktune::error);
    CHECK_THROWS_AS(ktune::refuse_same_file(d.path / "." / "r.ktrace", paths{in}), ktune::error);
    std::filesystem::create_symlink(in, d.path / "link.ktrace");
    CHECK_THROWS_AS(ktune::refuse_same_file(d.path / "link.ktrace", paths{in}), ktune::error);
    std::filesystem::create_hard_link(in, d.path / "hard.ktrace");
    CHECK_THROWS_AS(ktune::refuse_same_file(d.path / "hard.ktrace", paths{in}), ktune::error);
    try {
        ktune::refuse_same_file(in, paths{in});
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::usage);
        CHECK(std::string(e.what()).find("r.ktrace") != std::string::npos);
    }
    CHECK_NOTHROW(ktune::refuse_same_file(d.path / "other.json", paths{in}));
    ktune::write_file_atomically(d.path / "other.json", "x");
    CHECK_NOTHROW(ktune::refuse_same_file(d.path / "other.json", paths{in}));
    CHECK(slurp(in) == "trace bytes");
}

TEST_CASE("an output in a directory that does not exist is an io error naming it") {
    temp_dir d;
    try {
        ktune::write_file_atomically(d.path / "no" / "such" / "out.json", "x");
        FAIL("no error");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::io);
        CHECK(std::string(e.what()).find("out.json") != std::string::npos);
    }
}

TEST_CASE("a symbolic link is written through: its target changes, the link stays") {
    temp_dir d;
    const auto real = d.path / "real.json";
    const auto link = d.path / "link.json";
    ktune::write_file_atomically(real, "old");
    std::filesystem::create_symlink(real, link);
    ktune::write_file_atomically(link, "new");
    CHECK(std::filesystem::is_symlink(link));
    CHECK(slurp(real) == "new");
    CHECK(d.files() == 2);
}
