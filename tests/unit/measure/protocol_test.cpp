// The worker protocol and the stopping rule, without a GPU: JSON round trips, and fake workers
// (shell one-liners) that answer, hang, die or report a fatal fault.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/measure/stopping.hpp"
#include "ktune/worker/worker.hpp"

#include <cmath>

using namespace ktune;
using namespace ktune::measure;
using namespace ktune::worker;
using namespace std::chrono_literals;

namespace {
candidate_request sample_request() {
    candidate_request r;
    r.op = "softmax";
    r.rows = 8192;
    r.cols = 4096;
    r.dtype = "bf16";
    r.cfg = config{{"threads_per_row", std::int64_t{256}}, {"cache_row", true}};
    r.cubin_path = "/tmp/x.cubin";
    r.kernel = "ktune_op_kernel";
    r.seed = 42;
    r.policy.max_samples = 77;
    return r;
}
candidate_result sample_result() {
    candidate_result r;
    r.status = run_status::wrong_result;
    r.message = "3 elements";
    r.samples_ms = {0.5, 0.25};
    r.median_ms = 0.375;
    r.ci_lo_ms = 0.25;
    r.ci_hi_ms = 0.5;
    r.bad_elements = 3;
    r.registers = 40;
    r.clocks_known = true;
    r.clocks.sm_mhz = 1980;
    r.clocks.throttle_reasons = 4;
    r.gpu_busy_ms = 1.5;
    return r;
}
std::vector<std::string> sh(const std::string& script) {
    return {"/bin/sh", "-c", script};
}
} // namespace

TEST_CASE("requests and results round-trip through their JSON lines") {
    const auto rq = sample_request();
    CHECK(decode_request(encode(rq)) == rq);
    const auto rs = sample_result();
    CHECK(decode_result(encode(rs)) == rs);
    CHECK(encode(rq).find('\n') == std::string::npos);
    // A prepare line (buffers ahead, no answer) and the worker's start-up milestones.
    auto prep = rq;
    prep.prepare = true;
    CHECK(decode_request(encode(prep)) == prep);
    CHECK_FALSE(decode_request(encode(rq)).prepare);
    auto marks = rs;
    marks.setup_marks = {{"main", 12.5}, {"context", 140.25}};
    marks.device_uuid = "GPU-0123";
    CHECK(decode_result(encode(marks)) == marks);
    CHECK_THROWS_AS(decode_result("{\"status\": \"ok\"}"), ktune::error);
    CHECK_THROWS_AS(decode_result("not json"), ktune::error);
    CHECK_THROWS_AS(run_status_from_string("exploded"), ktune::error);
    for (auto s : {run_status::ok, run_status::timeout, run_status::resource_limit})
        CHECK(run_status_from_string(to_string(s)) == s);
}

TEST_CASE("a user kernel's job round-trips, and a request without one has none") {
    auto rq = sample_request();
    CHECK(decode_request(encode(rq)).job.empty());
    CHECK(encode(rq).find("\"job\"") == std::string::npos);
    kernel_job& k = rq.job;
    k.problem = "matmul@0123456789abcdef M=64,N=32,K=16";
    k.args = {{true, "fp32", 1024, "uniform", false, 0, "", ""},
              {true, "bf16", 512, "zeros", true, 0, "/cap/1-y.in", "/cap/1-y.out"},
              {false, "int64", 0, "none", false, 1LL << 40, "", ""}};
    k.launch = {{4, 2, 1}, {16, 8, 1}, 4096};
    k.reference_cubin = "/tmp/ref.cubin";
    k.reference_kernel = "_Z6matmulILi32EEvPKfS1_Pfiii";
    k.reference_launch = {{2, 2, 1}, {32, 32, 1}, 0};
    k.rtol = 1e-4;
    k.atol = 1e-3;
    k.input_seed = 7;
    const auto back = decode_request(encode(rq));
    CHECK(back == rq);
    CHECK(back.job.args[2].value == (1LL << 40));
    CHECK_FALSE(back.job.args[2].buffer);
    // A job missing a field is an input error naming it.
    auto line = encode(rq);
    const auto at = line.find("\"reference_kernel\"");
    REQUIRE(at != std::string::npos);
    line.replace(at, 18, "\"reference_kernex\"");
    try {
        (void)decode_request(line);
        FAIL("a job without reference_kernel was accepted");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find("reference_kernel") != std::string::npos);
    }
}

TEST_CASE("stopping rule: converges on tight samples, caps noisy ones") {
    measure_policy p;
    p.min_samples = 16;
    p.max_samples = 64;
    p.target_rel_ci = 0.01;
    p.max_ms = 1e9;
    std::vector<double> tight;
    for (int i = 0; i < 15; ++i)
        tight.push_back(1.0 + 0.001 * (i % 5));
    CHECK_FALSE(should_stop(tight, p, 0).stop); // below min_samples
    tight.push_back(1.002);
    CHECK(should_stop(tight, p, 0) == stop_decision{true, "converged"});
    std::vector<double> noisy;
    for (int i = 0; i < 63; ++i)
        noisy.push_back(1.0 + 0.5 * std::fabs(std::sin(i * 1.7)));
    CHECK_FALSE(should_stop(noisy, p, 0).stop);
    noisy.push_back(1.3);
    CHECK(should_stop(noisy, p, 0) == stop_decision{true, "max_samples"});
    noisy.resize(20);
    CHECK(should_stop(noisy, p, 2e9) == stop_decision{true, "time_cap"});
    noisy.resize(3); // the cap never cuts below min_samples
    CHECK_FALSE(should_stop(noisy, p, 2e9).stop);
}

TEST_CASE("a worker's answer comes back; the same worker serves the next request") {
    const auto line = encode(sample_result());
    worker_process w(sh("while read l; do echo '" + line + "'; done"));
    CHECK(w.run(sample_request(), 5s) == sample_result());
    CHECK(w.run(sample_request(), 5s) == sample_result());
    CHECK(w.spawned() == 1);
}

TEST_CASE("a hanging worker times out, is killed and replaced") {
    worker_process w(sh("read l; sleep 30"));
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = w.run(sample_request(), 200ms);
    CHECK(r.status == run_status::timeout);
    CHECK(std::chrono::steady_clock::now() - t0 < 10s);
    (void)w.run(sample_request(), 100ms);
    CHECK(w.spawned() == 2);
}

TEST_CASE("a dying worker is reported with its exit status, then replaced") {
    worker_process w(sh("read l; exit 5"));
    const auto r = w.run(sample_request(), 5s);
    CHECK(r.status == run_status::worker_died);
    CHECK(r.message.find("5") != std::string::npos);
    (void)w.run(sample_request(), 5s);
    CHECK(w.spawned() == 2);
}

TEST_CASE("a fatal answer (context lost) makes the client start a fresh worker") {
    auto res = sample_result();
    res.status = run_status::launch_error;
    res.fatal = true;
    worker_process w(sh("while read l; do echo '" + encode(res) + "'; done"));
    CHECK(w.run(sample_request(), 5s).status == run_status::launch_error);
    CHECK(w.run(sample_request(), 5s).status == run_status::launch_error);
    CHECK(w.spawned() == 2);
}

TEST_CASE("a missing worker binary is a worker_died status, not a crash") {
    worker_process w({"/nonexistent/ktune-worker"});
    CHECK(w.run(sample_request(), 5s).status == run_status::worker_died);
}
