#pragma once
// Writes back and invalidates the GPU's L2 from outside a profiled range, the way ncu's
// `--cache-control all` flushes before each pass: a read sweep over a scratch buffer twice the
// L2 size evicts every line (dirty ones are written back to DRAM during the sweep) and leaves L2
// holding only clean scratch lines, so the range that follows starts with no dirty data of an
// earlier kernel to write back, and reads its own inputs from DRAM.
//
// A memset would not do: it leaves L2 full of dirty lines that the next kernel writes back. The
// range profiler API has no cache control of its own (CUPTI 13.0 headers), and CUPTI's kernel
// replay restores memory between passes itself, so only the first pass follows this flush.
//
// Driver API through ktune::detail::driver_fn only (no libcuda link); the sweep kernel is PTX
// that the driver compiles, so libktune_inject.so needs neither nvcc nor NVRTC.
//
//   l2_flusher f;   // on the current context: scratch of 2 x L2 bytes
//   f.flush();      // sweep + context sync, outside the profiled range
//   f.enqueue(s);   // stream-ordered sweep before a timed launch on s (the tuner's worker)
#include <cstddef>
#include <memory>

namespace ktune::measure {

class l2_flusher {
public:
    /// Allocates the scratch and loads the sweep on the current context. Throws
    /// error_kind::no_device (no context) or error_kind::cuda (allocation, module load).
    l2_flusher();
    ~l2_flusher();
    l2_flusher(const l2_flusher&) = delete;
    l2_flusher& operator=(const l2_flusher&) = delete;

    /// Waits for the context's work, then sweeps the scratch on a stream of its own and waits
    /// for it. Throws error_kind::cuda.
    void flush();
    /// Queues the sweep on `stream` (a CUstream / cudaStream_t of the current context) after
    /// the work already there, without waiting: the tuner's timing loop flushes before each
    /// timed launch of its own stream this way. Throws error_kind::cuda.
    void enqueue(void* stream);
    /// Scratch size in bytes (2 x the device's L2).
    [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

private:
    struct driver;
    void release() noexcept;
    std::unique_ptr<driver> d_;
    void* module_ = nullptr;   // CUmodule
    void* function_ = nullptr; // CUfunction
    void* stream_ = nullptr;   // CUstream
    unsigned long long scratch_ = 0;
    std::size_t bytes_ = 0;
    int blocks_ = 0;
};

} // namespace ktune::measure
