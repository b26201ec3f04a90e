// Problem dimensions, element types and device limits of user kernels.
#include "catch.hpp"

#include "ktune/kernel/limits.hpp"
#include "ktune/kernel/problem.hpp"

using namespace ktune::kernel;

TEST_CASE("--problem text parses into ordered dimensions") {
    const problem p = parse_problem("M=4096, N=2048 ,K=64");
    CHECK(p.to_string() == "M=4096,N=2048,K=64");
    CHECK(p.at("K") == 64);
    CHECK(p.find("Q") == nullptr);
    CHECK_THROWS_AS(p.at("Q"), ktune::error);
}

TEST_CASE("bad --problem text is an input error naming the part") {
    auto message = [](const char* t) {
        try {
            (void)parse_problem(t);
        } catch (const ktune::error& e) {
            CHECK(e.kind() == ktune::error_kind::input);
            return std::string(e.what());
        }
        FAIL("accepted " << t);
        return std::string();
    };
    CHECK(message("").find("empty") != std::string::npos);
    CHECK(message("M=1,,N=2").find("empty part") != std::string::npos);
    CHECK(message("M=1,N").find("'N' has no '=value'") != std::string::npos);
    CHECK(message("M=x").find("not an integer") != std::string::npos);
    CHECK(message("M=12abc").find("not an integer") != std::string::npos);
    CHECK(message("M=0").find("must be positive") != std::string::npos);
    CHECK(message("M=99999999999999999999").find("beyond int64") != std::string::npos);
    CHECK(message("M=1,M=2").find("twice") != std::string::npos);
    CHECK(message("1M=4").find("not a dimension name") != std::string::npos);
}

TEST_CASE("element types have names, sizes and device spellings") {
    CHECK(size_of(element_type::fp32) == 4);
    CHECK(size_of(element_type::fp16) == 2);
    CHECK(size_of(element_type::bf16) == 2);
    CHECK(size_of(element_type::fp8_e4m3) == 1);
    CHECK(size_of(element_type::int8) == 1);
    CHECK(size_of(element_type::int32) == 4);
    CHECK(cuda_type(element_type::bf16) == "__nv_bfloat16");
    for (auto t : {element_type::fp64, element_type::fp32, element_type::fp16, element_type::bf16,
                   element_type::fp8_e4m3, element_type::fp8_e5m2, element_type::int64,
                   element_type::int32, element_type::int8, element_type::uint8})
        CHECK(parse_element_type(to_string(t)) == t);
    CHECK(parse_element_type("half") == element_type::fp16);
    CHECK_FALSE(parse_element_type("fp33").has_value());
}

TEST_CASE("device limits by arch are bound under their names") {
    const auto h = device_limits::for_arch("sm_90a");
    CHECK(h.max_shared_bytes_per_block == 232448);
    CHECK(device_limits::for_arch("sm_80").max_cluster_size == 0);
    bindings b;
    h.bind(b);
    CHECK(b.size() == device_limits::names().size());
    CHECK(b.at("max_threads_per_block") == 1024);
    CHECK(b.at("sm_count") == 132);
    CHECK_THROWS_AS(device_limits::for_arch("sm_42"), ktune::error);
}
