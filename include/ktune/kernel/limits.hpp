#pragma once
// Device limits a kernel spec's expressions may name (max_threads_per_block, ...), and that the
// launch geometry of every config is checked against before anything is compiled.
//
//   auto l = ktune::kernel::device_limits::for_arch("sm_90");     // H100-class defaults
//   ktune::kernel::bindings b;  l.bind(b);                        // b["sm_count"] == 132

#include "ktune/kernel/expr.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::kernel {

struct device_limits {
    std::string arch = "sm_90"; ///< NVRTC target of the check compile
    std::int64_t max_threads_per_block = 1024;
    /// Opt-in maximum of dynamic + static shared memory per block.
    std::int64_t max_shared_bytes_per_block = 232448;
    std::int64_t sm_count = 132;
    std::int64_t warp_size = 32;
    std::int64_t max_block_dim[3] = {1024, 1024, 64};
    std::int64_t max_grid_dim[3] = {2147483647, 65535, 65535};
    /// Blocks per cluster a plain launch may use (the portable size; 0: no clusters, pre-sm_90).
    std::int64_t max_cluster_size = 8;

    /// The limits of the arch's usual data-centre part (sm_70 V100, sm_80 A100, sm_86/sm_89
    /// consumer parts, sm_90 H100 SXM, sm_100 B200). Throws error{input} for another arch,
    /// naming the known ones.
    static device_limits for_arch(std::string_view arch);
    /// Names the limits go by in expressions, in a fixed order.
    static const std::vector<std::string>& names();
    /// Adds each limit under its name.
    void bind(bindings& b) const;
};

} // namespace ktune::kernel
