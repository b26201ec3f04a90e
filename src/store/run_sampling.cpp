// Run sampling (include/ktune/store/run_sampling.hpp).
#include "ktune/store/run_sampling.hpp"
#include "core/fnv1a.hpp"
#include "ktune/core/env.hpp"

#include "ktune/core/error.hpp"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

namespace ktune::store {
namespace {

int to_int(std::string_view s, std::string_view what) {
    int v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size() || v < 0)
        throw error(error_kind::usage,
                    std::string(what) + ": '" + std::string(s) + "' is not a non-negative integer");
    return v;
}

std::uint64_t fnv1a(std::string_view s) {
    std::uint64_t h = ktune::detail::fnv1a_bytes(ktune::detail::fnv1a_basis, s);
    // Final avalanche: consecutive job ids (1001, 1002, …) must not fall into one residue class.
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

std::string ranks_text(const run_sampling& p) {
    std::string s;
    for (const auto& [a, b] : p.ranks)
        s += (s.empty() ? "" : ",") +
             (a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b));
    return s;
}

} // namespace

run_sampling parse_run_sampling(std::string_view sample_runs, std::string_view ranks) {
    run_sampling p;
    if (!sample_runs.empty()) {
        if (!sample_runs.starts_with("1/"))
            throw error(error_kind::usage,
                        "--sample-runs " + std::string(sample_runs) + ": expected 1/N, e.g. 1/100");
        p.one_in = static_cast<std::uint64_t>(to_int(sample_runs.substr(2), "--sample-runs"));
        if (p.one_in == 0) throw error(error_kind::usage, "--sample-runs 1/0: N must be >= 1");
    }
    while (!ranks.empty()) {
        const auto comma = ranks.find(',');
        const auto part = ranks.substr(0, comma);
        const auto dash = part.find('-');
        const int a = to_int(part.substr(0, dash), "--ranks");
        const int b = dash == std::string_view::npos ? a : to_int(part.substr(dash + 1), "--ranks");
        if (b < a) throw error(error_kind::usage, "--ranks " + std::string(part) + ": empty range");
        p.ranks.emplace_back(a, b);
        ranks = comma == std::string_view::npos ? std::string_view{} : ranks.substr(comma + 1);
    }
    return p;
}

job_identity identity_from_environment() {
    job_identity id;
    for (const char* v :
         {ktune::env::job_id, "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "TORCHELASTIC_RUN_ID"})
        if (const char* s = std::getenv(v); s && *s) {
            id.job = s;
            id.source = v;
            break;
        }
    for (const char* v : {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
        if (const char* s = std::getenv(v); s && *s) {
            try {
                id.rank = to_int(s, v);
            } catch (const error&) { // a malformed launcher variable: rank unknown
            }
            break;
        }
    return id;
}

sampling_decision decide(const run_sampling& p, const job_identity& id) {
    sampling_decision d;
    d.label = p.one_in == 1 ? "all" : "1/" + std::to_string(p.one_in);
    if (!p.ranks.empty()) d.label += " ranks " + ranks_text(p);
    if (id.rank >= 0) d.rank_suffix = ".rank" + std::to_string(id.rank);
    if (p.one_in > 1) {
        if (id.job.empty()) {
            // No launcher id: the pid decides, so repeated runs still sample about 1 in N.
            d.profile = fnv1a(std::to_string(::getpid())) % p.one_in == 0;
            d.reason = "no job id in the environment (set KTUNE_JOB_ID): 1 in " +
                       std::to_string(p.one_in) + " by process id";
        } else {
            d.profile = fnv1a(id.job) % p.one_in == 0;
            d.reason = "job " + id.job + " (" + id.source + ") " + (d.profile ? "is" : "is not") +
                       " in the 1 in " + std::to_string(p.one_in);
        }
        if (!d.profile) return d;
    }
    if (!p.ranks.empty()) {
        bool in = false;
        for (const auto& [a, b] : p.ranks)
            in = in || (id.rank >= a && id.rank <= b);
        if (id.rank < 0) {
            d.profile = false;
            d.reason = "--ranks given but no rank in the environment (RANK, SLURM_PROCID, …)";
            return d;
        }
        d.profile = in;
        d.reason = "rank " + std::to_string(id.rank) + (in ? " is" : " is not") + " in --ranks " +
                   ranks_text(p);
    }
    if (d.reason.empty()) d.reason = "every run is profiled";
    return d;
}

std::string with_suffix(const std::string& output, const std::string& suffix) {
    if (suffix.empty()) return output;
    const auto dot = output.rfind(".ktrace");
    if (dot != std::string::npos && dot + 7 == output.size())
        return output.substr(0, dot) + suffix + ".ktrace";
    return output + suffix;
}

int run_unprofiled(const std::vector<std::string>& command) {
    if (command.empty()) throw error(error_kind::usage, "no command to run");
    const pid_t pid = ::fork();
    if (pid < 0) throw error(error_kind::io, std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
        std::vector<char*> argv;
        argv.reserve(command.size() + 1);
        for (const auto& a : command)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execvp(argv[0], argv.data());
        ::_exit(127);
    }
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st)) {
        if (WEXITSTATUS(st) == 127)
            throw error(error_kind::not_found, "cannot start " + command[0]);
        return WEXITSTATUS(st);
    }
    return 128 + WTERMSIG(st);
}

} // namespace ktune::store
