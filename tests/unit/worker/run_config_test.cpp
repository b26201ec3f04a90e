// run_config end to end on the CPU machine: the op's source compiles with NVRTC into a fresh
// cubin cache, a real ktune-worker (found by the library, no CLI) answers. Without a GPU the
// worker's set-up fails and says so as a fatal launch_error; with one the config runs.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/worker/run_config.hpp"

#include <filesystem>
#include <unistd.h>

using namespace ktune;
namespace fs = std::filesystem;

TEST_CASE("run_config compiles the config and answers from a ktune-worker") {
    const auto dir = fs::temp_directory_path() / ("ktune-run-config-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const ops::op& op = ops::find_op("softmax");
    const ops::problem p{{128, 4096}, ops::dtype::f32};
    worker::run_options o;
    o.arch = "sm_90";
    o.cubin_dir = dir;
    o.policy.max_samples = 20;
    const auto r = worker::run_config(op, op.default_config(p), p, o);
    if (r.status == measure::run_status::ok) {
        CHECK(r.bad_elements == 0);
        CHECK(r.median_ms > 0);
    } else {
        CHECK(r.status == measure::run_status::launch_error);
        CHECK(r.fatal);
        CHECK_FALSE(r.message.empty());
    }
    // The cubin went through the cache: a second compile of this config would be a file read.
    bool cubin = false;
    for (const auto& e : fs::directory_iterator(dir))
        cubin = cubin || e.path().extension() == ".cubin";
    CHECK(cubin);
    fs::remove_all(dir);
}

TEST_CASE("run_config refuses a config the op rejects, naming why") {
    const ops::op& op = ops::find_op("softmax");
    const ops::problem p{{128, 4096}, ops::dtype::f32};
    config bad = op.default_config(p);
    bad.set("threads_per_row", 3);
    worker::run_options o;
    o.arch = "sm_90";
    try {
        worker::run_config(op, bad, p, o);
        FAIL("no error");
    } catch (const error& e) {
        CHECK(e.kind() == error_kind::usage);
        CHECK(std::string(e.what()).find("softmax") != std::string::npos);
    }
}

TEST_CASE("run_config with a worker that cannot start: worker_died, not an exception") {
    const ops::op& op = ops::find_op("softmax");
    const ops::problem p{{128, 4096}, ops::dtype::f32};
    worker::run_options o;
    o.arch = "sm_90";
    o.worker_command = {"/nonexistent/ktune-worker"};
    const auto r = worker::run_config(op, op.default_config(p), p, o);
    CHECK(r.status == measure::run_status::worker_died);
}
