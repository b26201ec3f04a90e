#pragma once
// `bench_tune compile`: NVRTC cost per candidate, one program each vs batched (CPU only).
namespace ktune::bench {
int compile_costs(char** argv, int argc);
/// Threads vs compile-server processes: throughput and CPU per candidate (CPU only).
int compile_scaling(char** argv, int argc);
} // namespace ktune::bench
