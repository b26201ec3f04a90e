#pragma once
// What a kernel launch's callback parameters say about it. CUPTI hands a launch callback the
// API's own parameter struct (generated_cuda*_meta.h: cuLaunchKernel_params, ...); these are pure
// functions of (domain, callback id, that struct), so the metrics hook's decisions can be tested
// with synthetic structs and no GPU. Private to libktune_inject.so.
#include <cupti.h> // also the launch parameter structs (generated_cuda*_meta.h)

#include <string>

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

} // namespace ktune::inject::detail
