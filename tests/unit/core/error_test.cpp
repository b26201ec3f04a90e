#include "catch.hpp"

#include "core/check_private.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/error.hpp"

#include <cuda_runtime_api.h>

#include <string>

TEST_CASE("error carries its kind and a stable kind name") {
    const ktune::error e(ktune::error_kind::input, "bad.json:3: expected a number");
    CHECK(e.kind() == ktune::error_kind::input);
    CHECK(std::string(e.what()) == "bad.json:3: expected a number");
    CHECK(ktune::to_string(ktune::error_kind::no_device) == "no_device");
    CHECK(ktune::to_string(ktune::error_kind::nvrtc) == "nvrtc");
}

TEST_CASE("KTUNE_CUDA_CALL names the call, file:line and the CUDA error") {
    try {
        KTUNE_CUDA_CALL(cudaErrorMemoryAllocation);
        FAIL("no throw");
    } catch (const ktune::error& e) {
        const std::string m = e.what();
        CHECK(e.kind() == ktune::error_kind::cuda);
        CHECK(m.find("error_test.cpp:") != std::string::npos);
        CHECK(m.find("cudaErrorMemoryAllocation") != std::string::npos);
        CHECK(m.find("KTUNE_CUDA_CALL") == std::string::npos); // the call, not the macro
    }
    KTUNE_CUDA_CALL(cudaSuccess); // success is silent
}

TEST_CASE("a missing driver is the no_device kind, not a CUDA fault") {
    try {
        KTUNE_CUDA_CALL(cudaErrorNoDevice);
        FAIL("no throw");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::no_device);
    }
}

TEST_CASE("KTUNE_NVRTC_CALL attaches the compile log of a failing program") {
    const auto& rtc = ktune::detail::nvrtc(); // NVRTC is opened at run time (nvrtc_api.hpp)
    nvrtcProgram prog = nullptr;
    REQUIRE(rtc.nvrtcCreateProgram(&prog, "__global__ void k() { undeclared_thing(); }", "bad.cu",
                                   0, nullptr, nullptr) == NVRTC_SUCCESS);
    const char* opts[] = {"--gpu-architecture=compute_90"};
    try {
        KTUNE_NVRTC_CALL(rtc.nvrtcCompileProgram(prog, 1, opts), prog);
        FAIL("no throw");
    } catch (const ktune::error& e) {
        const std::string m = e.what();
        CHECK(e.kind() == ktune::error_kind::nvrtc);
        CHECK(m.find("NVRTC_ERROR_COMPILATION") != std::string::npos);
        CHECK(m.find("undeclared_thing") != std::string::npos);
    }
    rtc.nvrtcDestroyProgram(&prog);
}

TEST_CASE("KTUNE_CUPTI_CALL_NOEXCEPT logs and reports failure instead of throwing") {
    CHECK_FALSE(KTUNE_CUPTI_CALL_NOEXCEPT(CUPTI_ERROR_INVALID_PARAMETER));
    CHECK(KTUNE_CUPTI_CALL_NOEXCEPT(CUPTI_SUCCESS));
    CHECK_THROWS_AS([] { KTUNE_CUPTI_CALL(CUPTI_ERROR_INVALID_PARAMETER); }(), ktune::error);
}
