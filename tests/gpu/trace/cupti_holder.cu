// Another CUPTI client, for real: this program subscribes to CUPTI before CUDA initialises (as
// Nsight or a framework profiler would), then runs a kernel. Under `ktune profile`, ktune's
// injection must find the subscriber slot taken, say so, and let the program run unprofiled.
#include <cuda_runtime.h>
#include <cupti.h>

#include <cstdio>

namespace {
__global__ void answer(int* x) {
    *x = 42;
}
void CUPTIAPI ignore(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}
} // namespace

int main() {
    CUpti_SubscriberHandle h = nullptr;
    if (cuptiSubscribe(&h, ignore, nullptr) != CUPTI_SUCCESS) {
        std::puts("holder: cannot subscribe to CUPTI");
        return 1;
    }
    int* d = nullptr;
    int v = 0;
    if (cudaMalloc(&d, sizeof v) != cudaSuccess) return 1;
    answer<<<1, 1>>>(d);
    cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost);
    std::printf("holder ran: %d\n", v);
    cudaFree(d);
    cuptiUnsubscribe(h);
    return v == 42 ? 0 : 1;
}
