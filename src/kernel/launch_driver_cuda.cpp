// The launcher's driver seam on the real CUDA driver, resolved through cudart's entry-point
// query (core/driver_api.hpp) so libktune loads on a machine without a driver. Modules load into
// the context current on the calling thread (the runtime's primary context in an application
// that has used cudart), as cuModuleLoadData does.
#include "kernel/launch_driver.hpp"

#include "core/driver_api.hpp"
#include "ktune/core/error.hpp"

#include <cuda.h>
#include <fmt/format.h>

namespace ktune::kernel::detail {
namespace {

template <class Fn>
Fn need(const char* symbol) {
    return ktune::detail::need_driver_fn<Fn>("kernel launcher", symbol);
}

void check(CUresult rc, const char* call, std::string_view what) {
    ktune::detail::check_driver(rc, "", call, what);
}

class cuda_driver final : public launch_driver {
public:
    module_handle load_module(std::string_view cubin) override {
        CUmodule m = nullptr;
        // cuModuleLoadData reads an ELF image from memory: the string's bytes are that image.
        check(load_(&m, cubin.data()), "cuModuleLoadData", "the config's cubin");
        return m;
    }
    void unload_module(module_handle m) noexcept override {
        if (m) (void)unload_(static_cast<CUmodule>(m));
    }
    function_handle get_function(module_handle m, const std::string& lowered_name) override {
        CUfunction f = nullptr;
        check(get_(&f, static_cast<CUmodule>(m), lowered_name.c_str()), "cuModuleGetFunction",
              lowered_name);
        return f;
    }
    void set_max_dynamic_shared(function_handle f, std::int64_t bytes) override {
        check(set_attr_(static_cast<CUfunction>(f), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        static_cast<int>(bytes)),
              "cuFuncSetAttribute", fmt::format("{} bytes of dynamic shared memory", bytes));
    }
    void launch(function_handle f, const geometry& g, const kernel_params& params,
                CUstream_st* stream) override {
        CUlaunchConfig cfg{};
        cfg.gridDimX = static_cast<unsigned>(g.grid[0]);
        cfg.gridDimY = static_cast<unsigned>(g.grid[1]);
        cfg.gridDimZ = static_cast<unsigned>(g.grid[2]);
        cfg.blockDimX = static_cast<unsigned>(g.block[0]);
        cfg.blockDimY = static_cast<unsigned>(g.block[1]);
        cfg.blockDimZ = static_cast<unsigned>(g.block[2]);
        cfg.sharedMemBytes = static_cast<unsigned>(g.shared_bytes);
        cfg.hStream = stream;
        CUlaunchAttribute cluster{};
        if (g.cluster[0] * g.cluster[1] * g.cluster[2] > 1) {
            cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            cluster.value.clusterDim.x = static_cast<unsigned>(g.cluster[0]);
            cluster.value.clusterDim.y = static_cast<unsigned>(g.cluster[1]);
            cluster.value.clusterDim.z = static_cast<unsigned>(g.cluster[2]);
            cfg.attrs = &cluster;
            cfg.numAttrs = 1;
        }
        // cuLaunchKernelEx takes void** for the parameters but only reads them.
        check(
            launch_(&cfg, static_cast<CUfunction>(f), const_cast<void**>(params.pointers), nullptr),
            "cuLaunchKernelEx", "the tuned config");
    }
    void copy_to_host(void* dst, const void* device_src, std::size_t bytes,
                      CUstream_st* stream) override {
        check(copy_(dst, reinterpret_cast<CUdeviceptr>(device_src), bytes, stream),
              "cuMemcpyDtoHAsync", fmt::format("{} bytes for a capture", bytes));
        synchronize(stream);
    }
    void synchronize(CUstream_st* stream) override {
        check(sync_(stream), "cuStreamSynchronize", "a capture");
    }

private:
    decltype(&cuModuleLoadData) load_ = need<decltype(&cuModuleLoadData)>("cuModuleLoadData");
    decltype(&cuModuleUnload) unload_ = need<decltype(&cuModuleUnload)>("cuModuleUnload");
    decltype(&cuModuleGetFunction) get_ =
        need<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
    decltype(&cuFuncSetAttribute) set_attr_ =
        need<decltype(&cuFuncSetAttribute)>("cuFuncSetAttribute");
    decltype(&cuLaunchKernelEx) launch_ = need<decltype(&cuLaunchKernelEx)>("cuLaunchKernelEx");
    decltype(&cuMemcpyDtoHAsync) copy_ = need<decltype(&cuMemcpyDtoHAsync)>("cuMemcpyDtoHAsync");
    decltype(&cuStreamSynchronize) sync_ =
        need<decltype(&cuStreamSynchronize)>("cuStreamSynchronize");
};

} // namespace

std::shared_ptr<launch_driver> cuda_launch_driver() {
    return std::make_shared<cuda_driver>();
}

} // namespace ktune::kernel::detail
