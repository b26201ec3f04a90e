// What a launch callback's parameter struct says about the launch (see launch_params.hpp).
#include "launch_params.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace ktune::inject::detail {

bool is_cooperative(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params) {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
            cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz)
            return true;
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
            cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
            const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
            if (p && p->config)
                for (unsigned i = 0; i < p->config->numAttrs; ++i)
                    if (p->config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE &&
                        p->config->attrs[i].value.cooperative)
                        return true;
        }
        return false;
    }
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000)
        return true;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060) {
        const auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(params);
        if (p && p->config)
            for (unsigned i = 0; i < p->config->numAttrs; ++i)
                if (p->config->attrs[i].id == cudaLaunchAttributeCooperative &&
                    p->config->attrs[i].val.cooperative)
                    return true;
    }
    return false;
}

// Grid, block and dynamic shared memory of a launch: launches mode merges passes only across
// launches of the same shape. Empty where the parameters are not known.
std::string launch_shape(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params) {
    if (!params) return {};
    auto fmt3 = [](auto gx, auto gy, auto gz, auto bx, auto by, auto bz, auto smem) {
        return std::to_string(gx) + "," + std::to_string(gy) + "," + std::to_string(gz) + "/" +
               std::to_string(bx) + "," + std::to_string(by) + "," + std::to_string(bz) + "/" +
               std::to_string(smem);
    };
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
            cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
            const auto* p = static_cast<const cuLaunchKernel_params*>(params);
            return fmt3(p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY,
                        p->blockDimZ, p->sharedMemBytes);
        }
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
            cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
            const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
            if (!p->config) return {};
            const auto& c = *p->config;
            return fmt3(c.gridDimX, c.gridDimY, c.gridDimZ, c.blockDimX, c.blockDimY, c.blockDimZ,
                        c.sharedMemBytes);
        }
        return {};
    }
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000) {
        // The ptsz struct has the same leading fields.
        const auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(params);
        return fmt3(p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x, p->blockDim.y,
                    p->blockDim.z, p->sharedMem);
    }
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060) {
        const auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(params);
        if (!p->config) return {};
        const auto& c = *p->config;
        return fmt3(c.gridDim.x, c.gridDim.y, c.gridDim.z, c.blockDim.x, c.blockDim.y, c.blockDim.z,
                    c.dynamicSmemBytes);
    }
    return {};
}

// True when the launch goes to the legacy default stream, whose order with the range
// profiler's push/pop was checked on the GPU (bench_range_probe); launches elsewhere (per-thread
// default stream, other streams) are waited for before their range closes.
bool on_legacy_stream(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params) {
    if (!params) return false;
    const auto legacy = [](const void* stream) {
        return stream == nullptr || stream == reinterpret_cast<const void*>(0x1);
    };
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel)
            return legacy(static_cast<const cuLaunchKernel_params*>(params)->hStream);
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx) {
            const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
            return p->config && legacy(p->config->hStream);
        }
        return false;
    }
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
        return legacy(static_cast<const cudaLaunchKernel_v7000_params*>(params)->stream);
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060) {
        const auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(params);
        return p->config && legacy(p->config->stream);
    }
    return false;
}

} // namespace ktune::inject::detail
