#pragma once
// Private: the seam in front of the CUDA driver calls the launcher makes (module load, function
// lookup, launch, device-to-host copy, stream synchronisation), so the launcher's whole
// pipeline runs on a CPU machine against a fake that records the calls
// (tests/unit/kernel/fake_launch_driver.hpp). The real one resolves the driver through
// core/driver_api.hpp, so libktune still loads where no driver is installed.
#include "ktune/kernel/space.hpp"

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

struct CUstream_st;

namespace ktune::kernel::detail {

/// Opaque driver handles (CUmodule, CUfunction).
using module_handle = void*;
using function_handle = void*;

/// cuLaunchKernel's kernelParams: one pointer per argument; sizes for a driver that copies them.
struct kernel_params {
    void* const* pointers = nullptr;
    const std::size_t* sizes = nullptr;
    std::size_t count = 0;
};

class launch_driver {
public:
    virtual ~launch_driver() = default;
    /// cuModuleLoadData on a cubin image. Throws error{cuda}.
    virtual module_handle load_module(std::string_view cubin) = 0;
    virtual void unload_module(module_handle m) noexcept = 0;
    /// cuModuleGetFunction by lowered name. Throws error{cuda} naming the function.
    virtual function_handle get_function(module_handle m, const std::string& lowered_name) = 0;
    /// cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES): the opt-in a launch with more dynamic
    /// shared memory than the default limit needs. Throws error{cuda}.
    virtual void set_max_dynamic_shared(function_handle f, std::int64_t bytes) = 0;
    /// cuLaunchKernelEx with the geometry (and a cluster attribute when g.cluster is not
    /// 1x1x1). Throws error{cuda}.
    virtual void launch(function_handle f, const geometry& g, const kernel_params& params,
                        CUstream_st* stream) = 0;
    /// cuMemcpyDtoHAsync on `stream`, then a stream synchronize: `dst` holds the bytes on
    /// return. Throws error{cuda}.
    virtual void copy_to_host(void* dst, const void* device_src, std::size_t bytes,
                              CUstream_st* stream) = 0;
    /// cuStreamSynchronize. Throws error{cuda}.
    virtual void synchronize(CUstream_st* stream) = 0;
};

/// The CUDA driver. Throws error{no_device} where no driver can be resolved.
std::shared_ptr<launch_driver> cuda_launch_driver();

} // namespace ktune::kernel::detail
