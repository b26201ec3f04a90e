// guard::run_suite with op entries from an application, no CLI: op_runtime_hooks wires the
// tuner's runtime in. Without a GPU the hooks stay unset and say why, and skip_unavailable
// records the entry as unavailable with that reason; with one, the entry is timed.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/guard/op_runtime.hpp"

using namespace ktune;

TEST_CASE("an application runs a suite's op entry through op_runtime_hooks") {
    guard::suite s;
    s.name = "app";
    guard::op_entry e;
    e.op = "softmax";
    e.dtype = "fp32";
    e.shapes = {{128, 4096}};
    e.repeat = 5;
    s.ops.push_back(e);
    guard::bench_options o;
    o.hooks = guard::op_runtime_hooks(s, {}, o.unavailable_reason);
    o.skip_unavailable = true;
    const guard::results r = guard::run_suite(s, o);
    REQUIRE(r.entries.size() == 1);
    if (o.hooks.time_op) {
        CHECK(r.entries[0].status == "ok");
    } else {
        CHECK(o.unavailable_reason.find("GPU") != std::string::npos);
        CHECK(r.entries[0].status == "unavailable");
        CHECK(r.entries[0].detail.find("GPU") != std::string::npos);
    }
}

TEST_CASE("without hooks an op entry is refused, naming the reason") {
    guard::suite s;
    guard::op_entry e;
    e.op = "softmax";
    e.dtype = "fp32";
    e.shapes = {{128, 4096}};
    s.ops.push_back(e);
    guard::bench_options o;
    o.unavailable_reason = "no GPU on this runner";
    CHECK_THROWS_AS(guard::run_suite(s, o), error);
}
