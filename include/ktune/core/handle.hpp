#pragma once
// A move-only owner for C handles (streams, events, modules, NVRTC programs, CUPTI objects).
// The deleter must not throw: destructors run during unwinding.
//
//   using event = ktune::unique_handle<cudaEvent_t, event_deleter>;

#include <utility>

namespace ktune {

template <class Handle, class Deleter>
class unique_handle {
public:
    unique_handle() noexcept = default;
    explicit unique_handle(Handle h) noexcept : h_(h) {}
    unique_handle(const unique_handle&) = delete;
    unique_handle& operator=(const unique_handle&) = delete;
    unique_handle(unique_handle&& o) noexcept : h_(std::exchange(o.h_, Handle{})) {}
    unique_handle& operator=(unique_handle&& o) noexcept {
        if (this != &o) reset(std::exchange(o.h_, Handle{}));
        return *this;
    }
    ~unique_handle() { reset(); }

    [[nodiscard]] Handle get() const noexcept { return h_; }
    explicit operator bool() const noexcept { return h_ != Handle{}; }
    Handle release() noexcept { return std::exchange(h_, Handle{}); }
    void reset(Handle h = Handle{}) noexcept {
        if (h_ != Handle{}) Deleter{}(h_);
        h_ = h;
    }

private:
    Handle h_{};
};

} // namespace ktune
