#include "ktune/measure/l2_flush.hpp"

#include "core/driver_api.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/error.hpp"

#include <cuda.h>

#include <algorithm>

namespace ktune::measure {
namespace {

// `nvcc -arch=compute_75 -ptx -O3` (CUDA 13.0) of
//   extern "C" __global__ void ktune_l2_sweep(const uint4* __restrict__ p,
//                                             unsigned long long n, unsigned* sink) {
//       unsigned acc = 0;
//       for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
//            i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
//           const uint4 v = __ldcg(p + i);
//           acc ^= v.x ^ v.y ^ v.z ^ v.w;
//       }
//       if (acc == 0x9e3779b9u) *sink = acc;   // keeps the loads; all but never true
//   }
// with `.version` lowered to 7.0 (nothing newer is used) so drivers from CUDA 11 on load it.
// `ld.global.cg` caches in L2 only: the sweep occupies L2, not L1. The scratch is never written
// (no memset): dirty scratch lines would stay in L2 and be written back inside the range.
constexpr const char* k_sweep_ptx = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry ktune_l2_sweep(
	.param .u64 ktune_l2_sweep_param_0,
	.param .u64 ktune_l2_sweep_param_1,
	.param .u64 ktune_l2_sweep_param_2
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<17>;
	.reg .b64 	%rd<16>;
	ld.param.u64 	%rd7, [ktune_l2_sweep_param_0];
	ld.param.u64 	%rd8, [ktune_l2_sweep_param_1];
	ld.param.u64 	%rd9, [ktune_l2_sweep_param_2];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	cvt.u64.u32 	%rd1, %r4;
	mul.wide.u32 	%rd10, %r3, %r4;
	mov.u32 	%r5, %tid.x;
	cvt.u64.u32 	%rd11, %r5;
	add.s64 	%rd15, %rd10, %rd11;
	setp.ge.u64 	%p1, %rd15, %rd8;
	@%p1 bra 	$L__BB0_5;
	mov.u32 	%r7, %nctaid.x;
	cvt.u64.u32 	%rd12, %r7;
	mul.lo.s64 	%rd3, %rd12, %rd1;
	cvta.to.global.u64 	%rd4, %rd9;
	mov.u32 	%r16, 0;
$L__BB0_2:
	shl.b64 	%rd14, %rd15, 4;
	add.s64 	%rd13, %rd7, %rd14;
	ld.global.cg.v4.u32 {%r8,%r9,%r10,%r11}, [%rd13];
	xor.b32  	%r12, %r9, %r16;
	xor.b32  	%r13, %r12, %r8;
	xor.b32  	%r14, %r13, %r10;
	xor.b32  	%r16, %r14, %r11;
	add.s64 	%rd15, %rd15, %rd3;
	setp.lt.u64 	%p2, %rd15, %rd8;
	@%p2 bra 	$L__BB0_2;
	setp.ne.s32 	%p3, %r16, -1640531527;
	@%p3 bra 	$L__BB0_5;
	mov.u32 	%r15, -1640531527;
	st.global.u32 	[%rd4], %r15;
$L__BB0_5:
	ret;
}
)";

constexpr int k_threads = 256;

template <class Fn>
Fn need(const char* symbol) {
    auto f = ktune::detail::driver_fn<Fn>(symbol);
    if (!f)
        throw error(error_kind::no_device,
                    std::string("L2 flush: the CUDA driver has no ") + symbol);
    return f;
}

} // namespace

struct l2_flusher::driver {
    decltype(&cuCtxGetDevice) ctx_get_device = need<decltype(&cuCtxGetDevice)>("cuCtxGetDevice");
    decltype(&cuDeviceGetAttribute) attribute =
        need<decltype(&cuDeviceGetAttribute)>("cuDeviceGetAttribute");
    decltype(&cuMemAlloc) alloc = need<decltype(&cuMemAlloc)>("cuMemAlloc");
    decltype(&cuMemFree) free = need<decltype(&cuMemFree)>("cuMemFree");
    decltype(&cuModuleLoadData) load = need<decltype(&cuModuleLoadData)>("cuModuleLoadData");
    decltype(&cuModuleUnload) unload = need<decltype(&cuModuleUnload)>("cuModuleUnload");
    decltype(&cuModuleGetFunction) function =
        need<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
    decltype(&cuLaunchKernel) launch = need<decltype(&cuLaunchKernel)>("cuLaunchKernel");
    decltype(&cuCtxSynchronize) sync = need<decltype(&cuCtxSynchronize)>("cuCtxSynchronize");
    decltype(&cuStreamCreate) stream_create = need<decltype(&cuStreamCreate)>("cuStreamCreate");
    decltype(&cuStreamDestroy) stream_destroy = need<decltype(&cuStreamDestroy)>("cuStreamDestroy");
    decltype(&cuStreamSynchronize) stream_sync =
        need<decltype(&cuStreamSynchronize)>("cuStreamSynchronize");
    decltype(&cuThreadExchangeStreamCaptureMode) capture_mode =
        need<decltype(&cuThreadExchangeStreamCaptureMode)>("cuThreadExchangeStreamCaptureMode");
};

namespace {
// Relaxed stream-capture mode for this thread while the flush runs: a program capturing a CUDA
// graph on another stream must not see its capture invalidated by ktune's synchronisation.
class relaxed_capture {
public:
    explicit relaxed_capture(decltype(&cuThreadExchangeStreamCaptureMode) exchange)
        : exchange_(exchange) {
        ok_ = exchange_(&mode_) == CUDA_SUCCESS;
    }
    ~relaxed_capture() {
        if (ok_) exchange_(&mode_);
    }
    relaxed_capture(const relaxed_capture&) = delete;
    relaxed_capture& operator=(const relaxed_capture&) = delete;

private:
    decltype(&cuThreadExchangeStreamCaptureMode) exchange_;
    CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
    bool ok_ = false;
};
} // namespace

l2_flusher::l2_flusher() : d_(std::make_unique<driver>()) {
    try {
        CUdevice dev = 0;
        if (d_->ctx_get_device(&dev) != CUDA_SUCCESS)
            throw error(error_kind::no_device, "L2 flush: no current CUDA context");
        int l2 = 0, sms = 0;
        KTUNE_CU_CALL(d_->attribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev));
        KTUNE_CU_CALL(d_->attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
        // Twice the L2: its replacement is not strict LRU, one L2's worth may leave lines behind.
        bytes_ = 2 * static_cast<std::size_t>(std::max(l2, 1 << 20));
        blocks_ = 8 * std::max(sms, 1);
        CUmodule m = nullptr;
        KTUNE_CU_CALL(d_->load(&m, k_sweep_ptx));
        module_ = m;
        CUfunction f = nullptr;
        KTUNE_CU_CALL(d_->function(&f, m, "ktune_l2_sweep"));
        function_ = f;
        CUstream st = nullptr;
        KTUNE_CU_CALL(d_->stream_create(&st, CU_STREAM_NON_BLOCKING));
        stream_ = st;
        CUdeviceptr p = 0;
        KTUNE_CU_CALL(d_->alloc(&p, bytes_));
        scratch_ = p;
    } catch (...) {
        release();
        throw;
    }
}

l2_flusher::~l2_flusher() {
    release();
}

void l2_flusher::release() noexcept {
    if (scratch_) KTUNE_CU_CALL_NOEXCEPT(d_->free(static_cast<CUdeviceptr>(scratch_)));
    if (module_) KTUNE_CU_CALL_NOEXCEPT(d_->unload(static_cast<CUmodule>(module_)));
    if (stream_) KTUNE_CU_CALL_NOEXCEPT(d_->stream_destroy(static_cast<CUstream>(stream_)));
    scratch_ = 0;
    module_ = stream_ = nullptr;
}

void l2_flusher::flush() {
    const relaxed_capture relaxed(d_->capture_mode);
    // Earlier work first: a kernel still running during the sweep could leave dirty lines.
    KTUNE_CU_CALL(d_->sync());
    // A stream of its own, non-blocking: the NULL stream would join a stream being captured.
    enqueue(stream_);
    KTUNE_CU_CALL(d_->stream_sync(static_cast<CUstream>(stream_)));
}

void l2_flusher::enqueue(void* stream) {
    CUdeviceptr p = scratch_;
    unsigned long long n = bytes_ / 16;
    CUdeviceptr sink = scratch_; // written only if the xor of garbage hits the magic value
    void* args[] = {&p, &n, &sink};
    KTUNE_CU_CALL(d_->launch(static_cast<CUfunction>(function_), static_cast<unsigned>(blocks_), 1,
                             1, k_threads, 1, 1, 0, static_cast<CUstream>(stream), args, nullptr));
}

} // namespace ktune::measure
