// A downstream program that only knows find_package(ktune).
#include <ktune/ktune.hpp>

#include <cstdio>

int main() {
    const auto p = ktune::find_gpu_peaks("NVIDIA H200");
    if (!p) return 1;
    std::printf("ktune %.*s: H200 DRAM %.0f GB/s\n", static_cast<int>(ktune::version().size()),
                ktune::version().data(), p->dram_gbs);
    return 0;
}
