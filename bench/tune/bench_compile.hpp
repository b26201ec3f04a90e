#pragma once
// `bench_tune compile`: NVRTC cost per candidate, one program each vs batched (CPU only).
namespace ktune::bench {
int compile_costs(char** argv, int argc);
} // namespace ktune::bench
