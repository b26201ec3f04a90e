#pragma once
// The hot path of a profiled process. CUPTI's buffer-completed callback lands in
// buffer_completed(): each record is decoded into ktune's fixed-width records, kernel names are
// interned by pointer (CUPTI hands the same pointer for the same function), and full blocks are
// handed to a writer thread that compresses and writes them. The CUPTI thread never waits on
// the disk: when the queue is full the block is dropped and counted, never silently lost.
#include "cupti_seam.hpp"
#include "decoder.hpp"
#include "ktune/trace/trace_file.hpp"
#include "launch_links.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ktune::trace::detail {

struct collector_options {
    std::size_t buffer_bytes = 8u << 20; ///< CUPTI buffer size (docs: 1-10 MB)
    /// Buffers allocated and zeroed at start. With `zeroed_buffers`, CUPTI is told that the
    /// buffers it gets are already zero (ZEROED_OUT_ACTIVITY_BUFFER); the used part is re-zeroed
    /// here on the completion thread. Otherwise CUPTI zeroes each buffer on the launching thread.
    std::size_t prefilled_buffers = 2;
    bool zeroed_buffers = true;
    std::size_t block_records = 1u << 15; ///< records per block handed to the writer
    std::size_t max_queued_blocks = 32;   ///< beyond this, blocks are dropped and counted
    link_mode link = link_mode::window;   ///< kernel -> NVTX range (launch_links.hpp)
    /// external_correlation: kernels whose launch's API record has not arrived yet wait (the
    /// launching thread's buffer may complete after the kernel's); beyond this many, the
    /// oldest are written unattributed.
    std::size_t max_waiting_kernels = 1u << 18;
    /// external_correlation: also the driver's launch APIs (kernels launched through the
    /// driver: Triton, cuBLAS); off only to measure what the runtime's nested call costs.
    bool driver_api_records = true;
};

class collector {
public:
    collector(cupti_api& api, const record_decoder& decoder, std::unique_ptr<trace_writer> writer,
              collector_options options);
    ~collector();
    collector(const collector&) = delete;
    collector& operator=(const collector&) = delete;

    void buffer_requested(std::uint8_t** buffer, std::size_t* size,
                          std::size_t* max_records) noexcept;
    void buffer_completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* buffer,
                          std::size_t size, std::size_t valid) noexcept;
    /// Hands everything staged so far to the writer thread; `release_all` (after a forced
    /// flush: every API record is in) also writes the kernels still waiting for one.
    void hand_over(bool release_all = false) noexcept;
    /// Drains the writer, then writes the trailer and footer. Returns false (with `error`)
    /// when the file could not be completed.
    bool finish(const trace_environment& end_env, std::string& error) noexcept;
    [[nodiscard]] trace_counters counters() const;

    // NVTX and launch links (see nvtx_hooks.hpp); thread-safe, called on the program's threads.
    struct nvtx_ids {
        std::uint32_t name = 0, path = 0, domain = 0; ///< string ids
    };
    /// Ids of a range's message, of its path below the range `parent_path` (1 + string id of the
    /// enclosing range's path, 0 at the top) and of its domain.
    nvtx_ids nvtx_intern(const char* message, std::uint32_t parent_path, const char* domain);
    void add_nvtx(const nvtx_record& r);
    /// The kernel launched with `correlation` ran inside the range (1 + string ids).
    void link_launch(std::uint32_t correlation, std::uint32_t range, std::uint32_t path) noexcept;
    /// A range (1 + string ids) opened on the calling thread: turns the launch links on (once)
    /// and, with external correlation, pushes the range to CUPTI (then returns true, and the
    /// caller calls close_range at its pop).
    bool open_range(std::uint32_t range, std::uint32_t path) noexcept;
    void close_range() noexcept;
    /// Turns the launch links' records or callbacks off again (recording stopped).
    void stop_launch_links() noexcept;
    [[nodiscard]] link_mode mode() const noexcept { return options_.link; }
    /// A link from a thread's ring: a launch (callback) or a range boundary (window).
    void take_link(const launch_link& l) noexcept;
    /// link_mode::window: a launching thread's full ring of boundaries, set aside for the
    /// buffer thread, which takes them with every other thread's in correlation order.
    void spill_boundaries(link_ring& ring);
    void call_marker() noexcept { api_.call_marker(); }
    /// link_mode::window, ranges open on two threads at once: turns the launch callbacks on
    /// (once; true the first time). Kernels launched after `correlation` (a marker called once
    /// they are on) take their launch's own link, window boundaries before.
    bool fall_back_to_callbacks() noexcept;
    [[nodiscard]] bool fell_back() const noexcept { return fell_back_.load(); }
    void set_fallback_from(std::uint32_t correlation) noexcept {
        fallback_from_.store(correlation, std::memory_order_release);
    }
    [[nodiscard]] std::uint64_t now() noexcept;
    /// Unique per collector of the process (an address may be reused by a later one).
    [[nodiscard]] std::uint64_t serial() const noexcept { return serial_; }
    /// Device ids seen in kernel records (for the end-of-trace GPU identity).
    [[nodiscard]] std::vector<std::uint32_t> devices() const;

private:
    struct block {
        std::vector<std::pair<std::uint32_t, std::string>> strings;
        std::vector<kernel_record> kernels;
        std::vector<memcpy_record> memcpys;
        std::vector<memset_record> memsets;
        std::vector<sync_record> syncs;
        std::vector<nvtx_record> nvtx;
        [[nodiscard]] std::size_t records() const noexcept {
            return kernels.size() + memcpys.size() + memsets.size() + syncs.size() + nvtx.size();
        }
    };
    struct open_marker {
        std::uint64_t start = 0;
        std::uint32_t name_id = 0;
        std::uint32_t domain_id = 0;
    };

    std::uint32_t intern(const char* name);
    std::uint32_t intern_text(const std::string& text);
    /// "CUDA graph <id>", interned once per graph.
    std::uint32_t graph_name(std::uint32_t graph_id);
    void enable_launch_links() noexcept;
    /// Stamps the range into `r`; false when it must wait for its launch's API record.
    bool attach_range(kernel_record& r);
    void stage_kernel(const kernel_record& r);
    /// Stamps the NVTX range and stages `r`, or parks it until its launch's API record comes.
    void take_kernel(kernel_record& r);
    void on_link_record(const CUpti_Activity* a);
    void release_waiting(bool all);
    void stage_nvtx_locked(); ///< moves the ranges closed so far into staged_ (mutex_ held)
    void report_links() const;
    void on_record(const CUpti_Activity* a);
    void enqueue_locked();
    void writer_loop();

    cupti_api& api_;
    const record_decoder& decoder_;
    std::uint64_t serial_;
    collector_options options_;
    std::unique_ptr<trace_writer> writer_;

    mutable std::mutex mutex_; // staging state: taken by CUPTI threads, briefly
    block staged_;
    trace_counters counters_;
    std::unordered_map<const char*, std::uint32_t> by_pointer_;
    std::unordered_map<std::string, std::uint32_t> by_name_;
    std::unordered_map<std::uint32_t, std::uint32_t> graph_names_; ///< graph id -> string id
    std::unordered_map<std::uint32_t, open_marker> open_markers_;
    std::vector<std::uint32_t> devices_;
    std::vector<std::uint8_t*> free_buffers_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> paths_; // (parent, name)
    std::unordered_map<std::uint32_t, std::string> path_texts_;

    // correlation id -> (range, path), or (0, 0): the launch's API record came, no range.
    // link_mode::window: boundary correlation id -> the range from there on.
    // Taken on launching threads only by link_mode::locked_map and by a full ring.
    std::mutex link_mutex_;
    std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> links_;
    std::atomic<bool> has_links_{false};
    std::atomic<bool> launch_links_on_{false};
    std::uint64_t links_on_ns_ = 0;     ///< when API records began (external correlation)
    std::deque<kernel_record> waiting_; ///< kernels whose launch's API record is still due
    std::uint64_t api_records_ = 0, external_records_ = 0; ///< external correlation diagnostics
    struct thread_range {
        std::uint32_t range = 0, path = 0; ///< innermost open range (0: none)
        std::uint64_t seq = 0;             ///< order of the boundary that set it
    };
    std::vector<thread_range> open_by_thread_; ///< window mode, by ring thread number
    std::uint64_t boundary_seq_ = 0, overlapping_boundaries_ = 0;
    std::atomic<bool> fell_back_{false};
    std::atomic<std::uint32_t> fallback_from_{0};
    std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> exact_; ///< after it
    std::mutex spill_mutex_; // window mode: full rings' boundaries, until the buffer thread
    std::vector<launch_link> spilled_;
    void take_boundaries(std::vector<launch_link>& b) noexcept; ///< sorts, then take_link

    std::mutex nvtx_mutex_; // closed NVTX ranges from the program's threads, until staged
    std::vector<nvtx_record> nvtx_pending_;

    std::mutex queue_mutex_;
    std::condition_variable queue_cv_;
    std::deque<block> queue_;
    bool closing_ = false;
    bool write_failed_ = false;
    std::string write_error_;
    std::thread thread_;
};

} // namespace ktune::trace::detail
