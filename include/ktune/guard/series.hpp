#pragma once
// The abstract input of `ktune diff`: per key a distribution of samples plus what explains a
// change besides the kernel itself (launch count and shape, share of GPU time, environment).
// Adapters fill it from bench results (results.hpp) and, where a trace reader exists, traces.
//
//   ktune::guard::series_set base = ktune::guard::load_series({"a.json", "b.json"});  // pooled

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ktune::guard {

/// Where samples were measured. Two runs whose fingerprints differ can differ for that reason
/// alone, so `ktune diff` names each difference next to its findings.
struct environment {
    std::string host;
    std::string gpu;               ///< "NVIDIA H200"; empty without a GPU
    std::string gpu_uuid;          ///< tells two boards of one model apart
    std::string arch;              ///< "sm_90"
    std::string driver;            ///< "580.159.04"
    std::string runtime;           ///< CUDA runtime, "13.0"
    std::string toolkit;           ///< CUDA toolkit ktune was built with, "13.0"
    unsigned sm_clock_mhz = 0;     ///< at record time; 0 = unknown
    unsigned memory_clock_mhz = 0; ///< at record time; 0 = unknown
    std::uint64_t throttle_reasons = 0;
    bool operator==(const environment&) const = default;
};

/// This machine's fingerprint: the first visible GPU (query_devices) and its NVML clocks.
environment capture_environment();

/// One line per difference that can move timings ("driver 580.159.04 -> 575.57"); clocks count
/// when they differ by more than 2 %; the host and UUID alone do not (same model, same clocks).
std::vector<std::string> environment_differences(const environment& base, const environment& cand);

/// One key's distribution.
struct series {
    std::string name;        ///< demangled kernel name, op or command name
    std::string shape;       ///< launch or problem shape; part of the key ("" = none)
    std::string unit = "ns"; ///< of samples
    std::vector<double> samples;
    double launches_per_run = 0; ///< mean launches per run; 0 = not counted
    double gpu_time_share = 0;   ///< fraction of the run's GPU time; 0 = unknown (weight 1)
    std::size_t runs = 1;        ///< runs pooled into samples
    /// The matching key across builds: name plus shape.
    [[nodiscard]] std::string key() const { return shape.empty() ? name : name + " " + shape; }
    bool operator==(const series&) const = default;
};

/// A key whose entry did not produce samples (status failed or unavailable).
struct broken_entry {
    std::string key;
    std::string status; ///< "failed", "unavailable", ...
    std::string detail; ///< why, as the producer said
    bool operator==(const broken_entry&) const = default;
};

/// One side of a comparison: every key of one run, or of several runs pooled.
struct series_set {
    std::string source; ///< file name(s), for reports
    environment env;
    std::vector<series> items;
    std::vector<broken_entry> broken; ///< keys present but without samples
    /// Bench results run a fixed suite, so each key is expected on both sides and one missing
    /// from the candidate fails the gate; a trace's kernels come and go with the code.
    bool every_key_expected = false;
    std::vector<std::string> notes; ///< e.g. pooled runs whose environments differ
    bool operator==(const series_set&) const = default;
};

/// Pools several runs of one side: samples concatenated per key, launches averaged over the
/// runs that have the key, GPU-time shares averaged, the environment of the first run (every
/// run whose environment differs adds a note). Throws ktune::error(input) on units that differ.
series_set pool(const std::vector<series_set>& runs);

/// Reads one side from files: bench results (schema ktune.results) or traces (.ktrace, once a
/// trace reader exists); several files are pooled. Throws ktune::error naming the file.
series_set load_series(const std::vector<std::string>& paths, bool allow_incomplete = false);

} // namespace ktune::guard
