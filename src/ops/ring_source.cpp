// Device code of the stage = smem_ring form (session 4): a block, or a cluster of blocks
// splitting each row, takes ROWS_PER_BLOCK rows in turn through a ring of three shared-memory
// buffers filled by bulk copies. Why it exists: on the longest rows (1024 x 256 KiB bf16) a
// one-row-per-block cluster is scheduled, loads, meets at two cluster barriers and stores once
// per row; here a cluster is scheduled once, the copies of the next two rows are in flight while
// a row is reduced and written, and the one cluster barrier per row is in flight while the
// previous row is stored (each block pushes its partial into every peer's shared memory, then
// arrives; it waits only before it needs the row's statistics).
#include "ops/source_common.hpp"

namespace ktune::ops::detail {

const char* const ring_source = R"(
// Two slots per cluster rank: a peer writes row k + 1's partial into slot (k + 1) & 1 only
// after the barrier of row k completed, which needs this block's arrival for row k, made after
// it read row k - 1's slots: so slot reuse needs no second barrier.
__shared__ float2 ring_part[2][CLUSTER];
// This block's partial for row k into slot k & 1 of every block of the cluster (itself too);
// then every thread arrives at the cluster barrier (release: the remote stores are visible to
// whoever waits). Without a cluster the block's reduction already is the row's.
__device__ __forceinline__ void ring_publish(int k, float2 v) {
#if CLUSTER > 1
    if (threadIdx.x == 0) {
        const unsigned me = cluster_rank();
#pragma unroll
        for (unsigned r = 0; r < CLUSTER; ++r) *map_shared_rank(&ring_part[k & 1][me], r) = v;
    }
    cluster_arrive();
#else
    if (threadIdx.x == 0) ring_part[k & 1][0] = v;
    __syncthreads();
#endif
}
// Waits for row k's barrier; then slot k & 1 holds every rank's partial, read locally.
__device__ __forceinline__ void ring_wait() {
#if CLUSTER > 1
    cluster_wait();
#endif
}
__device__ __forceinline__ float2 ring_slot(int k, int r) { return ring_part[k & 1][r]; }
)";

} // namespace ktune::ops::detail
