#include "catch.hpp"

#include "ktune/core/clocks.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/gpu_peaks.hpp"

#include <cuda_runtime_api.h>

TEST_CASE("device identity is complete on a real GPU") {
    const auto q = ktune::query_devices();
    REQUIRE_FALSE(q.devices.empty());
    const auto& d = q.devices.front();
    CHECK(d.sm_count > 0);
    CHECK(d.l2_bytes > 0);
    CHECK(d.memory_bytes > (1LL << 30));
    CHECK(d.memory_bus_bits > 0);
    CHECK(d.memory_total_bytes >= d.memory_bytes); // NVML's physical size, as nvidia-smi shows
    CHECK(d.memory_clock_khz > 0);
    CHECK(d.uuid.size() == 40);
    CHECK(q.versions.driver_api >= 12000);
    CHECK_FALSE(q.versions.driver.empty()); // NVML is present wherever the driver is
    CHECK(q.versions.driver_major() >= 525);
    if (auto p = ktune::find_gpu_peaks(d.name)) CHECK(p->arch == d.arch());
    auto c = ktune::read_clocks(d);
    REQUIRE(c.has_value());
    CHECK(c->memory_mhz > 0);
}

TEST_CASE("RAII handles allocate and release on the device") {
    ktune::device_buffer buf(1 << 20);
    ktune::cuda_stream s;
    ktune::cuda_event a, b;
    REQUIRE(buf.data() != nullptr);
    REQUIRE(cudaMemsetAsync(buf.data(), 0, buf.size(), s.get()) == cudaSuccess);
    REQUIRE(cudaEventRecord(a.get(), s.get()) == cudaSuccess);
    REQUIRE(cudaEventRecord(b.get(), s.get()) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s.get()) == cudaSuccess);
    float ms = -1;
    REQUIRE(cudaEventElapsedTime(&ms, a.get(), b.get()) == cudaSuccess);
    CHECK(ms >= 0);
}
