#pragma once
// What a kernel launch's callback parameters say about it. CUPTI hands a launch callback the
// API's own parameter struct (generated_cuda*_meta.h: cuLaunchKernel_params, ...); these are pure
// functions of (domain, callback id, that struct), so the metrics hook's decisions can be tested
// with synthetic structs and no GPU. Private to libktune_inject.so.
#include <cupti.h> // also the launch parameter structs (generated_cuda*_meta.h)

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ktune::inject::detail {

/// A cooperative launch (cuLaunchCooperativeKernel*, cudaLaunchCooperativeKernel*, or a
/// launch-with-attributes carrying the cooperative attribute): it cannot be replayed alone.
bool is_cooperative(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params);

/// "gx,gy,gz/bx,by,bz/smem" of a launch, or empty where the callback is not a kernel launch
/// whose parameters this knows (launches mode merges passes only across equal shapes).
std::string launch_shape(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params);

/// True when the launch goes to the legacy default stream (null or cudaStreamLegacy); false for
/// per-thread default stream launches (_ptsz), other streams, and unknown callbacks.
bool on_legacy_stream(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params);

/// Sizes of a kernel's parameters, in order, for the function a launch names: a CUfunction
/// (driver launches) or the runtime's host stub (`runtime` true). Empty where not known.
using param_sizes_fn = std::function<std::vector<std::size_t>(const void* function, bool runtime)>;

/// What work a launch does: a 64-bit hash of its parameter bytes (every kernel argument,
/// pointers included, or the packed `extra` buffer), never 0; 0 where the parameters are not
/// known. Equal hashes on one kernel and shape mean the same problem on the same buffers, which
/// is what lets launches mode merge passes of a kernel that cuBLAS runs at several problem sizes
/// on one grid (docs/perf/metrics.md#work-keys).
std::uint64_t launch_work(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params,
                          const param_sizes_fn& sizes);

/// launch_shape, followed by "/w" and launch_work in 16 hex digits where the work is known:
/// the key range_session tells samples apart by.
std::string launch_key(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params,
                       const param_sizes_fn& sizes);

/// The real param_sizes_fn: cuFuncGetParamInfo (CUDA 12.4 driver) on the launch's function,
/// through cudaGetFuncBySymbol for runtime stubs; cached per function. Empty without a driver
/// that has it. Thread-safe.
std::vector<std::size_t> kernel_param_sizes(const void* function, bool runtime);

} // namespace ktune::inject::detail
