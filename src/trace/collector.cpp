// See collector.hpp. Lock order: mutex_ (staging) before queue_mutex_ (hand-over), never back.
#include "collector.hpp"

#include "nvtx_hooks.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ktune::trace::detail {

namespace {
std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> n{0};
    return ++n;
}
} // namespace

collector::collector(cupti_api& api, const record_decoder& decoder,
                     std::unique_ptr<trace_writer> writer, collector_options options)
    : api_(api), decoder_(decoder), serial_(next_serial()), options_(options),
      writer_(std::move(writer)) {
    if (options_.zeroed_buffers) {
        std::uint8_t one = 1;
        if (api_.set_attribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, sizeof one, &one) !=
            CUPTI_SUCCESS)
            options_.zeroed_buffers = false;
    }
    // Allocated and touched now, at start, so that neither allocation nor page faults land on
    // a launching thread when CUPTI asks for a buffer.
    for (std::size_t i = 0; i < options_.prefilled_buffers; ++i)
        if (auto* b = static_cast<std::uint8_t*>(std::calloc(1, options_.buffer_bytes))) {
            std::memset(b, 0, options_.buffer_bytes);
            free_buffers_.push_back(b);
        }
    thread_ = std::thread([this] { writer_loop(); });
}

collector::~collector() {
    {
        std::lock_guard lock(queue_mutex_);
        closing_ = true;
    }
    queue_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    for (auto* b : free_buffers_)
        std::free(b);
}

void collector::buffer_requested(std::uint8_t** buffer, std::size_t* size,
                                 std::size_t* max_records) noexcept {
    std::uint8_t* b = nullptr;
    {
        std::lock_guard lock(mutex_);
        if (!free_buffers_.empty()) {
            b = free_buffers_.back();
            free_buffers_.pop_back();
        }
    }
    // CUPTI needs 8-byte alignment (calloc gives 16) and, with zeroed_buffers, zeroed memory.
    if (!b) b = static_cast<std::uint8_t*>(std::calloc(1, options_.buffer_bytes));
    *buffer = b;
    *size = b ? options_.buffer_bytes : 0;
    *max_records = 0;
}

std::uint32_t collector::intern(const char* name) {
    if (!name) name = "<unnamed>";
    if (auto it = by_pointer_.find(name); it != by_pointer_.end()) return it->second;
    std::string s(name);
    auto [it, added] = by_name_.emplace(s, static_cast<std::uint32_t>(by_name_.size()));
    if (added) staged_.strings.emplace_back(it->second, std::move(s));
    by_pointer_.emplace(name, it->second);
    return it->second;
}

void collector::stage_kernel(const kernel_record& r) {
    if (std::find(devices_.begin(), devices_.end(), r.device) == devices_.end())
        devices_.push_back(r.device);
    counters_.zero_timestamps += r.timed() ? 0 : 1;
    ++counters_.kernels;
    staged_.kernels.push_back(r);
}

void collector::take_kernel(kernel_record& r) {
    if (has_links_.load(std::memory_order_relaxed) && !attach_range(r)) {
        waiting_.push_back(r);
        if (waiting_.size() > options_.max_waiting_kernels) {
            stage_kernel(waiting_.front());
            waiting_.pop_front();
        }
        return;
    }
    stage_kernel(r);
}

void collector::on_record(const CUpti_Activity* a) {
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        kernel_record r;
        const char* name = nullptr;
        decoder_.kernel(a, r, name);
        r.name_id = intern(name);
        take_kernel(r);
        break;
    }
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
        kernel_record r;
        decoder_.graph(a, r);
        r.name_id = graph_name(r.graph_id);
        take_kernel(r);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
        on_link_record(a);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        memcpy_record r;
        decoder_.memcpy(a, r);
        counters_.zero_timestamps += r.timed() ? 0 : 1;
        ++counters_.memcpys;
        staged_.memcpys.push_back(r);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        memset_record r;
        decoder_.memset(a, r);
        counters_.zero_timestamps += r.timed() ? 0 : 1;
        ++counters_.memsets;
        staged_.memsets.push_back(r);
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        sync_record r;
        decoder_.sync(a, r);
        counters_.zero_timestamps += r.timed() ? 0 : 1;
        ++counters_.syncs;
        staged_.syncs.push_back(r);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        marker_event e;
        decoder_.marker(a, e);
        if (e.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
            const auto it = open_markers_.find(e.id);
            if (it == open_markers_.end()) {
                ++counters_.unmatched_nvtx;
                break;
            }
            nvtx_record r;
            r.start_ns = it->second.start;
            r.end_ns = e.timestamp;
            r.name_id = it->second.name_id;
            r.domain_id = it->second.domain_id;
            r.id = e.id;
            r.flags = time_flags(r.start_ns, r.end_ns);
            open_markers_.erase(it);
            ++counters_.nvtx_ranges;
            staged_.nvtx.push_back(r);
        } else if (e.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
            nvtx_record r;
            r.start_ns = r.end_ns = e.timestamp;
            r.name_id = intern(e.name);
            r.domain_id = intern(e.domain ? e.domain : "");
            r.id = e.id;
            r.flags = time_flags(r.start_ns, r.end_ns);
            ++counters_.nvtx_ranges;
            staged_.nvtx.push_back(r);
        } else if (e.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
            open_markers_[e.id] = {e.timestamp, intern(e.name), intern(e.domain ? e.domain : "")};
        }
        break;
    }
    default:
        ++counters_.unknown_records;
        break;
    }
}

std::uint32_t collector::graph_name(std::uint32_t graph_id) {
    if (const auto it = graph_names_.find(graph_id); it != graph_names_.end()) return it->second;
    const std::uint32_t id = intern_text("CUDA graph " + std::to_string(graph_id));
    graph_names_.emplace(graph_id, id);
    return id;
}

std::uint32_t collector::intern_text(const std::string& text) {
    auto [it, added] = by_name_.emplace(text, static_cast<std::uint32_t>(by_name_.size()));
    if (added) staged_.strings.emplace_back(it->second, text);
    return it->second;
}

collector::nvtx_ids collector::nvtx_intern(const char* message, std::uint32_t parent_path,
                                           const char* domain) {
    std::lock_guard lock(mutex_);
    nvtx_ids ids;
    ids.name = intern_text(message);
    ids.domain = intern_text(domain);
    const auto key = std::make_pair(parent_path, ids.name);
    if (const auto it = paths_.find(key); it != paths_.end()) {
        ids.path = it->second;
    } else {
        std::string text = message;
        if (const auto p = path_texts_.find(parent_path - 1);
            parent_path != 0 && p != path_texts_.end())
            text = p->second + "/" + text;
        ids.path = intern_text(text);
        paths_.emplace(key, ids.path);
        path_texts_.emplace(ids.path, std::move(text));
    }
    return ids;
}

void collector::add_nvtx(const nvtx_record& r) {
    // Not the staging lock: the buffer thread holds that for a whole CUPTI buffer, and a pop
    // would wait milliseconds behind it.
    std::lock_guard lock(nvtx_mutex_);
    nvtx_pending_.push_back(r);
}

void collector::stage_nvtx_locked() {
    std::vector<nvtx_record> ranges;
    {
        std::lock_guard lock(nvtx_mutex_);
        ranges.swap(nvtx_pending_);
    }
    for (const auto& r : ranges) {
        ++counters_.nvtx_ranges;
        counters_.zero_timestamps += r.timed() ? 0 : 1;
        staged_.nvtx.push_back(r);
    }
}

std::uint64_t collector::now() noexcept {
    std::uint64_t ns = 0;
    api_.timestamp(&ns);
    return ns;
}

void collector::buffer_completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* buffer,
                                 std::size_t /*size*/, std::size_t valid) noexcept {
    if (!buffer) return;
    try {
        std::lock_guard lock(mutex_);
        // Links of launches made so far are published before their kernels can complete.
        if (options_.link == link_mode::callback && launch_links_on_.load())
            drain_launch_links([this](const launch_link& l) { take_link(l); });
        if (options_.link == link_mode::window && launch_links_on_.load()) {
            // Boundaries of all threads in correlation (launch) order, not ring by ring. The
            // rings first, then what full rings spilled: a spill after the rings were drained
            // holds only boundaries newer than all of these, and waits for the next buffer.
            std::vector<launch_link> b;
            drain_launch_links([&b](const launch_link& l) { b.push_back(l); });
            {
                std::lock_guard spill(spill_mutex_);
                b.insert(b.end(), spilled_.begin(), spilled_.end());
                spilled_.clear();
            }
            take_boundaries(b);
        }
        CUpti_Activity* a = nullptr;
        if (valid > 0)
            while (api_.next_record(buffer, valid, &a) == CUPTI_SUCCESS)
                on_record(a);
        if (!waiting_.empty()) release_waiting(false);
        stage_nvtx_locked();
        std::size_t dropped = 0;
        if (api_.dropped(ctx, stream, &dropped) == CUPTI_SUCCESS)
            counters_.dropped_by_cupti += dropped;
        if (staged_.records() >= options_.block_records) enqueue_locked();
        // CUPTI was promised zeroed buffers; zero all of it here, off the launching thread.
        if (options_.zeroed_buffers) std::memset(buffer, 0, options_.buffer_bytes);
        free_buffers_.push_back(buffer);
    } catch (...) {
        // Out of memory while staging: the records of this buffer are lost; say so in the file.
        std::fputs("ktune: out of memory while collecting records; some were dropped\n", stderr);
    }
}

void collector::enqueue_locked() {
    if (staged_.records() == 0 && staged_.strings.empty()) return;
    {
        std::lock_guard q(queue_mutex_);
        if (queue_.size() < options_.max_queued_blocks && !write_failed_) {
            queue_.push_back(std::move(staged_));
            staged_ = block{};
        } else {
            // Never block CUPTI's thread on the disk: drop the records, keep the names (later
            // blocks refer to them), and count the loss.
            counters_.dropped_by_ktune += staged_.records();
            auto strings = std::move(staged_.strings);
            staged_ = block{};
            staged_.strings = std::move(strings);
            return;
        }
    }
    queue_cv_.notify_one();
}

void collector::hand_over(bool release_all) noexcept {
    try {
        std::lock_guard lock(mutex_);
        if (release_all) release_waiting(true);
        stage_nvtx_locked();
        enqueue_locked();
    } catch (...) {
    }
}

void collector::writer_loop() {
    for (;;) {
        block b;
        {
            std::unique_lock lock(queue_mutex_);
            queue_cv_.wait(lock, [&] { return closing_ || !queue_.empty(); });
            if (queue_.empty()) return;
            b = std::move(queue_.front());
            queue_.pop_front();
        }
        try {
            if (write_failed_) throw std::runtime_error(write_error_);
            for (const auto& [id, name] : b.strings)
                writer_->add_string(id, name);
            // Sorted by start, deltas are small and non-negative: better compression, and
            // readers see each block in time order. Untimed records sort first.
            std::stable_sort(b.kernels.begin(), b.kernels.end(),
                             [](const auto& x, const auto& y) { return x.start_ns < y.start_ns; });
            writer_->write(std::span<const kernel_record>(b.kernels));
            writer_->write(std::span<const memcpy_record>(b.memcpys));
            writer_->write(std::span<const memset_record>(b.memsets));
            writer_->write(std::span<const sync_record>(b.syncs));
            writer_->write(std::span<const nvtx_record>(b.nvtx));
        } catch (const std::exception& e) {
            std::lock_guard lock(mutex_);
            counters_.dropped_by_ktune += b.records();
            std::lock_guard q(queue_mutex_);
            if (!write_failed_) {
                write_failed_ = true;
                write_error_ = e.what();
                std::fprintf(stderr, "ktune: trace writing failed, records dropped: %s\n",
                             e.what());
            }
        }
    }
}

bool collector::finish(const trace_environment& end_env, std::string& error) noexcept {
    hand_over(true);
    {
        std::lock_guard lock(queue_mutex_);
        closing_ = true;
    }
    queue_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    try {
        trace_counters c;
        {
            std::lock_guard lock(mutex_);
            counters_.unmatched_nvtx += open_markers_.size();
            open_markers_.clear();
            report_links();
            c = counters_;
        }
        if (write_failed_) {
            error = write_error_;
            return false;
        }
        writer_->finish(end_env, c);
        return true;
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
}

trace_counters collector::counters() const {
    std::lock_guard lock(mutex_);
    return counters_;
}

std::vector<std::uint32_t> collector::devices() const {
    std::lock_guard lock(mutex_);
    return devices_;
}

} // namespace ktune::trace::detail
