// Every op's default config at every benchmark shape (bench/ops/gpu_step.sh kernels_sweep) and
// dtype: valid, in the enumerated space (the tuner lets it compete), and compiling with NVRTC
// for the arch the tuner compiles for on a Hopper GPU (device_info::arch(): sm_90; the bulk
// copies, mbarriers and clusters need nothing of sm_90a). The defaults changed after the last
// GPU run (rows over 32 KiB staged, long softmax rows over a cluster of 8): this is what keeps a
// default from failing only on the device.
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/ops/op.hpp"

#include <algorithm>
#include <set>

using namespace ktune;
using namespace ktune::ops;

TEST_CASE("default configs are valid, in the space and compile at every benchmark shape") {
    const shape2d shapes[] = {{4096, 4096},  {8192, 8192},  {16384, 4096},
                              {32768, 1024}, {4096, 32768}, {1024, 131072}};
    for (const op* o : all_ops()) {
        for (dtype t : {dtype::f32, dtype::bf16}) {
            // The source depends on cols only for the row ops (rows set the grid): compile each
            // distinct source once (NVRTC costs ~0.3 s a kernel).
            std::set<std::string> compiled;
            for (const shape2d& s : shapes) {
                const problem p{s, t};
                const config d = o->default_config(p);
                INFO(o->name() << " " << to_string(t) << " " << to_string(s) << " "
                               << d.to_string());
                std::string why;
                CHECK(o->valid(d, p, &why));
                INFO(why);
                const auto all = o->enumerate(p);
                CHECK(std::find(all.begin(), all.end(), d) != all.end());
                const launch_geometry g = o->geometry(d, p);
                CHECK(g.grid[0] >= 1u);
                CHECK(g.block[0] * g.block[1] >= 32u);
                CHECK(g.block[0] * g.block[1] <= 1024u);
                CHECK(g.shared_bytes <= 227u * 1024u);
                std::string src = o->source(d, p);
                if (!compiled.insert(src).second) continue;
                const auto r =
                    compile::nvrtc_compile({std::move(src), std::string(kernel_name), "sm_90", {}});
                INFO(r.log);
                CHECK(r.ok);
                CHECK(r.cubin.size() > 1000);
            }
        }
    }
}
