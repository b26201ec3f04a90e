// main() for GPU tests: where no GPU exists, say so and exit 77, which CTest reports as skipped
// (SKIP_RETURN_CODE), so a CPU-only CI is green without pretending the GPU path ran.
#if KTUNE_CATCH_MAJOR == 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "ktune/core/device.hpp"

#include <cstdio>

int main(int argc, char** argv) {
    const auto q = ktune::query_devices();
    if (q.devices.empty()) {
        std::printf("SKIPPED: GPU test needs a CUDA GPU: %s\n", q.no_device_reason.c_str());
        return 77;
    }
    std::printf("GPU test on %s (%s)\n", q.devices[0].name.c_str(), q.devices[0].arch().c_str());
    return Catch::Session().run(argc, argv);
}
