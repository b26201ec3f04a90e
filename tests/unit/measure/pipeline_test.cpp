// Pipelined worker protocol (submit ahead, collect in order) with fake shell workers: answers
// come back in order, and a fault ends only the oldest request while the ones queued behind
// it are sent again to a fresh worker.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/worker/worker.hpp"

#include <cstdio>
#include <unistd.h>

using namespace ktune;
using namespace ktune::measure;
using namespace ktune::worker;
using namespace std::chrono_literals;

namespace {
candidate_request request(std::uint64_t seed) {
    candidate_request r;
    r.op = "softmax";
    r.rows = 64;
    r.cols = 64;
    r.seed = seed;
    return r;
}
candidate_result answer(const char* message) {
    candidate_result r;
    r.message = message;
    r.samples_ms = {0.25};
    return r;
}
std::vector<std::string> sh(const std::string& script) {
    return {"/bin/sh", "-c", script};
}
} // namespace

TEST_CASE("requests queued ahead are answered in order by one worker") {
    // The fake worker echoes a result naming the seed of each request it reads.
    const std::string a = encode(answer("SEED"));
    worker_process w(
        sh("while read l; do s=$(echo \"$l\" | sed 's/.*\"seed\":\\([0-9]*\\).*/\\1/'); "
           "echo '" +
           a + "' | sed \"s/SEED/$s/\"; done"));
    for (std::uint64_t s = 1; s <= 4; ++s)
        w.submit(request(s));
    CHECK(w.in_flight() == 4);
    for (std::uint64_t s = 1; s <= 4; ++s) {
        const auto r = w.collect(5s);
        CHECK(r.status == run_status::ok);
        CHECK(r.message == std::to_string(s));
    }
    CHECK(w.in_flight() == 0);
    CHECK(w.spawned() == 1);
    CHECK_THROWS_AS(w.collect(1s), ktune::error);
}

TEST_CASE("a worker dying on one request: the queued ones go to a fresh worker") {
    // Each worker answers its first request, then dies on the second.
    const std::string a = encode(answer("fine"));
    worker_process w(sh("read l; echo '" + a + "'; read l; exit 7"));
    for (std::uint64_t s = 1; s <= 3; ++s)
        w.submit(request(s));
    CHECK(w.collect(5s).status == run_status::ok); // worker 1, first request
    const auto died = w.collect(5s);               // worker 1 exits on the second
    CHECK(died.status == run_status::worker_died);
    CHECK(died.message.find('7') != std::string::npos);
    const auto third = w.collect(5s); // re-sent to worker 2, which answers it
    CHECK(third.status == run_status::ok);
    CHECK(third.message == "fine");
    CHECK(w.spawned() == 2);
}

TEST_CASE("a timeout kills the worker; the request queued behind it still gets an answer") {
    // The first worker hangs on its first request; every later one answers at once.
    const std::string a = encode(answer("late"));
    const std::string flag = "/tmp/ktune_pipeline_" + std::to_string(::getpid());
    std::remove(flag.c_str());
    worker_process w(sh("if [ -e " + flag + " ]; then while read l; do echo '" + a +
                        "'; done; else touch " + flag + "; read l; sleep 30; fi"));
    w.submit(request(1));
    w.submit(request(2));
    CHECK(w.collect(300ms).status == run_status::timeout);
    const auto r = w.collect(5s);
    CHECK(r.status == run_status::ok);
    CHECK(r.message == "late");
    CHECK(w.spawned() == 2);
    std::remove(flag.c_str());
}

TEST_CASE("run() answers what was queued before it, then its own request") {
    const std::string a = encode(answer("x"));
    worker_process w(sh("while read l; do echo '" + a + "'; done"));
    w.submit(request(1));
    CHECK(w.run(request(2), 5s).message == "x");
    CHECK(w.in_flight() == 0);
}

TEST_CASE("an idle worker is stopped by EOF, not killed: it finishes what it holds") {
    // What it holds under `ktune profile` is its trace; here, a file it writes on the way out.
    const std::string a = encode(answer("x"));
    const std::string flag = "/tmp/ktune_worker_eof_" + std::to_string(getpid());
    std::remove(flag.c_str());
    {
        worker_process w(sh("while read l; do echo '" + a + "'; done; touch " + flag));
        CHECK(w.run(request(1), 5s).message == "x");
    }
    CHECK(::access(flag.c_str(), F_OK) == 0);
    std::remove(flag.c_str());
}

TEST_CASE("restart() drops the requests in flight; the next one goes to a fresh worker") {
    const std::string a = encode(answer("x"));
    const std::string flag = "/tmp/ktune_worker_restart_" + std::to_string(getpid());
    std::remove(flag.c_str());
    // The first worker never answers; the second answers everything.
    worker_process w(sh("if [ -e " + flag + " ]; then while read l; do echo '" + a +
                        "'; done; else touch " + flag + "; sleep 30; fi"));
    w.submit(request(1));
    CHECK(w.in_flight() == 1);
    // The first worker is running (has left its mark) before it is replaced.
    for (int i = 0; i < 500 && ::access(flag.c_str(), F_OK) != 0; ++i)
        ::usleep(10000);
    REQUIRE(::access(flag.c_str(), F_OK) == 0);
    w.restart();
    CHECK(w.in_flight() == 0);
    CHECK(w.run(request(2), 5s).message == "x");
    CHECK(w.spawned() == 2);
    std::remove(flag.c_str());
}
