// Several GPUs on the CPU: `--gpus` parsing, and a plan spread over fake GPUs by the work queue
// (tuner_schedule.hpp), one GPU dying mid-plan.
#include "catch.hpp"
#include "ktune/core/error.hpp"
#include "tune/tuner_eval.hpp"
#include "tune/tuner_schedule.hpp"
#include "tuner_fake.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace kt = ktune::tune;
using ktune::error_kind;

namespace {

ktune::device_info gpu(std::string name, int major) {
    ktune::device_info d;
    d.name = std::move(name);
    d.cc_major = major;
    return d;
}

ktune::device_query machine(std::vector<ktune::device_info> ds) {
    ktune::device_query q;
    q.devices = std::move(ds);
    return q;
}

error_kind kind_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ktune::error& e) {
        return e.kind();
    }
    FAIL("no error thrown");
    return error_kind::internal;
}

} // namespace

TEST_CASE("--gpus: all, lists, and clear usage errors") {
    const auto two = machine({gpu("NVIDIA H100", 9), gpu("NVIDIA H100", 9)});
    CHECK(kt::parse_gpus("all", two) == std::vector<int>{0, 1});
    CHECK(kt::parse_gpus("1,0", two) == std::vector<int>{1, 0});
    CHECK(kt::parse_gpus("1", two) == std::vector<int>{1});
    for (const char* bad : {"2", "0,0", "", "0,", "x", "-1", "0;1", "1 "})
        CHECK(kind_of([&] { (void)kt::parse_gpus(bad, two); }) == error_kind::usage);
    try {
        (void)kt::parse_gpus("0,3", two);
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find("no GPU 3") != std::string::npos);
    }
    // Different kinds are never pooled: "all" on a mixed machine is refused, one kind is fine.
    const auto mixed =
        machine({gpu("NVIDIA H100", 9), gpu("NVIDIA A100", 8), gpu("NVIDIA H100", 9)});
    CHECK(kind_of([&] { (void)kt::parse_gpus("all", mixed); }) == error_kind::usage);
    CHECK(kt::parse_gpus("0,2", mixed) == std::vector<int>{0, 2});
    CHECK(kind_of([&] { (void)kt::parse_gpus("0", machine({})); }) == error_kind::no_device);
}

TEST_CASE("a plan's tunes go over every GPU by one queue, each done once") {
    std::mutex mu;
    std::vector<int> runs(40, 0);
    std::vector<int> per_slot(3, 0);
    // Each slot's first tune waits until every slot has one: on a loaded machine a thread that
    // starts late would otherwise find the queue empty, and "every GPU got work" would fail.
    std::atomic<int> arrived{0};
    const auto out = kt::detail::run_on_slots(40, 3, [&](std::size_t slot, std::size_t i) {
        bool first = false;
        {
            std::lock_guard lock(mu);
            ++runs[i];
            first = per_slot[slot]++ == 0;
        }
        if (first) {
            ++arrived;
            for (int spin = 0; arrived < 3 && spin < 5000; ++spin)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        kt::plan_outcome o;
        o.ok = true;
        return o;
    });
    REQUIRE(out.size() == 40);
    for (std::size_t i = 0; i < 40; ++i) {
        CHECK(runs[i] == 1);
        CHECK(out[i].ok);
        CHECK(out[i].moved == 0);
    }
    for (int n : per_slot)
        CHECK(n > 0);
}

TEST_CASE("a fake GPU dying mid-plan: its tune moves, the plan completes, each tune once") {
    // Each slot is a GPU with its own scripted evaluator running the real tune loop; GPU 1
    // dies at its 6th candidate, in the middle of its first tune. Every GPU's first tune waits
    // until each GPU has taken one, so GPU 1 surely gets one to die in.
    std::vector<std::unique_ptr<kt::test::fake_evaluator>> gpus;
    for (int g = 0; g < 3; ++g) {
        auto ev = std::make_unique<kt::test::fake_evaluator>();
        ev->gpus = {{g, 1.0, g == 1 ? 5 : -1, 0}};
        for (std::int64_t x = 1; x <= 8; ++x) {
            ktune::config c;
            c.set("x", x);
            ev->search_ms[c.to_string()] = x == 5 ? 0.5 : 1.0 + 0.1 * static_cast<double>(x);
        }
        gpus.push_back(std::move(ev));
    }
    const kt::space sp({kt::axis::list("x", std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8})});
    ktune::config dflt;
    dflt.set("x", std::int64_t{8});
    std::mutex mu;
    std::vector<int> finished(12, 0), started(12, 0);
    std::vector<int> finished_on(12, -1);
    std::vector<int> first(3, 1); // not vector<bool>: each slot writes its own element
    std::atomic<int> arrived{0};
    const auto out = kt::detail::run_on_slots(12, 3, [&](std::size_t slot, std::size_t i) {
        {
            std::lock_guard lock(mu);
            ++started[i];
        }
        if (first[slot]) {
            first[slot] = 0;
            ++arrived;
            for (int spin = 0; arrived < 3 && spin < 5000; ++spin)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        kt::tune_request rq;
        rq.strategy = "exhaustive";
        rq.budget = 8;
        kt::plan_outcome o;
        o.ok = kt::detail::run_search(rq, sp, dflt, *gpus[slot], o.report, {});
        std::lock_guard lock(mu);
        ++finished[i];
        finished_on[i] = static_cast<int>(slot);
        return o;
    });
    REQUIRE(out.size() == 12);
    int moved = 0, restarted = 0;
    for (std::size_t i = 0; i < 12; ++i) {
        INFO("tune " << i << ": " << out[i].error);
        CHECK(finished[i] == 1); // done exactly once
        CHECK(out[i].ok);
        CHECK(out[i].gpu == finished_on[i]);
        CHECK(out[i].gpu != 1);
        moved += static_cast<int>(out[i].moved);
        restarted += started[i] - 1;
        ktune::config five;
        five.set("x", std::int64_t{5});
        REQUIRE(out[i].report.winner_index < out[i].report.candidates.size());
        CHECK(out[i].report.candidates[out[i].report.winner_index].cfg == five);
    }
    CHECK(moved == 1); // the tune GPU 1 was in the middle of
    CHECK(restarted == 1);
    CHECK(gpus[1]->gpus[0].measured == 5);
}

TEST_CASE("a tune's own error is its outcome; losing every GPU fails the rest by name") {
    const auto out = kt::detail::run_on_slots(6, 2, [](std::size_t slot, std::size_t i) {
        if (i == 0) throw ktune::error(error_kind::input, "bad shape");
        if (i >= 3) throw ktune::error(error_kind::no_device, "gone " + std::to_string(slot));
        kt::plan_outcome o;
        o.ok = true;
        return o;
    });
    REQUIRE(out.size() == 6);
    CHECK_FALSE(out[0].ok);
    CHECK(out[0].error.find("bad shape") != std::string::npos);
    CHECK(out[0].moved == 0);
    int failed_late = 0;
    for (std::size_t i = 3; i < 6; ++i) {
        CHECK_FALSE(out[i].ok);
        CHECK(out[i].error.find("no GPU left") != std::string::npos);
        failed_late += 1;
    }
    CHECK(failed_late == 3);
}

TEST_CASE("each GPU's worker sees its GPU alone, counted in this process's own device list") {
    kt::tune_request rq;
    rq.worker_command = {"/usr/libexec/ktune-worker"};
    const char* before = std::getenv("CUDA_VISIBLE_DEVICES");
    const std::string saved = before ? before : "";
    ::unsetenv("CUDA_VISIBLE_DEVICES");
    CHECK(kt::detail::worker_command_for(rq, -1) == rq.worker_command);
    CHECK(kt::detail::worker_command_for(rq, 1) ==
          std::vector<std::string>{"/usr/bin/env", "CUDA_VISIBLE_DEVICES=1", "KTUNE_GPU_ORDINAL=1",
                                   "/usr/libexec/ktune-worker"});
    ::setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
    CHECK(kt::detail::worker_command_for(rq, 1)[1] == "CUDA_VISIBLE_DEVICES=3");
    CHECK(kt::detail::worker_command_for(rq, 0)[1] == "CUDA_VISIBLE_DEVICES=2");
    if (before)
        ::setenv("CUDA_VISIBLE_DEVICES", saved.c_str(), 1);
    else
        ::unsetenv("CUDA_VISIBLE_DEVICES");
}
