// The run-time loader behind cuBLASLt, NVRTC and XGBoost (core/shared_library.hpp), and the
// NVRTC and cuBLASLt loaders themselves (soname and every entry point, no GPU needed): the
// compile tests reach NVRTC only through it.
#include "catch.hpp"

#include "core/cublaslt_api.hpp"
#include "core/nvrtc_api.hpp"
#include "core/shared_library.hpp"
#include "ktune/core/error.hpp"

#include <string>
#include <unistd.h>

using ktune::detail::shared_library;

TEST_CASE("shared_library names the library, what was tried and the hint when none loads") {
    try {
        (void)shared_library::open({"libktune_absent_a.so.1", "libktune_absent_b.so"},
                                   "The absent library", "Install it.");
        FAIL("no throw");
    } catch (const ktune::error& e) {
        const std::string m = e.what();
        CHECK(e.kind() == ktune::error_kind::unsupported);
        CHECK(m.find("The absent library") != std::string::npos);
        CHECK(m.find("libktune_absent_a.so.1, libktune_absent_b.so") != std::string::npos);
        CHECK(m.find("Install it.") != std::string::npos);
    }
}

TEST_CASE("shared_library takes the first soname that loads and resolves its symbols") {
    const auto lib = shared_library::open({"libktune_absent.so.1", "libc.so.6"}, "libc", "");
    CHECK(lib.soname() == "libc.so.6");
    auto* pid = lib.symbol<decltype(&::getpid)>("getpid");
    REQUIRE(pid != nullptr);
    CHECK(pid() == ::getpid());
    try {
        (void)lib.raw_symbol("ktune_no_such_symbol");
        FAIL("no throw");
    } catch (const ktune::error& e) {
        const std::string m = e.what();
        CHECK(e.kind() == ktune::error_kind::unsupported);
        CHECK(m.find("ktune_no_such_symbol") != std::string::npos);
        CHECK(m.find("libc.so.6") != std::string::npos);
    }
}

TEST_CASE("NVRTC is opened on first use and reports the toolkit's version") {
    const auto& rtc = ktune::detail::nvrtc();
    int major = 0, minor = 0;
    REQUIRE(rtc.nvrtcVersion(&major, &minor) == NVRTC_SUCCESS);
    CHECK(major >= 12);
    CHECK(&rtc == &ktune::detail::nvrtc()); // once per process
}

TEST_CASE("cuBLASLt is opened on first use with every entry point ktune calls") {
    const auto& lt = ktune::detail::cublaslt();
    CHECK(lt.cublasLtMatmul != nullptr);
    CHECK(lt.cublasLtMatmulAlgoGetHeuristic != nullptr);
    // A call that needs no GPU: the library answers through the resolved pointer.
    CHECK(std::string(lt.cublasLtGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED)) ==
          "CUBLAS_STATUS_NOT_SUPPORTED");
}
