#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/check.hpp"

#include <cuda_runtime_api.h>

namespace ktune {
namespace detail {
void stream_deleter::operator()(CUstream_st* s) const noexcept {
    KTUNE_CUDA_CALL_NOEXCEPT(cudaStreamDestroy(s));
}
void event_deleter::operator()(CUevent_st* e) const noexcept {
    KTUNE_CUDA_CALL_NOEXCEPT(cudaEventDestroy(e));
}
void device_free::operator()(void* p) const noexcept {
    KTUNE_CUDA_CALL_NOEXCEPT(cudaFree(p));
}
} // namespace detail

cuda_stream::cuda_stream() {
    cudaStream_t s = nullptr;
    KTUNE_CUDA_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    h_.reset(s);
}

cuda_event::cuda_event() {
    cudaEvent_t e = nullptr;
    KTUNE_CUDA_CALL(cudaEventCreate(&e));
    h_.reset(e);
}

device_buffer::device_buffer(std::size_t bytes) : bytes_(bytes) {
    void* p = nullptr;
    KTUNE_CUDA_CALL(cudaMalloc(&p, bytes));
    h_.reset(p);
}

} // namespace ktune
