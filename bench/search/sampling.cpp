// bench_search_sampling [samples]: uniform sampling of valid configs from a synthetic
// constrained space of ~10^9 Cartesian points (divisibility and product constraints, as a
// GEMM's tiles have). Prints the count time, the sampling rate and the size of the counting
// tables, which depend on the constraint structure, not on the space size.
#include "ktune/tune/space.hpp"

#include <fmt/format.h>

#include <chrono>
#include <string>

int main(int argc, char** argv) {
    using namespace ktune::tune;
    const std::size_t samples = argc > 1 ? std::stoul(argv[1]) : 1000;
    space s;
    s.add(axis::pow2("block_x", 1, 1024))
        .add(axis::pow2("block_y", 1, 1024))
        .add(axis::list("tile_x", std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}))
        .add(axis::list("tile_y", std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}))
        .add(axis::pow2("vector", 1, 16))
        .add(axis::list("stages", std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}))
        .add(axis::pow2("split_k", 1, 64))
        .add(axis::boolean("use_shmem"))
        .add(axis::enumeration("layout", {"row", "col", "tiled"}))
        .add(axis::list("unroll", std::vector<std::int64_t>{1, 2, 4, 8, 16}))
        .add(axis::list("prefetch", std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    s.add(product_at_most({"block_x", "block_y"}, 1024, "threads per block <= 1024"))
        .add(product_at_least({"block_x", "block_y"}, 64, "at least two warps"))
        .add(divides_constant("tile_x", 4096))
        .add(divides_constant("tile_y", 4096))
        .add(divides("vector", "tile_x"))
        .add(divides("unroll", "split_k"))
        .add(product_at_most({"prefetch", "unroll"}, 16, "prefetch x unroll <= 16"))
        .add(resource_at_most(
            {"block_x", "block_y", "tile_x", "tile_y", "stages", "use_shmem"},
            [](const param_view& v) {
                return v.b(5) ? 4.0 * v.d(0) * v.d(1) * v.d(2) * v.d(3) * v.d(4) : 0.0;
            },
            100.0 * 1024, "shared memory <= 100 KiB"));
    using clk = std::chrono::steady_clock;
    const auto t0 = clk::now();
    const auto valid = s.valid_count();
    const auto t1 = clk::now();
    rng r(1);
    std::uint64_t check = 0;
    for (std::size_t i = 0; i < samples; ++i)
        check += s.code(s.sample(r));
    const auto t2 = clk::now();
    const auto ms = [](auto a, auto b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    fmt::print("cartesian {} ({:.2e}), valid {} ({:.3g} %)\n", s.cartesian_size(),
               double(s.cartesian_size()), valid,
               100.0 * double(valid) / double(s.cartesian_size()));
    fmt::print("count (first use) {:.1f} ms; {} uniform samples {:.1f} ms ({:.1f} us each)\n",
               ms(t0, t1), samples, ms(t1, t2), 1000.0 * ms(t1, t2) / double(samples));
    fmt::print("checksum {}\n", check);
}
