// Every op's default config is valid at any shape the op accepts: the default is the cache's
// last tier, so an application that misses the cache launches it (docs/perf/kernels.md, "Any
// row length"). Random shapes (fixed seed, log-uniform 1..1e5 rows, 1..1e6 cols) plus primes,
// vocabulary sizes and tiny rows; each default must be valid, take its values from the op's
// axes and fit the launch limits.
#include "catch.hpp"

#include "ktune/ops/op.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace ktune;
using namespace ktune::ops;

namespace {

std::vector<shape2d> property_shapes() {
    std::vector<shape2d> s;
    const std::int64_t fixed_cols[] = {1,    2,     3,     5,     7,      31,     777,
                                       4093, 32000, 32001, 50257, 128256, 151936, 4096,
                                       5120, 8192,  11008, 14336, 65537,  999983, 1000000};
    for (const std::int64_t c : fixed_cols)
        for (const std::int64_t r : {std::int64_t{1}, std::int64_t{3}, std::int64_t{3000},
                                     std::int64_t{99991}, std::int64_t{100000}})
            s.push_back({r, c});
    std::mt19937 rng(20261125u); // fixed: the same shapes on every run
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int i = 0; i < 400; ++i) {
        const auto rows = static_cast<std::int64_t>(std::pow(1e5, u(rng)));
        const auto cols = static_cast<std::int64_t>(std::pow(1e6, u(rng)));
        s.push_back({std::max<std::int64_t>(1, rows), std::max<std::int64_t>(1, cols)});
    }
    return s;
}

bool value_in_axes(const op& o, const config& c, std::string* bad) {
    for (const param_axis& a : o.axes()) {
        const param_value* v = c.find(a.name);
        if (!v || std::find(a.values.begin(), a.values.end(), *v) == a.values.end()) {
            *bad = a.name;
            return false;
        }
    }
    return true;
}

} // namespace

TEST_CASE("every op's default is valid for any shape (random, prime and tiny rows)") {
    const auto shapes = property_shapes();
    int checked = 0;
    for (const op* o : all_ops()) {
        for (const dtype t : {dtype::f32, dtype::bf16}) {
            for (const shape2d& s : shapes) {
                const problem p{s, t};
                const config d = o->default_config(p);
                std::string why;
                const bool ok = o->valid(d, p, &why);
                if (!ok) {
                    INFO(o->name() << " " << to_string(t) << " " << to_string(s) << " "
                                   << d.to_string() << ": " << why);
                    CHECK(ok);
                    continue;
                }
                std::string axis;
                const bool in_axes = value_in_axes(*o, d, &axis);
                const launch_geometry g = o->geometry(d, p);
                const bool fits =
                    g.grid[0] >= 1 && g.grid[0] <= 0x7fffffffu && g.grid[1] <= 65535 &&
                    g.grid[2] <= 65535 && g.block[0] * g.block[1] * g.block[2] >= 32 &&
                    g.block[0] * g.block[1] * g.block[2] <= 1024 && g.shared_bytes <= 227u * 1024u;
                if (!in_axes || !fits) {
                    INFO(o->name()
                         << " " << to_string(t) << " " << to_string(s) << " " << d.to_string()
                         << " axis " << axis << " grid " << g.grid[0] << "x" << g.grid[1]
                         << " block " << g.block[0] << " smem " << g.shared_bytes);
                    CHECK(in_axes);
                    CHECK(fits);
                }
                ++checked;
            }
        }
    }
    CHECK(checked == static_cast<int>(all_ops().size() * 2 * shapes.size()));
}

TEST_CASE("every op's space keeps vectors wider than one element for rows of odd length") {
    // docs/perf/kernels.md#rows-of-odd-length: a tune of a vocabulary-size row must not be left
    // with scalar loads only (the GPU test runs these configs against the reference).
    for (const op* o : all_ops())
        for (const dtype t : {dtype::f32, dtype::bf16})
            for (const shape2d s : {shape2d{40, 777}, shape2d{40, 50257}, shape2d{4096, 32001}}) {
                const problem p{s, t};
                std::size_t ragged = 0;
                for (const config& c : o->enumerate(p))
                    if (s.cols % c.get<std::int64_t>("vec") != 0) {
                        ++ragged;
                        const auto src = o->source(c, p);
                        CHECK(src.find("#define RAGGED 1") != std::string::npos);
                    }
                INFO(o->name() << " " << to_string(t) << " " << to_string(s));
                CHECK(ragged >= 2);
            }
}

TEST_CASE("softmax and layernorm stage rows that vec does not divide where bulk copies can") {
    // tma.cuh's span: one row per block, no cluster, the row within shared memory, the tensor
    // ending on a 16-byte boundary (docs/perf/kernels.md#rows-of-odd-length).
    for (const char* name : {"softmax", "layernorm"}) {
        const op& o = find_op(name);
        const auto staged_ragged = [&](const problem& p) {
            std::size_t n = 0;
            for (const config& c : o.enumerate(p))
                if (c.get<std::string>("stage") == "smem_tma" &&
                    p.shape.cols % c.get<std::int64_t>("vec") != 0) {
                    ++n;
                    CHECK(c.get<std::int64_t>("cluster") == 1);
                    CHECK(c.get<std::int64_t>("rows_per_block") == 1);
                    CHECK(o.geometry(c, p).shared_bytes >=
                          static_cast<unsigned>((p.shape.cols + 6) / 8 * 16));
                }
            return n;
        };
        INFO(name);
        CHECK(staged_ragged({{4096, 32001}, dtype::bf16}) > 0);
        CHECK(staged_ragged({{4096, 50257}, dtype::f32}) > 0);
        CHECK(staged_ragged({{4095, 32001}, dtype::bf16}) == 0); // ends mid 16-byte unit
        CHECK(staged_ragged({{64, 151937}, dtype::bf16}) == 0);  // 297 KiB: over shared memory
    }
    // rowsum's streaming form takes such rows; its staged form does not.
    CHECK_FALSE(find_op("rowsum").valid(config{{"threads_per_row", std::int64_t{512}},
                                               {"rows_per_block", std::int64_t{1}},
                                               {"vec", std::int64_t{8}},
                                               {"unroll", std::int64_t{1}},
                                               {"stage", std::string("smem_tma")}},
                                        {{4096, 32001}, dtype::bf16}));
}

TEST_CASE("long rows that vec does not divide default to the staged span where it fits") {
    // docs/perf/kernels.md#rows-of-odd-length: softmax and layernorm stage such rows whole.
    for (const char* name : {"softmax", "layernorm"})
        for (const shape2d s : {shape2d{4096, 32001}, shape2d{4096, 50257}}) {
            const problem p{s, dtype::bf16};
            const config d = find_op(name).default_config(p);
            INFO(name << " " << to_string(s) << " " << d.to_string());
            CHECK(d.get<std::string>("stage") == "smem_tma");
            CHECK(d.get<std::int64_t>("cluster") == 1);
            CHECK(s.cols % d.get<std::int64_t>("vec") != 0);
        }
}
