#include "ktune/analysis/timeline.hpp"

#include <algorithm>

namespace ktune::analysis {

void timeline_builder::consume(lane& l, std::uint64_t start, std::uint64_t end) {
    ++l.kernels;
    if (!l.started) {
        l.started = true;
        l.first = l.cur_start = start;
        l.cur_end = end;
        return;
    }
    if (start > l.cur_end) {
        const std::uint64_t gap = start - l.cur_end;
        l.busy += l.cur_end - l.cur_start;
        ++l.gaps;
        l.gaps_10us += gap > 10000 ? 1 : 0;
        l.idle += gap;
        l.largest = gap > l.largest ? gap : l.largest;
        l.shorter += end - start < gap ? 1 : 0;
        l.cur_start = start;
        l.cur_end = end;
    } else if (end > l.cur_end) {
        l.cur_end = end;
    }
}

void timeline_builder::add(std::uint32_t device, std::uint64_t start, std::uint64_t end) {
    lane& l = lanes_[device];
    l.pending.emplace_back(start, end);
    // Sort in batches of 2 x window and consume the earlier half: exact as long as a record
    // arrives less than `window` records late, and far cheaper per record than a heap.
    if (l.pending.size() >= 2 * window_) {
        std::sort(l.pending.begin(), l.pending.end());
        for (std::size_t i = 0; i < window_; ++i)
            consume(l, l.pending[i].first, l.pending[i].second);
        l.pending.erase(l.pending.begin(),
                        l.pending.begin() + static_cast<std::ptrdiff_t>(window_));
    }
}

void timeline_builder::finish(timeline_facts& f) {
    for (auto& [device, l] : lanes_) {
        std::sort(l.pending.begin(), l.pending.end());
        for (const auto& [s, e] : l.pending)
            consume(l, s, e);
        if (!l.started) continue;
        l.busy += l.cur_end - l.cur_start;
        f.span_ns += l.cur_end - l.first;
        f.busy_ns += l.busy;
        f.gaps += l.gaps;
        f.gaps_over_10us += l.gaps_10us;
        f.idle_ns += l.idle;
        f.largest_gap_ns = l.largest > f.largest_gap_ns ? l.largest : f.largest_gap_ns;
        f.kernels += l.kernels;
        f.shorter_than_gap += l.shorter;
        l = lane{};
    }
    lanes_.clear();
    f.busy_pct =
        f.span_ns ? 100.0 * static_cast<double>(f.busy_ns) / static_cast<double>(f.span_ns) : 0;
    f.launch_bound = f.kernels >= 10 && 2 * f.shorter_than_gap > f.kernels;
}

} // namespace ktune::analysis
