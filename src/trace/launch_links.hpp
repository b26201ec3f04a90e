#pragma once
// How a kernel learns the NVTX range open when it was launched. Four ways, picked per session
// (session_options::link; KTUNE_NVTX_LINK / ktune profile --nvtx-link override it). Measured
// side by side on an H200 (docs/perf/profile.md#nvtx-attribution and #window-mode): every way that
// touches each launch through CUPTI costs 0.4-0.7 us per launch, CUPTI's own work, not ktune's.
//
// - window (default): nothing per launch. Correlation ids grow in launch order, so each push
//   and pop calls a cheap driver API (cuDriverGetVersion) whose entry callback gives the
//   boundary's correlation id; a kernel takes the range set by the last boundary before its
//   launch. Run 5: no cost over the loop without ranges at one range per 100 launches, same
//   attribution as callback on gpu_trace and on a PyTorch transformer. It says which range the
//   process is in, not the launching thread's: once ranges are open on two threads at once the
//   session falls back to callbacks (exact per thread from then on, reported at exit); a
//   thread launching with no range open while another thread has one takes that range (no
//   per-launch work means no launching thread to tell them apart).
// - callback: CUPTI launch callbacks append (correlation, range) to a per-thread ring (no lock,
//   no allocation); the nested driver call of a runtime launch is skipped. The launching
//   thread's range, always; +0.6 us per launch inside ranges.
// - external_correlation: the NVTX push/pop handlers push/pop the range as a CUPTI external
//   correlation id; CUPTI writes an EXTERNAL_CORRELATION record (correlation id -> range) before
//   the API record of each launch; joined on CUPTI's buffer thread. Needs no subscriber (the
//   session's choice when the metrics hook holds it); costlier than callback on the GPU.
// - locked_map: the first implementation (callback -> mutex -> std::map), kept to measure
//   against.
#include "ktune/trace/session.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace ktune::trace::detail {

using link_mode = ktune::trace::nvtx_link;

struct launch_link {
    std::uint32_t correlation = 0;
    std::uint32_t range = 0;  ///< 1 + string id
    std::uint32_t path = 0;   ///< 1 + string id
    std::uint32_t thread = 0; ///< the ring's thread, numbered from 1 (window mode's check)
    bool boundary = false;    ///< window mode: a range boundary (else a launch's own link)
};

/// The external correlation id of a range: both string ids, so that no lookup is needed to
/// turn an EXTERNAL_CORRELATION record back into (range, path).
inline std::uint64_t pack_range(std::uint32_t range, std::uint32_t path) noexcept {
    return (std::uint64_t{path} << 32) | range;
}
inline launch_link unpack_range(std::uint32_t correlation, std::uint64_t id) noexcept {
    return {correlation, static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(id >> 32), 0};
}

/// One launching thread's links: a single-producer ring. The producer (the launching thread)
/// never locks; consumers (the buffer thread, or the producer itself when the ring is full)
/// take `consumer` so that only one drains at a time.
class link_ring {
public:
    static constexpr std::size_t capacity = 1u << 13;

    /// False when full (the caller drains, then pushes again).
    bool push(const launch_link& l) noexcept {
        const auto h = head_.load(std::memory_order_relaxed);
        if (h - tail_.load(std::memory_order_acquire) == capacity) return false;
        slots_[h % capacity] = l;
        head_.store(h + 1, std::memory_order_release);
        return true;
    }
    template <class F>
    void drain(F&& f) {
        std::lock_guard lock(consumer_);
        const auto h = head_.load(std::memory_order_acquire);
        auto t = tail_.load(std::memory_order_relaxed);
        for (; t != h; ++t)
            f(slots_[t % capacity]);
        tail_.store(t, std::memory_order_release);
    }

private:
    std::array<launch_link, capacity> slots_{};
    std::atomic<std::size_t> head_{0}, tail_{0};
    std::mutex consumer_;
};

/// Every thread's ring; a ring outlives its thread until the collector has drained it.
class link_rings {
public:
    std::shared_ptr<link_ring> add() {
        auto r = std::make_shared<link_ring>();
        std::lock_guard lock(mutex_);
        rings_.push_back(r);
        return r;
    }
    template <class F>
    void drain(F&& f) {
        std::vector<std::shared_ptr<link_ring>> rings;
        {
            std::lock_guard lock(mutex_);
            rings = rings_;
            // Rings held only here belong to exited threads: drained below, then released.
            std::erase_if(rings_, [](const auto& r) { return r.use_count() <= 2; });
        }
        for (const auto& r : rings)
            r->drain(f);
    }

private:
    std::mutex mutex_;
    std::vector<std::shared_ptr<link_ring>> rings_;
};

} // namespace ktune::trace::detail
