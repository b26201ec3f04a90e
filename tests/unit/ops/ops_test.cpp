// The built-in ops on the CPU: registry, spaces and constraints, and that every op's generated
// source compiles with NVRTC for Hopper (NVRTC needs no GPU).
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/measure/compile.hpp"
#include "ktune/ops/op.hpp"

#include <set>

using namespace ktune;
using namespace ktune::ops;

TEST_CASE("registry lists the four built-ins and finds them by name") {
    std::set<std::string> names;
    for (const op* o : all_ops())
        names.insert(std::string(o->name()));
    CHECK(names ==
          std::set<std::string>{"softmax", "layernorm", "rowsum", "transpose", "scale_bias_"});
    CHECK(find_op("softmax").name() == "softmax");
    CHECK_THROWS_AS(find_op("gemm"), ktune::error);
    try {
        (void)find_op("gemm");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == error_kind::not_found);
        CHECK(std::string(e.what()).find("transpose") != std::string::npos);
    }
}

TEST_CASE("shapes and dtypes parse, bad text names the expected form") {
    CHECK(parse_shape("8192x4096") == shape2d{8192, 4096});
    CHECK(parse_shape("32,1024") == shape2d{32, 1024});
    CHECK(to_string(shape2d{3, 5}) == "3x5");
    CHECK_THROWS_AS(parse_shape("8192"), ktune::error);
    CHECK_THROWS_AS(parse_shape("0x5"), ktune::error);
    CHECK_THROWS_AS(parse_shape("4x5x"), ktune::error);
    CHECK(parse_dtype("bf16") == dtype::bf16);
    CHECK(parse_dtype("float32") == dtype::f32);
    CHECK_THROWS_AS(parse_dtype("fp8"), ktune::error);
}

TEST_CASE("constraints prune before compiling") {
    const op& sm = find_op("softmax");
    const problem p{{4096, 4096}, dtype::f32};
    std::string why;
    config c = sm.default_config(p);
    REQUIRE(sm.valid(c, p, &why));
    c.set("vec", std::int64_t{8}); // 32 bytes of fp32: too wide
    CHECK_FALSE(sm.valid(c, p, &why));
    CHECK(why.find("16 bytes") != std::string::npos);
    c.set("vec", std::int64_t{4});
    c.set("threads_per_row", std::int64_t{1024});
    c.set("rows_per_block", std::int64_t{2});
    CHECK_FALSE(sm.valid(c, p, &why));
    // A 131072-wide row cannot live in 256 threads' registers.
    const problem wide{{1024, 131072}, dtype::f32};
    config d = sm.default_config(wide);
    CHECK(sm.valid(d, wide));
    CHECK(d.get<bool>("cache_row") == false);
}

TEST_CASE("every op enumerates a non-trivial valid space containing its default") {
    for (const op* o : all_ops()) {
        for (dtype t : {dtype::f32, dtype::bf16}) {
            const problem p{{8192, 8192}, t};
            INFO(o->name() << " " << to_string(t));
            const auto all = o->enumerate(p);
            CHECK(all.size() >= 40);
            const config d = o->default_config(p);
            CHECK(std::find(all.begin(), all.end(), d) != all.end());
            for (const auto& c : all)
                CHECK(o->valid(c, p));
            CHECK(o->bytes(p) > 0);
        }
    }
}

TEST_CASE("byte models count each input once and each output once") {
    const problem p{{1024, 2048}, dtype::bf16};
    CHECK(find_op("softmax").bytes(p) == Approx(2.0 * 1024 * 2048 * 2));
    CHECK(find_op("transpose").bytes(p) == Approx(2.0 * 1024 * 2048 * 2));
    CHECK(find_op("rowsum").bytes(p) == Approx((1024.0 * 2048 + 1024) * 2));
    CHECK(find_op("layernorm").bytes(p) == Approx((2.0 * 1024 * 2048 + 2 * 2048) * 2));
}

TEST_CASE("shape buckets: rows to a power of two, exact cols for row ops") {
    CHECK(find_op("softmax").bucket({3000, 1000}) == shape2d{4096, 1000});
    CHECK(find_op("transpose").bucket({3000, 1000}) == shape2d{4096, 1024});
}

TEST_CASE("generated sources differ per config and compile with NVRTC for sm_90") {
    for (const op* o : all_ops()) {
        for (dtype t : {dtype::f32, dtype::bf16}) {
            const problem p{{256, 1024}, t};
            INFO(o->name() << " " << to_string(t));
            const auto all = o->enumerate(p);
            REQUIRE(all.size() >= 2);
            CHECK(o->source(all.front(), p) != o->source(all.back(), p));
            // Default, first and last configs cover both code paths of the row ops.
            for (const config& c : {o->default_config(p), all.front(), all.back()}) {
                INFO(c.to_string());
                measure::compile_request rq{o->source(c, p), std::string(kernel_name), "sm_90", {}};
                const auto r = measure::nvrtc_compile(rq);
                CHECK(r.ok);
                CHECK(r.lowered_name == kernel_name);
                CHECK(r.cubin.size() > 1000);
            }
            measure::compile_request ref{
                o->reference_source(p), std::string(kernel_name), "sm_90", {}};
            CHECK(measure::nvrtc_compile(ref).ok);
        }
    }
}
