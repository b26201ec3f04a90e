#pragma once
// Run sampling for fleets: profile 1 job in N (chosen by a hash of the job id, so every rank
// of a chosen job is profiled and the choice is the same on every node) and, within a job,
// only the listed ranks; each rank writes its own trace. The ids come from the launcher's
// environment (SLURM, Open MPI, PMI, torchrun).
//
//   auto policy = ktune::store::parse_run_sampling("1/100", "0,8-15");
//   auto d = ktune::store::decide(policy, ktune::store::identity_from_environment());
//   if (!d.profile) return ktune::store::run_unprofiled(cmd);

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::store {

struct run_sampling {
    std::uint64_t one_in = 1;                 ///< profile jobs whose id hashes to 0 mod one_in
    std::vector<std::pair<int, int>> ranks{}; ///< inclusive ranges; empty = every rank
    bool operator==(const run_sampling&) const = default;
};

/// "1/N" (N >= 1; "" = 1/1) and "0,3,8-15" ("" = all). Throws error{usage} naming the bad part.
run_sampling parse_run_sampling(std::string_view sample_runs, std::string_view ranks);

struct job_identity {
    std::string job;    ///< job id; empty when no launcher variable is set
    std::string source; ///< the variable it came from
    int rank = -1;      ///< global rank; -1 when unknown
};

/// Job id: KTUNE_JOB_ID, SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, TORCHELASTIC_RUN_ID; rank: RANK,
/// SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK.
job_identity identity_from_environment();

struct sampling_decision {
    bool profile = true;
    std::string label;       ///< recorded with the run: "all", "1/N", "1/N ranks 0,3"
    std::string reason;      ///< one sentence: why this run is (not) profiled
    std::string rank_suffix; ///< ".rank<R>" to add before ".ktrace" when the rank is known
};

sampling_decision decide(const run_sampling& policy, const job_identity& id);

/// "run.ktrace" + ".rank3" -> "run.rank3.ktrace".
std::string with_suffix(const std::string& output, const std::string& suffix);

/// Runs the command without profiling and waits: its exit code, or 128 + signal. Throws
/// error{not_found} when it cannot be started.
int run_unprofiled(const std::vector<std::string>& command);

} // namespace ktune::store
