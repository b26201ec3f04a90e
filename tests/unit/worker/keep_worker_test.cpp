// A worker kept between tuner processes (worker_process keep_alive), with the real ktune binary
// (ktune-worker, found by default_worker_command) as the daemon. Without a GPU the daemon answers
// its one client with the set-up error and exits; with one it stays for the next client. Either
// way: a client connects to a daemon it started (not a child of its own), a second client meanwhile
// gets a private worker at once, and an unsafe directory means no kept worker.
#include "catch.hpp"

#include "ktune/worker/worker.hpp"
#include "worker/worker_daemon.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

using namespace ktune::measure;
using namespace ktune::worker;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

/// $XDG_RUNTIME_DIR pointed at a fresh directory for one test.
struct runtime_dir {
    fs::path dir;
    std::string before;
    bool had = false;
    explicit runtime_dir(const char* tag)
        : dir(fs::temp_directory_path() / fmt::format("ktune-kw-{}-{}", tag, getpid())) {
        if (const char* e = std::getenv("XDG_RUNTIME_DIR")) {
            before = e;
            had = true;
        }
        fs::remove_all(dir);
        fs::create_directories(dir);
        ::chmod(dir.c_str(), 0700);
        setenv("XDG_RUNTIME_DIR", dir.c_str(), 1);
    }
    ~runtime_dir() {
        if (had)
            setenv("XDG_RUNTIME_DIR", before.c_str(), 1);
        else
            unsetenv("XDG_RUNTIME_DIR");
        fs::remove_all(dir);
    }
};

std::vector<std::string> worker_argv() {
    return default_worker_command(); // the build tree's ktune-worker
}

candidate_request bogus() {
    candidate_request r;
    r.op = "softmax";
    r.rows = 64;
    r.cols = 64;
    r.cubin_path = "/nonexistent/x.cubin";
    r.kernel = "ktune_op_kernel";
    return r;
}

} // namespace

TEST_CASE("a kept worker is started detached, answers over its socket; a busy one is not waited "
          "for") {
    const runtime_dir rd("busy");
    worker_process a(worker_argv(), 5);
    a.start();
    REQUIRE(a.keep_note().empty());
    CHECK(a.kept());
    const fs::path kdir = rd.dir / "ktune";
    struct stat st {};
    REQUIRE(::stat(kdir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    // A second client while the first holds it: a private worker, without waiting.
    const auto t0 = std::chrono::steady_clock::now();
    worker_process b(worker_argv(), 5);
    b.start();
    CHECK(std::chrono::steady_clock::now() - t0 < 2s);
    CHECK_FALSE(b.kept());
    CHECK(b.keep_note().find("serving another") != std::string::npos);
    // The kept worker answers: a load error on a GPU (the daemon lives on), or the set-up error
    // without one (fatal: the daemon ends).
    const auto r = a.run(bogus(), 30s);
    INFO(r.message);
    CHECK(r.status != run_status::ok);
    CHECK(r.status != run_status::timeout);
    CHECK(r.status != run_status::worker_died);
}

TEST_CASE("a runtime directory open to others: no kept worker, a private one instead") {
    const runtime_dir rd("unsafe");
    fs::create_directories(rd.dir / "ktune");
    ::chmod((rd.dir / "ktune").c_str(), 0755);
    worker_process w(worker_argv(), 5);
    w.start();
    CHECK_FALSE(w.kept());
    CHECK(w.keep_note().find("mode 0700") != std::string::npos);
}

TEST_CASE("a live process is alive; no pid is") {
    CHECK(detail::process_alive(getpid()));
    CHECK_FALSE(detail::process_alive(-1));
    CHECK_FALSE(detail::process_alive(0));
}
