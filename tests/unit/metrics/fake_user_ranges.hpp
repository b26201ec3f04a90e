#pragma once
// A fake of CUPTI's user replay with user ranges, and a driver that runs launches through a
// range_session as libktune_inject.so does: shared by the launches-mode tests.
#include "catch.hpp"

#include "ktune/metrics/range_session.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

using namespace ktune::metrics;

namespace {

// CUPTI's user replay with user ranges as ktune drives it: `passes` passes; every pass after the
// first must push each of pass 0's range names once, in any order (CUPTI matches them by name);
// decode gives one row per range of pass 0, each value decodes * 1000 + range * 10 + metric, so
// the join is checkable. kernel_ran() marks the open range as holding a launch.
struct fake_user_ranges final : range_backend {
    std::size_t passes = 3;
    std::size_t pass = 0, decodes = 0, starts = 0, metrics = 0, max_ranges = 0, empty = 0;
    std::size_t discarded = 0, waits = 0;
    std::vector<std::string> pass0, current;
    bool running = false, open = false, worked = false, submitted = false;
    /// CUPTI as seen on the GPU: a pass 0 after a kernel given up on does not restart the pass
    /// count, so the next stops call every pass submitted early (docs/perf/metrics.md#llama-layer).
    bool counts_on = false;
    std::size_t begun = 0; ///< the pass the session began last
    std::string chip() override { return "GH100"; }
    void configure(std::span<const std::string> m, std::size_t ranges,
                   replay_mode replay) override {
        REQUIRE(replay == replay_mode::launches);
        max_ranges = ranges;
        metrics = m.size();
    }
    void begin_pass(std::size_t p) override {
        REQUIRE_FALSE(running);
        if (p == 0 && pass != 0) ++discarded; // a sequence given up on
        begun = p;
        if (p == 0 && counts_on) return;
        if (p == 0) pass = 0;
        REQUIRE(p == pass); // CUPTI's pass order is kept
    }
    void start() override {
        REQUIRE_FALSE(running);
        running = true;
        ++starts;
        current.clear();
    }
    void push_range(std::string_view name) override {
        REQUIRE(running);
        REQUIRE_FALSE(open);
        open = true;
        worked = false;
        current.emplace_back(name);
        REQUIRE(current.size() <= max_ranges);
    }
    void kernel_ran() {
        REQUIRE(open);
        worked = true;
    }
    void pop_range(bool wait) override {
        REQUIRE(open);
        open = false;
        waits += wait ? 1 : 0;
        if (!worked) ++empty;
    }
    pass_state stop() override {
        REQUIRE(running);
        REQUIRE_FALSE(open);
        running = false;
        if (pass == 0 || begun == 0) {
            pass0 = current;
        } else {
            // Every name of pass 0 once, in any order (CUPTI matches ranges by name).
            auto a = current, b = pass0;
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            CHECK(a == b);
        }
        ++pass;
        submitted = pass >= passes;
        return {pass, submitted};
    }
    decoded decode() override {
        REQUIRE(submitted);
        decoded d;
        for (std::size_t r = 0; r < pass0.size(); ++r) {
            d.range_names.push_back(pass0[r]);
            std::vector<double> v;
            for (std::size_t m = 0; m < metrics; ++m)
                v.push_back(double(decodes) * 1000 + double(r) * 10 + double(m));
            d.values.push_back(std::move(v));
        }
        ++decodes;
        pass = 0;
        submitted = false;
        return d;
    }
};

metric_set three_pass_set() {
    return {"roofline", "GH100", {"gpu__time_duration.sum", "dram__bytes.sum"}, {}, 3};
}

sampling_options every_kernel(std::uint64_t per_kernel = 1) {
    sampling_options o;
    o.max_kernels = 10;
    o.max_per_kernel = per_kernel;
    return o;
}

// Runs launches through a session, as the injection does, recording "name@index" of profiled
// ones; the flush counts calls of before_start.
struct driver {
    fake_user_ranges* fake;
    range_session s;
    std::uint64_t i = 0;
    int flushes = 0;
    std::vector<std::string> profiled;
    /// `warmup`: unprofiled first launches per kernel (the session's default is 1; most cases
    /// here use 0 to keep their launch indices short).
    driver(std::unique_ptr<fake_user_ranges> b, metric_set set, sampling_options o,
           std::uint32_t warmup = 0)
        : fake(b.get()), s(std::move(set), std::move(o), std::move(b), 64, replay_mode::launches) {
        s.set_warmup_launches(warmup);
    }
    void launch(const std::string& name, const std::string& shape = "1/1/0", bool wait = false) {
        if (s.launch_begin(name, i, 1000 + i, false, shape, [this] { ++flushes; })) {
            fake->kernel_ran();
            profiled.push_back(name + "@" + std::to_string(i));
            s.launch_end(wait);
        }
        ++i;
    }
};

} // namespace
