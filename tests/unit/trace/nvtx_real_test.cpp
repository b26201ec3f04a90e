// The real NVTX library (nvtx3, header-only) into ktune's hooks, no GPU: NVTX's own loader finds
// the static injection (nvtx_static_injection.cpp) and ktune fills NVTX's callback tables.
#include "catch.hpp"
#include "fake_cupti.hpp"
#include "trace_collector.hpp"

#include "ktune/trace/session.hpp"
#include "ktune/trace/trace_file.hpp"

#include <nvtx3/nvToolsExt.h>

#include <filesystem>
#include <unistd.h>

using namespace ktune;
using namespace ktune::trace;

TEST_CASE("nvtxRangePushA/Pop, domain ranges and marks reach ktune through NVTX's loader") {
    const auto path = (std::filesystem::temp_directory_path() /
                       ("ktune_nvtx_real_" + std::to_string(::getpid()) + ".ktrace"))
                          .string();
    auto owner = std::make_unique<test::fake_cupti>();
    auto* fake = owner.get();
    session_options o;
    o.output = path;
    session s(o, std::move(owner));
    REQUIRE(s.start());

    CHECK(nvtxRangePushA("outer") == 0); // the level of the new range
    nvtxDomainHandle_t d = nvtxDomainCreateA("ktune_test");
    REQUIRE(d != nullptr);
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = nvtxDomainRegisterStringA(d, "inner");
    CHECK(nvtxDomainRangePushEx(d, &a) == 1);
    fake->launch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 7);
    nvtxDomainRangePop(d);
    nvtxMarkA("mark");
    const nvtxRangeId_t id = nvtxRangeStartA("async");
    nvtxRangePop();
    nvtxRangeEnd(id);
    fake->add(test::make_kernel("_Z1kv", 10, 20, 7));
    s.stop();
    REQUIRE(s.save());

    trace_reader r(path);
    test::trace_collector c;
    REQUIRE(r.read(c).complete);
    std::vector<std::string> names;
    for (const auto& n : c.nvtx)
        names.push_back(r.string(n.name_id).mangled);
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"async", "inner", "mark", "outer"});
    REQUIRE(c.kernels.size() == 1);
    REQUIRE(c.kernels[0].nvtx_path != 0);
    CHECK(r.string(c.kernels[0].nvtx_path - 1).mangled == "outer/inner");
    CHECK(r.string(c.kernels[0].nvtx_range - 1).mangled == "inner");
    std::filesystem::remove(path);
}
