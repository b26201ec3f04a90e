// The tuning runtime on a real GPU: an in-place op is checked and timed from restored inputs
// (and is caught when the restore is switched off), batched compiles and the pipelined worker
// give the same statuses as before, compile servers the same as threads, and the report's
// overhead timers are filled.
#include "catch.hpp"

#include "ktune/tune/tuner.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <unistd.h>

using namespace ktune;

namespace {
tune::tune_request small(const char* op, ops::dtype t, std::int64_t rows, std::int64_t cols) {
    tune::tune_request rq;
    rq.op = op;
    rq.prob = {{rows, cols}, t};
    rq.budget = 10;
    rq.strategy = "random";
    rq.cache_file = std::filesystem::temp_directory_path() /
                    ("ktune_gpu_runtime_" + std::to_string(getpid()) + ".json");
    rq.read_cache = false;
    rq.write_cache = false;
    rq.policy.min_samples = 8;
    rq.policy.max_samples = 16;
    return rq;
}

/// A fresh cubin cache for one test (the worker and the servers inherit it): compile servers
/// start on a cache miss only, so a test that counts them must not find earlier runs' cubins.
struct fresh_cubin_cache {
    std::filesystem::path dir;
    std::string before;
    bool had = false;
    explicit fresh_cubin_cache(const char* tag)
        : dir(std::filesystem::temp_directory_path() /
              ("ktune_gpu_cubin_" + std::string(tag) + std::to_string(getpid()))) {
        if (const char* e = std::getenv("KTUNE_CUBIN_CACHE")) {
            before = e;
            had = true;
        }
        std::filesystem::remove_all(dir);
        setenv("KTUNE_CUBIN_CACHE", dir.c_str(), 1);
    }
    ~fresh_cubin_cache() {
        if (had)
            setenv("KTUNE_CUBIN_CACHE", before.c_str(), 1);
        else
            unsetenv("KTUNE_CUBIN_CACHE");
        std::filesystem::remove_all(dir);
    }
};

double mark(const tune::tune_report& r, const std::string& what) {
    for (const auto& [w, at] : r.setup_marks)
        if (w == what) return at;
    return -1;
}
} // namespace

TEST_CASE("in-place scale_bias_: every candidate passes the check and the post-timing check") {
    for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
        const auto rq = small("scale_bias_", t, 1000, 4096);
        INFO(ops::to_string(t));
        const auto r = tune::tune_op(rq);
        REQUIRE(r.candidates.size() == 10 + (r.default_joined ? 1 : 0));
        CHECK(r.baseline.status == tune::eval_status::ok);
        for (const auto& c : r.candidates) {
            INFO(c.cfg.to_string() << ": " << c.message);
            CHECK(c.status == tune::eval_status::ok);
            CHECK(c.run.bad_elements == 0);
        }
        CHECK_FALSE(r.winner.cfg.empty());
    }
}

TEST_CASE("without the restore, the in-place op's timed launches compound and are rejected") {
    // x = x * g + b applied ~20 times from U(-2, 2) inputs drifts far outside the tolerance:
    // the check after timing sees it. This is the test that fails if the restore is dropped.
    auto rq = small("scale_bias_", ops::dtype::f32, 512, 2048);
    rq.budget = 4;
    rq.policy.restore_in_place = false;
    const auto r = tune::tune_op(rq);
    REQUIRE(r.candidates.size() == 4 + (r.default_joined ? 1 : 0));
    for (const auto& c : r.candidates) {
        INFO(c.cfg.to_string() << ": " << c.message);
        CHECK(c.status == tune::eval_status::wrong_result);
        CHECK(c.message.find("after timing") != std::string::npos);
    }
    CHECK(r.winner.cfg.empty());
}

TEST_CASE("one program per candidate and compile-ahead off give the same statuses") {
    auto rq = small("softmax", ops::dtype::bf16, 1000, 2048);
    rq.seed = 3;
    const auto batched = tune::tune_op(rq);
    rq.candidates_per_program = 1;
    rq.compile_ahead = false;
    const auto single = tune::tune_op(rq);
    // The default config may join either list (when within the confirmation band): compare the
    // searched candidates only.
    const std::size_t searched = single.candidates.size() - (single.default_joined ? 1 : 0);
    REQUIRE(batched.candidates.size() - (batched.default_joined ? 1 : 0) == searched);
    for (std::size_t i = 0; i < searched; ++i) {
        INFO(single.candidates[i].cfg.to_string());
        CHECK(batched.candidates[i].status == tune::eval_status::ok);
        CHECK(single.candidates[i].status == tune::eval_status::ok);
    }
    CHECK(batched.gpu_busy_s > 0);
    CHECK(batched.compile_wait_s >= 0);
    CHECK(batched.workers_spawned == 1);
}

TEST_CASE("compile servers and in-process threads give the same statuses; set-up is reported") {
    const fresh_cubin_cache cubins("servers");
    auto rq = small("layernorm", ops::dtype::f32, 999, 1024);
    rq.seed = 5;
    rq.policy.min_samples = 16; // two batches: the second is queued before the first is read
    rq.policy.max_samples = 32;
    const auto servers = tune::tune_op(rq);
    rq.compile_processes = false;
    const auto threads = tune::tune_op(rq);
    CHECK(servers.compile_servers > 0);
    CHECK(servers.compile_server_failures == 0);
    CHECK(threads.compile_servers == 0);
    const std::size_t searched = threads.candidates.size() - (threads.default_joined ? 1 : 0);
    REQUIRE(servers.candidates.size() - (servers.default_joined ? 1 : 0) == searched);
    for (std::size_t i = 0; i < searched; ++i) {
        INFO(threads.candidates[i].cfg.to_string());
        CHECK(servers.candidates[i].cfg == threads.candidates[i].cfg);
        CHECK(servers.candidates[i].status == tune::eval_status::ok);
        CHECK(threads.candidates[i].status == tune::eval_status::ok);
        CHECK(servers.candidates[i].run.samples_ms.size() >= 16);
    }
    // The second tune found the copy bandwidth the first one measured (or an earlier one).
    CHECK(threads.copy_gbs_cached);
    CHECK(threads.copy_gbs == Approx(servers.copy_gbs).epsilon(1e-6));
    CHECK(servers.worker_setup_s > 0);
    CHECK(servers.setup_s > 0);
    // The set-up split: the worker's milestones in order, on the tuner's timeline.
    for (const auto* r : {&servers, &threads}) {
        const double spawn = mark(*r, "worker:spawn"), main = mark(*r, "worker:main"),
                     ctx = mark(*r, "worker:context"), helpers = mark(*r, "worker:helpers"),
                     prepared = mark(*r, "worker:prepared"),
                     answer = mark(*r, "worker:first_answer"), base = mark(*r, "baseline");
        INFO(spawn << " " << main << " " << ctx << " " << helpers << " " << prepared << " "
                   << answer << " " << base);
        CHECK(spawn >= 0);
        CHECK(main > spawn);
        CHECK(ctx > main);
        CHECK(helpers >= ctx);
        CHECK(prepared >= helpers); // the prepare line is the first one the worker reads
        CHECK(answer >= prepared);
        CHECK(base >= answer);
        CHECK(base == Approx(r->setup_s).margin(0.01));
    }
}

TEST_CASE("a tune on warm cubins starts no compile server") {
    const fresh_cubin_cache cubins("warm");
    auto rq = small("rowsum", ops::dtype::f32, 777, 2048);
    const auto cold = tune::tune_op(rq);
    const auto warm = tune::tune_op(rq); // same seed: the same configs, all in the cache
    CHECK(cold.compile_servers > 0);
    CHECK(warm.compile_servers == 0);
    REQUIRE(warm.candidates.size() == cold.candidates.size());
    for (const auto& c : warm.candidates) {
        INFO(c.cfg.to_string() << ": " << c.message);
        CHECK(c.status == tune::eval_status::ok);
        CHECK(c.cubin_cache_hit);
    }
}

TEST_CASE("a session's second tune runs on the same worker and compile servers") {
    const fresh_cubin_cache cubins("session");
    auto rq = small("softmax", ops::dtype::f32, 999, 1024);
    tune::tune_session s(rq);
    rq.seed = 7;
    const auto first = s.tune(rq);
    rq.seed = 8;
    const auto second = s.tune(rq);
    CHECK(first.workers_spawned == 1);
    CHECK(second.workers_spawned == 1); // the one it started on, spawned by the first tune
    CHECK(first.compile_servers > 0);
    // Servers start on a slot's first miss; none is started twice (no slot replaced one).
    CHECK(first.compile_servers + second.compile_servers <=
          static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    CHECK(second.compile_server_failures == 0);
    CHECK(first.worker_setup_s > 0);
    CHECK(second.worker_setup_s == 0); // reported once, with the worker's first answer
    for (const auto* r : {&first, &second}) {
        REQUIRE_FALSE(r->candidates.empty());
        for (const auto& c : r->candidates) {
            INFO(c.cfg.to_string() << ": " << c.message);
            CHECK(c.status == tune::eval_status::ok);
        }
    }
    CHECK(second.setup_s < first.setup_s);
}

TEST_CASE("a kept worker serves the next tune without its set-up, then leaves when idle") {
    const auto dir =
        std::filesystem::temp_directory_path() / ("ktune_gpu_keep_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
    const char* had = std::getenv("XDG_RUNTIME_DIR");
    const std::string before = had ? had : "";
    setenv("XDG_RUNTIME_DIR", dir.c_str(), 1);
    auto rq = small("softmax", ops::dtype::f32, 999, 1024);
    rq.keep_worker_s = 2;
    rq.seed = 11;
    const auto first = tune::tune_op(rq);
    rq.seed = 12;
    const auto second = tune::tune_op(rq);
    INFO(first.keep_note << " / " << second.keep_note);
    CHECK(first.worker_kept);
    CHECK(second.worker_kept);
    CHECK(first.worker_setup_s > 0);
    CHECK(second.worker_setup_s == 0);      // its context and helpers were already there
    CHECK(mark(second, "worker:main") < 0); // no worker started for it
    for (const auto* r : {&first, &second})
        for (const auto& c : r->candidates) {
            INFO(c.cfg.to_string() << ": " << c.message);
            CHECK(c.status == tune::eval_status::ok);
        }
    CHECK(second.setup_s < first.setup_s);
    // Idle for longer than its 2 s: it removes its socket and exits.
    std::this_thread::sleep_for(std::chrono::milliseconds(3500));
    bool socket_left = false;
    for (const auto& e : std::filesystem::directory_iterator(dir / "ktune"))
        socket_left = socket_left || e.path().extension() == ".sock";
    CHECK_FALSE(socket_left);
    if (had)
        setenv("XDG_RUNTIME_DIR", before.c_str(), 1);
    else
        unsetenv("XDG_RUNTIME_DIR");
    std::filesystem::remove_all(dir);
}
