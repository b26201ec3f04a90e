#pragma once
// The hot path of a profiled process. CUPTI's buffer-completed callback lands in
// buffer_completed(): each record is decoded into ktune's fixed-width records, kernel names are
// interned by pointer (CUPTI hands the same pointer for the same function), and full blocks are
// handed to a writer thread that compresses and writes them. The CUPTI thread never waits on
// the disk: when the queue is full the block is dropped and counted, never silently lost.
#include "cupti_seam.hpp"
#include "decoder.hpp"
#include "ktune/trace/trace_file.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ktune::trace::detail {

struct collector_options {
    std::size_t buffer_bytes = 8u << 20;  ///< CUPTI buffer size (docs: 1-10 MB)
    std::size_t block_records = 1u << 15; ///< records per block handed to the writer
    std::size_t max_queued_blocks = 32;   ///< beyond this, blocks are dropped and counted
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
    /// Hands everything staged so far to the writer thread.
    void hand_over() noexcept;
    /// Drains the writer, then writes the trailer and footer. Returns false (with `error`)
    /// when the file could not be completed.
    bool finish(const trace_environment& end_env, std::string& error) noexcept;
    [[nodiscard]] trace_counters counters() const;
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
    void on_record(const CUpti_Activity* a);
    void enqueue_locked();
    void writer_loop();

    cupti_api& api_;
    const record_decoder& decoder_;
    collector_options options_;
    std::unique_ptr<trace_writer> writer_;

    mutable std::mutex mutex_; // staging state: taken by CUPTI threads, briefly
    block staged_;
    trace_counters counters_;
    std::unordered_map<const char*, std::uint32_t> by_pointer_;
    std::unordered_map<std::string, std::uint32_t> by_name_;
    std::unordered_map<std::uint32_t, open_marker> open_markers_;
    std::vector<std::uint32_t> devices_;
    std::vector<std::uint8_t*> free_buffers_;

    std::mutex queue_mutex_;
    std::condition_variable queue_cv_;
    std::deque<block> queue_;
    bool closing_ = false;
    bool write_failed_ = false;
    std::string write_error_;
    std::thread thread_;
};

} // namespace ktune::trace::detail
