#pragma once
// A launch_driver that records every call, so the launcher's pipeline (cache tiers, compile,
// geometry, parameter marshalling, capture) runs on a CPU. "Device" pointers are host pointers:
// copy_to_host copies from them, and an optional on_launch stands in for the kernel.
#include "kernel/launch_driver.hpp"

#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace ktune::kernel::testing {

struct recorded_launch {
    void* function = nullptr;
    geometry geo;
    std::vector<std::string> params; ///< each parameter's bytes, as the driver would copy them
    CUstream_st* stream = nullptr;
};

class fake_launch_driver final : public detail::launch_driver {
public:
    detail::module_handle load_module(std::string_view cubin) override {
        std::lock_guard lk(mu);
        cubins.emplace_back(cubin);
        return reinterpret_cast<detail::module_handle>(cubins.size()); // 1, 2, ...: never null
    }
    void unload_module(detail::module_handle m) noexcept override {
        std::lock_guard lk(mu);
        unloaded.push_back(m);
    }
    detail::function_handle get_function(detail::module_handle m,
                                         const std::string& lowered_name) override {
        std::lock_guard lk(mu);
        functions.push_back(lowered_name);
        return static_cast<char*>(m) + 0x1000; // distinct per module
    }
    void set_max_dynamic_shared(detail::function_handle f, std::int64_t bytes) override {
        std::lock_guard lk(mu);
        shared_opt_ins.emplace_back(f, bytes);
    }
    void launch(detail::function_handle f, const geometry& g, const detail::kernel_params& p,
                CUstream_st* stream) override {
        recorded_launch r{f, g, {}, stream};
        for (std::size_t i = 0; i < p.count; ++i)
            r.params.emplace_back(static_cast<const char*>(p.pointers[i]), p.sizes[i]);
        if (on_launch) on_launch(r);
        std::lock_guard lk(mu);
        launches.push_back(std::move(r));
        events.emplace_back("launch");
    }
    void copy_to_host(void* dst, const void* src, std::size_t bytes, CUstream_st*) override {
        std::memcpy(dst, src, bytes);
        std::lock_guard lk(mu);
        events.push_back("copy " + std::to_string(bytes));
    }
    void synchronize(CUstream_st*) override {
        std::lock_guard lk(mu);
        events.emplace_back("sync");
    }

    std::mutex mu;
    std::vector<std::string> cubins;
    std::vector<detail::module_handle> unloaded;
    std::vector<std::string> functions;
    std::vector<std::pair<detail::function_handle, std::int64_t>> shared_opt_ins;
    std::vector<recorded_launch> launches;
    std::vector<std::string> events;
    std::function<void(const recorded_launch&)> on_launch;
};

} // namespace ktune::kernel::testing
