#pragma once
// Timeline facts of kernel execution: how busy the GPU was, where it idled, and whether the
// program looks launch-bound (many kernels shorter than the idle gap before them: the CPU,
// not the GPU, sets the pace). Streaming: records may arrive out of order within a bounded
// window (CUPTI delivers per-thread buffers), which batch sorting absorbs.
//
//   ktune::analysis::timeline_builder t;  t.add(device, start, end);  auto f = t.finish();

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ktune::analysis {

struct timeline_facts {
    std::uint64_t span_ns = 0; ///< first kernel start to last kernel end, summed over GPUs
    std::uint64_t busy_ns = 0; ///< time with at least one kernel running
    double busy_pct = 0;
    std::uint64_t gaps = 0; ///< idle gaps between kernels
    std::uint64_t gaps_over_10us = 0;
    std::uint64_t idle_ns = 0;
    std::uint64_t largest_gap_ns = 0;
    std::uint64_t kernels = 0;
    std::uint64_t shorter_than_gap = 0; ///< kernels shorter than the idle gap before them
    bool launch_bound = false;          ///< shorter_than_gap > half of the kernels
    bool operator==(const timeline_facts&) const = default;
};

class timeline_builder {
public:
    /// `window` records of reordering are absorbed exactly; beyond, order is assumed.
    explicit timeline_builder(std::size_t window = 1u << 16) : window_(window) {}
    void add(std::uint32_t device, std::uint64_t start_ns, std::uint64_t end_ns);
    /// Facts so far, accumulated into `into` (several traces add up).
    void finish(timeline_facts& into);

private:
    struct lane {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> pending; ///< (start, end)
        bool started = false;
        std::uint64_t first = 0, cur_start = 0, cur_end = 0;
        std::uint64_t busy = 0, gaps = 0, gaps_10us = 0, idle = 0, largest = 0, kernels = 0,
                      shorter = 0;
    };
    static void consume(lane& l, std::uint64_t start, std::uint64_t end);
    std::size_t window_;
    std::map<std::uint32_t, lane> lanes_;
};

} // namespace ktune::analysis
