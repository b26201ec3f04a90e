// --replay launches: many kernels per pass, on the program's own launches (range_session.hpp
// says the rules). Why many per pass: CUPTI's range profiler costs ~18 ms per start and ~7 ms per
// stop on an H200 whatever the pass holds, a user range around one launch ~1 ms
// (bench_range_probe, docs/perf/metrics.md#pass-cost), so 10 kernels x 3 passes cost 3 passes,
// not 30. Ranges are named by the kernel's place in the sequence; CUPTI matches a later pass's
// ranges to pass 0's by name (the probe's reordered pass read every range right), so a later
// pass takes each kernel's next launch in whatever order the program makes them: a loop body
// that launches one kernel several times, or several shapes of one GEMM, does not stall it.
#include "ktune/core/error.hpp"
#include "ktune/metrics/range_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <utility>

namespace ktune::metrics {
namespace {
// Candidate launches per kernel of a sequence that may go by without a range (or, in pass 0, a
// kernel joining) before the kernels still missing are given up: a loop iteration launches each
// of its kernels, so many times the sequence's size without one of them means they are gone.
constexpr std::uint64_t stall_per_kernel = 64;
// A kernel (name and shape) whose work keys do not come back has arguments that change on every
// launch (a step counter, a learning rate or a random offset passed by value): work keys would
// never merge its passes. It shows as no key of it repeating while other kernels repeated
// `loop_evidence` keys since its first launch (a loop went round), or as this many distinct keys
// with fewer than a quarter of its launches repeating one.
constexpr std::uint64_t loop_evidence = 64;
constexpr std::size_t volatile_after = 32;
constexpr std::size_t max_tracked_keys = 4096;
} // namespace

// "shape/w<hex>" -> the key to merge passes by: name + shape + work, or name + shape where the
// work is not known or the kernel's arguments never repeat (docs/perf/metrics.md#work-keys).
std::string range_session::work_key(std::string_view name, std::string_view shape,
                                    std::string& work) {
    const auto w = shape.rfind("/w");
    std::string family = fmt::format("{}\x1f{}", name, shape.substr(0, w));
    work.clear();
    if (w == std::string_view::npos) return family;
    auto [it, fresh] = families_.try_emplace(family);
    auto& f = it->second;
    if (fresh) f.repeats_elsewhere_at_first = repeat_events_;
    if (f.varying) return family;
    ++f.launches;
    if (!f.seen.insert(std::string(shape.substr(w + 2))).second) {
        ++f.repeats;
        ++repeat_events_;
    }
    const bool loop_went_round = f.repeats == 0 && f.launches >= 2 &&
                                 repeat_events_ - f.repeats_elsewhere_at_first >= loop_evidence;
    if (loop_went_round || (f.seen.size() >= volatile_after && f.repeats * 4 < f.launches) ||
        f.seen.size() > max_tracked_keys) {
        f.varying = true;
        f.seen.clear();
        return family;
    }
    work = shape.substr(w + 2);
    return family + "\x1f" + work;
}

// Work keys: the sampling policy admits the kernel by name once; then each distinct work of it
// gets its own samples (up to max_per_kernel each). Other keys: the policy decides per launch.
bool range_session::admit(std::string_view name, const std::string& key, bool has_work,
                          bool cooperative) {
    // A kernel admitted for its work keys and keyed by shape since (its arguments vary): its
    // shape key counts as one more work.
    if (!has_work && !admitted_.contains(name))
        return policy_.decide(name, cooperative) == sample_decision::profile;
    if (!admitted_.contains(name)) {
        if (policy_.decide(name, cooperative) != sample_decision::profile) return false;
        admitted_.emplace(name);
    }
    auto& n = work_samples_[key];
    if (n >= max_per_kernel_) return false;
    ++n;
    return true;
}

bool range_session::stalled(const sequence& b) const noexcept {
    return b.waited > std::min<std::uint64_t>(patience_, stall_per_kernel * b.kernels.size());
}

bool range_session::begin_launches(std::string_view name, std::uint64_t launch_index,
                                   std::uint64_t correlation_id, bool cooperative,
                                   std::string_view shape,
                                   const std::function<void()>& before_start) {
    std::string work;
    std::string key = work_key(name, shape, work);
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
        // A new sequence opens on a sampled launch; one metric set serves the whole sequence
        // (the first kernel's).
        if (!admit(name, key, !work.empty(), cooperative)) return false;
        const tensor_precision p = guess_tensor_precision(name);
        auto it = resolved_.find(p);
        if (it == resolved_.end()) it = resolved_.emplace(p, resolve_(p)).first;
        use(it->second);
        seq_.emplace();
        open_pass();
        return join_pass0(std::move(key), std::move(work), name, launch_index, correlation_id,
                          cooperative, before_start, true);
    }
    auto& b = *seq_;
    const auto at = std::find_if(b.kernels.begin(), b.kernels.end(),
                                 [&](const batch_kernel& k) { return k.key == key; });
    const std::size_t position = static_cast<std::size_t>(at - b.kernels.begin());
    ++b.waited;
    if (at == b.kernels.end()) {
        if (b.pass == 0 && warm &&
            join_pass0(std::move(key), std::move(work), name, launch_index, correlation_id,
                       cooperative, before_start, false))
            return true;
        if (stalled(b)) {
            if (b.pass == 0)
                end_pass();
            else
                give_up_missing();
        }
        return false;
    }
    if (b.pass == 0) {
        // A kernel of pass 0 again. Pass 0 closes once each of them came back since the last
        // one joined (a loop went round: kernels that first run later in the loop have joined
        // by then), or when those that came back keep coming and another never does (it may
        // never come back, like PyTorch's weight initialisation before the loop); this launch
        // then belongs to pass 1.
        ++at->back;
        std::uint32_t least_back = ~0u;
        bool one_missing = false;
        for (const auto& k : b.kernels) {
            if (k.back == 0)
                one_missing = true;
            else
                least_back = std::min(least_back, k.back);
        }
        if (one_missing && least_back <= other_repeats_ && !stalled(b)) return false;
        end_pass();
        if (!seq_ || seq_->pass == 0) return false;
    }
    return take(position, before_start);
}

// Pass 0: a kernel not yet in the sequence joins it, if the sampling policy takes it.
bool range_session::join_pass0(std::string key, std::string work, std::string_view name,
                               std::uint64_t launch_index, std::uint64_t correlation_id,
                               bool cooperative, const std::function<void()>& before_start,
                               bool admitted) {
    if (!seq_ || seq_->pass != 0) return false;
    auto& b = *seq_;
    // The first kernel was admitted by the caller, which opened the sequence for it.
    if (!admitted && (b.kernels.size() >= batch_ || !admit(name, key, !work.empty(), cooperative)))
        return false;
    for (auto& k : b.kernels)
        k.back = 0; // the loop has not gone round since this one joined
    b.kernels.push_back({std::move(key), std::string(name), std::move(work), launch_index,
                         correlation_id, false, false, 0});
    push(before_start, b.kernels.size() - 1);
    return true;
}

// A later pass: the kernel at `position`, unless this pass has it already.
bool range_session::take(std::size_t position, const std::function<void()>& before_start) {
    auto& b = *seq_;
    auto& k = b.kernels[position];
    if (k.incomplete) return false;
    if (k.taken) {
        // Every kernel this pass has came back twice since its range and the missing ones did
        // not: a loop iteration went by without them.
        ++k.back;
        const bool stale = std::all_of(b.kernels.begin(), b.kernels.end(),
                                       [](const auto& o) { return !o.taken || o.back >= 2; });
        if (!stale && !stalled(b)) return false;
        give_up_missing();
        // The next pass may take this launch.
        if (!seq_ || seq_->running || seq_->kernels[position].incomplete) return false;
        return take(position, before_start);
    }
    if (!b.running) open_pass();
    k.taken = true;
    k.back = 0;
    push(before_start, position);
    return true;
}

void range_session::give_up_missing() {
    auto& b = *seq_;
    const bool any = std::any_of(b.kernels.begin(), b.kernels.end(),
                                 [](const batch_kernel& k) { return !k.incomplete && !k.taken; });
    if (!any) return;
    for (auto& k : b.kernels)
        if (!k.taken && !k.incomplete) k.incomplete = true;
    if (std::all_of(b.kernels.begin(), b.kernels.end(),
                    [](const batch_kernel& k) { return k.incomplete; }))
        return abandon();
    if (!b.running) open_pass();
    push_empty([](const batch_kernel& k) { return !k.taken; });
    end_pass();
}

void range_session::open_pass() {
    auto& b = *seq_;
    backend_->begin_pass(b.pass);
    backend_->start();
    b.running = true;
    b.cycle_open = true;
}

void range_session::push(const std::function<void()>& before_start, std::size_t position) {
    auto& b = *seq_;
    if (before_start) before_start(); // the L2 flush: inside the pass, outside every range
    backend_->push_range(std::to_string(position));
    b.waited = 0;
    active_ = true;
}

void range_session::end_launches(bool wait) {
    active_ = false;
    backend_->pop_range(wait);
    auto& b = *seq_;
    if (b.pass == 0) {
        if (b.kernels.size() >= batch_) end_pass(); // the counter image is full
        return;
    }
    if (std::all_of(b.kernels.begin(), b.kernels.end(),
                    [](const batch_kernel& k) { return k.taken || k.incomplete; })) {
        // Kernels given up in an earlier pass keep their name with an empty range.
        push_empty([](const batch_kernel& k) { return k.incomplete; });
        end_pass();
    }
}

// A pass holds every name of pass 0, a kernel without a range under an empty one: CUPTI matches
// a later pass's ranges to pass 0's by name (range_backend::push_range).
void range_session::push_empty(bool (*missing)(const batch_kernel&)) {
    const auto& kernels = seq_->kernels;
    for (std::size_t i = 0; i < kernels.size(); ++i)
        if (missing(kernels[i])) {
            backend_->push_range(std::to_string(i));
            backend_->pop_range(false);
        }
}

// CUPTI's passes must advance: a set whose next pass does not (or, `bounded`, lies past the
// set's passes) never completes and is given up on, not looped; nothing more is submitted to a
// backend out of step, nor to one that has every pass. Unbounded (abandon, submit_rest), a pass
// past the set's ends submit_rest's loop all the same.
bool range_session::note_stop(const range_backend::pass_state& state, bool bounded) {
    auto& b = *seq_;
    const bool next = !state.all_submitted && state.next_pass > b.pass &&
                      (!bounded || state.next_pass <= std::max<std::size_t>(set_.passes, 1));
    if (next)
        b.pass = state.next_pass;
    else
        b.cycle_open = false;
    return next;
}

void range_session::end_pass() {
    auto& b = *seq_;
    const auto state = backend_->stop();
    b.running = false;
    b.waited = 0;
    for (auto& k : b.kernels) {
        k.taken = false;
        k.back = 0;
    }
    if (note_stop(state, true)) return;
    if (!state.all_submitted) return abandon();
    const auto d = backend_->decode();
    if (b.pass + 1 < std::max<std::size_t>(set_.passes, 1)) {
        // Every pass submitted after fewer than the set holds: the backend's pass sequence ran
        // on from a kernel given up on (docs/perf/metrics.md#llama-layer). The image holds part
        // of the set only: nothing of it is kept.
        return abandon();
    }
    doc_.dropped_ranges += d.dropped;
    if (d.values.size() < b.kernels.size() && d.dropped == 0)
        doc_.dropped_ranges += b.kernels.size() - d.values.size();
    // Each range by its name (the kernel's place in the sequence); unnamed ones by position.
    std::vector<const std::vector<double>*> values(b.kernels.size(), nullptr);
    for (std::size_t r = 0; r < d.values.size(); ++r) {
        std::size_t i = r;
        if (r < d.range_names.size()) {
            const auto& n = d.range_names[r];
            const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), i);
            if (ec != std::errc{} || end != n.data() + n.size()) i = r;
        }
        if (i < values.size()) values[i] = &d.values[r];
    }
    for (std::size_t i = 0; i < b.kernels.size(); ++i) {
        const auto& k = b.kernels[i];
        if (k.incomplete || !values[i]) {
            ++doc_.incomplete_kernels;
            doc_.incomplete.push_back(k.name);
            continue;
        }
        kernel_sample s;
        s.name = k.name;
        s.launch_index = k.launch_index;
        s.correlation_id = k.correlation_id;
        s.pass_launches = b.pass + 1; // one launch per pass
        s.work = k.work;
        const auto& v = *values[i];
        for (std::size_t m = 0; m < set_.metrics.size() && m < v.size(); ++m)
            if (std::isfinite(v[m])) // NaN: CUPTI could not evaluate it here
                s.values[set_.metrics[m]] = v[m];
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
        // Every name in the pass (empty ranges for the missing ones) before it stops; its
        // passes are discarded by the next begin_pass(0).
        if (seq_->pass > 0) push_empty([](const batch_kernel& k) { return !k.taken; });
        seq_->running = false;
        (void)note_stop(backend_->stop(), false);
    }
    submit_rest();
    for (const auto& k : seq_->kernels) {
        ++doc_.incomplete_kernels;
        doc_.incomplete.push_back(k.name);
    }
    seq_.reset();
}

// CUPTI counts passes on from a sequence given up on, across a counter-image reset: unless its
// remaining passes are submitted (an empty range under each of pass 0's names), the next
// sequence's first stop calls every pass submitted and its image holds pass 0's metrics only
// (docs/perf/metrics.md#llama-layer). Costs a start and a stop per pass left.
void range_session::submit_rest() {
    auto& b = *seq_;
    const std::size_t passes = std::max<std::size_t>(set_.passes, 1);
    for (std::size_t n = 0; b.cycle_open && n < passes; ++n) {
        if (b.pass == 0 || b.pass >= passes) break;
        backend_->begin_pass(b.pass);
        backend_->start();
        push_empty([](const batch_kernel&) { return true; });
        const auto state = backend_->stop();
        if (state.all_submitted) (void)backend_->decode(); // resets the image; nothing kept
        (void)note_stop(state, false);
    }
}

} // namespace ktune::metrics
