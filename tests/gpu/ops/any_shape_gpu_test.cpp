// Every op's default config passes the reference check on odd shapes: prime and vocabulary-size
// rows, rows of 1..3 elements, a row too long for registers (the default is the cache's last
// tier: docs/perf/kernels.md, "Any row length"). Skips without a GPU (gpu_main.cpp).
#include "catch.hpp"

#include "ops_gpu_support.hpp"

#include "ktune/ops/op.hpp"

using namespace ktune;
using namespace ktune::ops::gpu_test;

TEST_CASE("every op's default passes the reference check on odd shapes") {
    // 16 x 32001, 16 x 50257: long odd rows whose default is staged whole (tma.cuh's span).
    const ops::shape2d shapes[] = {{3000, 777}, {7, 1},      {5, 3},      {33, 32001},
                                   {9, 50257},  {3, 151936}, {2, 999983}, {101, 4093},
                                   {17, 11008}, {1, 1},      {16, 32001}, {16, 50257}};
    std::vector<job> jobs;
    for (const ops::op* o : ops::all_ops())
        for (const ops::dtype t : {ops::dtype::f32, ops::dtype::bf16})
            for (const ops::shape2d& s : shapes) {
                const ops::problem p{s, t};
                jobs.push_back({o, p, o->default_config(p)});
            }
    check_all(jobs);
}
