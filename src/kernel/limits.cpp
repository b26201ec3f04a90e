// Device limits by arch, for checking launch geometry without a GPU.
#include "ktune/kernel/limits.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

namespace ktune::kernel {

device_limits device_limits::for_arch(std::string_view arch) {
    // CUDA C Programming Guide, "Technical Specifications per Compute Capability": opt-in shared
    // memory per block, and the SM count of each arch's usual data-centre part.
    device_limits l;
    l.arch = std::string(arch);
    const std::string_view base = arch.substr(0, arch.find_first_of("af", 5)); // sm_90a -> sm_90
    if (base == "sm_70") {
        l.max_shared_bytes_per_block = 98304;
        l.sm_count = 80;
        l.max_cluster_size = 0;
    } else if (base == "sm_80") {
        l.max_shared_bytes_per_block = 166912;
        l.sm_count = 108;
        l.max_cluster_size = 0;
    } else if (base == "sm_86" || base == "sm_89") {
        l.max_shared_bytes_per_block = 101376;
        l.sm_count = base == "sm_86" ? 84 : 142;
        l.max_cluster_size = 0;
    } else if (base == "sm_90") {
        l.max_shared_bytes_per_block = 232448;
        l.sm_count = 132;
    } else if (base == "sm_100") {
        l.max_shared_bytes_per_block = 232448;
        l.sm_count = 148;
    } else {
        throw error(error_kind::input,
                    fmt::format("unknown arch '{}' (known: sm_70, sm_80, sm_86, sm_89, sm_90, "
                                "sm_90a, sm_100, sm_100a)",
                                arch));
    }
    return l;
}

const std::vector<std::string>& device_limits::names() {
    static const std::vector<std::string> n{"max_threads_per_block",
                                            "max_shared_bytes_per_block",
                                            "sm_count",
                                            "warp_size",
                                            "max_block_dim_x",
                                            "max_block_dim_y",
                                            "max_block_dim_z",
                                            "max_grid_dim_x",
                                            "max_grid_dim_y",
                                            "max_grid_dim_z",
                                            "max_cluster_size"};
    return n;
}

void device_limits::bind(bindings& b) const {
    const std::int64_t v[] = {max_threads_per_block,
                              max_shared_bytes_per_block,
                              sm_count,
                              warp_size,
                              max_block_dim[0],
                              max_block_dim[1],
                              max_block_dim[2],
                              max_grid_dim[0],
                              max_grid_dim[1],
                              max_grid_dim[2],
                              max_cluster_size};
    const auto& n = names();
    for (std::size_t i = 0; i < n.size(); ++i)
        b[n[i]] = v[i];
}

} // namespace ktune::kernel
