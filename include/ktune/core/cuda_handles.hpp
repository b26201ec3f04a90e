#pragma once
// RAII for the CUDA runtime objects ktune creates: streams, events, device buffers.
// Destruction never throws; a failing cudaFree is logged.
//
//   ktune::device_buffer buf(1 << 20);   ktune::cuda_event start, stop;

#include "ktune/core/handle.hpp"

#include <cstddef>

struct CUstream_st; // cudaStream_t is CUstream_st*
struct CUevent_st;  // cudaEvent_t is CUevent_st*

namespace ktune {

namespace detail {
struct stream_deleter {
    void operator()(CUstream_st* s) const noexcept;
};
struct event_deleter {
    void operator()(CUevent_st* e) const noexcept;
};
struct device_free {
    void operator()(void* p) const noexcept;
};
} // namespace detail

class cuda_stream {
public:
    cuda_stream(); ///< a non-blocking stream
    [[nodiscard]] CUstream_st* get() const noexcept { return h_.get(); }

private:
    unique_handle<CUstream_st*, detail::stream_deleter> h_;
};

class cuda_event {
public:
    cuda_event(); ///< timing-enabled event
    [[nodiscard]] CUevent_st* get() const noexcept { return h_.get(); }

private:
    unique_handle<CUevent_st*, detail::event_deleter> h_;
};

class device_buffer {
public:
    device_buffer() noexcept = default;
    explicit device_buffer(std::size_t bytes);
    [[nodiscard]] void* data() const noexcept { return h_.get(); }
    [[nodiscard]] std::size_t size() const noexcept { return bytes_; }

private:
    unique_handle<void*, detail::device_free> h_;
    std::size_t bytes_ = 0;
};

} // namespace ktune
