#pragma once
// The run-time GEMM for applications: the first call of a distinct problem looks its algorithm
// up (cache entry re-checked with AlgoCheck, else cuBLASLt's heuristic) and builds its
// descriptors; every later call is a hash lookup and one cublasLtMatmul.
// docs/perf/gemm.md#run-time-overhead states the host cost against a plain cublasLtMatmul.
//
//   ktune::gemm::session g;                                   // reads the cache file once
//   auto p = ktune::gemm::parse_problem("16x4096x4096", "bf16", "tn");
//   g.gemm(p, a, b, d, stream);                               // D = op(A) op(B)
//
// A session is used by one thread at a time, like the cuBLASLt handle it owns. A problem tuned
// to the padded-K form (docs/perf/gemm.md#padded-k) copies A and B into buffers the session
// keeps per problem: eager calls on different streams are ordered by the session, but a
// captured call's replays must not overlap another call of the same problem.

#include "ktune/gemm/algo.hpp"
#include "ktune/gemm/cache.hpp"
#include "ktune/gemm/problem.hpp"

#include <cstddef>
#include <filesystem>
#include <memory>

struct CUstream_st;

namespace ktune::gemm {

struct session_options {
    std::filesystem::path cache_file; ///< empty: ktune::cache::default_cache_path()
    std::size_t max_workspace = std::size_t{32} << 20;
};

class session {
public:
    session();
    explicit session(session_options o);
    ~session();
    session(session&&) noexcept;
    session& operator=(session&&) noexcept;

    /// D = act(alpha op(A) op(B) + bias), column-major as in problem.hpp; `bias` (M elements of
    /// D's type) only with a bias epilogue. `b_is` weights: the kernel queued just before this
    /// call does not write B, so ktune's own template may read B while that kernel ends
    /// (problem.hpp's b_operand). Throws unsupported when cuBLASLt has no algorithm.
    void gemm(const problem& p, const void* a, const void* b, void* d, CUstream_st* stream,
              const void* bias = nullptr, float alpha = 1.0f,
              b_operand b_is = b_operand::written_before);

    /// The algorithm p runs with, and where it came from (resolving it when new).
    [[nodiscard]] algo_config algorithm(const problem& p);
    [[nodiscard]] algo_source source(const problem& p);

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace ktune::gemm
