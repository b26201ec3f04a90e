#pragma once
// Workloads of bench/profile (implemented in kernels.cu).
bool bench_init();
void bench_tiny_launches(int n);  ///< n launches of a <<<4,256>>> kernel
void bench_heavy_launches(int n); ///< n launches of a compute-bound kernel (~ms each)
void bench_long_launches(int n);  ///< n launches of a one-block kernel that spins ~10 us
bool bench_sync();
void* bench_make_graph(int nodes); ///< a CUDA graph of `nodes` tiny kernels
void bench_replay(void* graph, int replays);
