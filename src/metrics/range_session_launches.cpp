// --replay launches: many kernels per pass, on the program's own launches (range_session.hpp
// says the rules). Why many per pass: CUPTI's range profiler costs ~18 ms per start and ~7 ms per
// stop on an H200 whatever the pass holds, a user range around one launch ~1 ms
// (bench_range_probe, docs/perf/metrics.md session 4), so 10 kernels x 3 passes cost 3 passes,
// not 30. Ranges are named by their position in pass 0, and every later pass pushes the same
// positions in the same order (an empty range for a kernel that did not come back), so ranges
// match pass 0's by order and by name alike.
#include "ktune/core/error.hpp"
#include "ktune/metrics/range_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace ktune::metrics {

bool range_session::begin_launches(std::string_view name, std::uint64_t launch_index,
                                   std::uint64_t correlation_id, bool cooperative,
                                   std::string_view shape,
                                   const std::function<void()>& before_start) {
    std::string key = fmt::format("{}\x1f{}", name, shape);
    // A kernel's first launches are warm-ups (lazy module loading would land in its range).
    bool warm = warmup_ == 0;
    if (!warm) {
        auto it = launched_.find(name);
        if (it == launched_.end()) {
            it = launched_.emplace(std::string(name), 0).first;
            first_seen_.emplace_back(name);
        }
        warm = it->second >= warmup_;
        if (it->second <= warmup_) ++it->second;
    }
    if (!seq_) {
        if (!warm) return false;
        // A new batch opens on a sampled launch; one metric set serves the whole batch (the
        // first kernel's).
        if (policy_.decide(name, cooperative) != sample_decision::profile) return false;
        const tensor_precision p = guess_tensor_precision(name);
        auto it = resolved_.find(p);
        if (it == resolved_.end()) it = resolved_.emplace(p, resolve_(p)).first;
        use(it->second);
        seq_.emplace();
        open_pass();
        return join_pass0(std::move(key), name, launch_index, correlation_id, cooperative,
                          before_start);
    }
    auto& b = *seq_;
    const auto at = std::find_if(b.kernels.begin(), b.kernels.end(),
                                 [&](const batch_kernel& k) { return k.key == key; });
    const std::size_t position = static_cast<std::size_t>(at - b.kernels.begin());
    ++b.waited;
    if (b.pass == 0) {
        if (at == b.kernels.end()) {
            if (b.waited > patience_) end_pass();
            if (!warm) return false;
            return join_pass0(std::move(key), name, launch_index, correlation_id, cooperative,
                              before_start);
        }
        // A kernel of the sequence again. The first one back means the loop (or the repeat of
        // one kernel) came round: pass 0 is complete, and this launch opens pass 1. Others
        // close it only after more than other_repeats returns with no new kernel (the first
        // one may never come back, like PyTorch's weight initialisation before the loop).
        if (position != 0 && ++b.seen[key] <= other_repeats_) return false;
        end_pass();
        if (!seq_ || seq_->pass == 0) return false;
    }
    if (at == b.kernels.end()) {
        // Another kernel coming back more than other_repeats times means a loop iteration went
        // by without the one expected next (or the patience ran out): give that one up.
        if (b.waited > patience_ || ++b.seen[key] > other_repeats_) give_up_expected();
        return false;
    }
    return follow(position, before_start);
}

// Pass 0: a kernel not yet in the batch joins it, if the sampling policy takes it.
bool range_session::join_pass0(std::string key, std::string_view name, std::uint64_t launch_index,
                               std::uint64_t correlation_id, bool cooperative,
                               const std::function<void()>& before_start) {
    if (!seq_ || seq_->pass != 0) return false;
    auto& b = *seq_;
    // The first kernel was decided by the caller, which opened the batch for it.
    if (!b.kernels.empty() && (b.kernels.size() >= batch_ ||
                               policy_.decide(name, cooperative) != sample_decision::profile))
        return false;
    b.kernels.push_back({std::move(key), std::string(name), launch_index, correlation_id, false});
    push(before_start, b.kernels.size() - 1);
    return true;
}

// A later pass: the launch of the kernel at `position` of pass 0's order.
bool range_session::follow(std::size_t position, const std::function<void()>& before_start) {
    for (int attempt = 0; attempt < 2 && seq_ && seq_->pass > 0; ++attempt) {
        auto& b = *seq_;
        std::size_t expected = b.next;
        while (expected < b.kernels.size() && b.kernels[expected].incomplete)
            ++expected;
        if (position == expected) {
            if (!b.running) open_pass();
            fill_until(position); // empty ranges for kernels given up before it
            push(before_start, position);
            return true;
        }
        // Not the one expected next: it runs unprofiled, unless the expected one has missed a
        // loop iteration (this kernel came back more than other_repeats times meanwhile). Then
        // only the expected one is given up, and this launch is looked at again: the kernels
        // between them may still come.
        if (b.kernels[position].incomplete) return false;
        if (++b.seen[b.kernels[position].key] <= other_repeats_) return false;
        give_up_expected();
    }
    return false;
}

void range_session::give_up_expected() {
    auto& b = *seq_;
    std::size_t expected = b.next;
    while (expected < b.kernels.size() && b.kernels[expected].incomplete)
        ++expected;
    if (b.running)
        fill_until(std::min(expected + 1, b.kernels.size())); // may end the pass
    else if (expected < b.kernels.size())
        b.kernels[expected].incomplete = true;
    if (!seq_) return;
    seq_->seen.clear();
    seq_->waited = 0;
    if (std::all_of(seq_->kernels.begin(), seq_->kernels.end(),
                    [](const batch_kernel& k) { return k.incomplete; }))
        abandon();
}

void range_session::open_pass() {
    auto& b = *seq_;
    backend_->begin_pass(b.pass);
    backend_->start();
    b.running = true;
    b.next = 0;
    b.seen.clear();
    b.waited = 0;
}

void range_session::push(const std::function<void()>& before_start, std::size_t position) {
    auto& b = *seq_;
    if (before_start) before_start(); // the L2 flush: inside the pass, outside every range
    backend_->push_range(std::to_string(position));
    b.next = position;
    b.seen.clear();
    b.waited = 0;
    active_ = true;
}

void range_session::fill_until(std::size_t position) {
    auto& b = *seq_;
    while (b.next < position && b.next < b.kernels.size()) {
        // An empty range keeps the positions after it matched; its kernel has no metrics.
        backend_->push_range(std::to_string(b.next));
        backend_->pop_range(false);
        b.kernels[b.next].incomplete = true;
        ++b.next;
    }
    if (b.next >= b.kernels.size()) end_pass();
}

void range_session::end_launches(bool wait) {
    active_ = false;
    backend_->pop_range(wait);
    auto& b = *seq_;
    ++b.next;
    if (b.pass == 0) {
        if (b.kernels.size() >= batch_) end_pass(); // the counter image is full
        return;
    }
    // Kernels given up in an earlier pass keep their place with an empty range.
    std::size_t last = b.next;
    while (last < b.kernels.size() && b.kernels[last].incomplete)
        ++last;
    if (last == b.kernels.size()) fill_until(last);
}

void range_session::end_pass() {
    auto& b = *seq_;
    const auto state = backend_->stop();
    b.running = false;
    if (!state.all_submitted) {
        // CUPTI's passes must advance; a set that never completes is given up on, not looped.
        if (state.next_pass <= b.pass || state.next_pass > std::max<std::size_t>(set_.passes, 1))
            return abandon();
        b.pass = state.next_pass;
        b.next = 0;
        b.seen.clear();
        b.waited = 0;
        return;
    }
    const auto d = backend_->decode();
    doc_.dropped_ranges += d.dropped;
    if (d.values.size() < b.kernels.size() && d.dropped == 0)
        doc_.dropped_ranges += b.kernels.size() - d.values.size();
    for (std::size_t i = 0; i < b.kernels.size(); ++i) {
        const auto& k = b.kernels[i];
        if (k.incomplete || i >= d.values.size()) {
            ++doc_.incomplete_kernels;
            doc_.incomplete.push_back(k.name);
            continue;
        }
        kernel_sample s;
        s.name = k.name;
        s.launch_index = k.launch_index;
        s.correlation_id = k.correlation_id;
        s.pass_launches = b.pass + 1; // one launch per pass
        for (std::size_t m = 0; m < set_.metrics.size() && m < d.values[i].size(); ++m)
            if (std::isfinite(d.values[i][m])) // NaN: CUPTI could not evaluate it here
                s.values[set_.metrics[m]] = d.values[i][m];
        doc_.kernels.push_back(std::move(s));
    }
    seq_.reset();
}

// Kernels launched only as warm-ups never had a chance: listed with the incomplete ones (as many
// as the sampling policy's kernel budget leaves), so a hot kernel launched once is not lost.
void range_session::list_warmup_only() {
    if (replay_ != replay_mode::launches || warmup_ == 0) return;
    std::set<std::string, std::less<>> listed(doc_.incomplete.begin(), doc_.incomplete.end());
    for (const auto& k : doc_.kernels)
        listed.insert(k.name);
    std::uint64_t budget = max_kernels_ > listed.size() ? max_kernels_ - listed.size() : 0;
    for (const auto& name : first_seen_) {
        if (budget == 0) break;
        if (launched_.at(name) > warmup_ || listed.contains(name)) continue;
        doc_.incomplete.push_back(name);
        ++doc_.incomplete_kernels;
        --budget;
    }
}

void range_session::abandon() {
    if (!seq_) return;
    if (seq_->running) {
        seq_->running = false;
        (void)backend_->stop(); // its passes are discarded by the next begin_pass(0)
    }
    for (const auto& k : seq_->kernels) {
        ++doc_.incomplete_kernels;
        doc_.incomplete.push_back(k.name);
    }
    seq_.reset();
}

} // namespace ktune::metrics
