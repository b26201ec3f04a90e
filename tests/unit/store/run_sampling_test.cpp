// Fleet run sampling: parsing, the deterministic 1-in-N choice by job id, ranks, trace names.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/store/run_sampling.hpp"

using namespace ktune::store;

TEST_CASE("run sampling: parse 1/N and rank lists, refuse the rest") {
    const auto p = parse_run_sampling("1/100", "0,3-5");
    CHECK(p.one_in == 100);
    REQUIRE(p.ranks.size() == 2);
    CHECK(p.ranks[1] == std::pair{3, 5});
    CHECK(parse_run_sampling("", "").one_in == 1);
    for (const auto& [s, r] :
         {std::pair{"2/3", ""}, {"1/0", ""}, {"1/x", ""}, {"", "5-3"}, {"", "a"}, {"", "1,,2"}})
        CHECK_THROWS_AS(parse_run_sampling(s, r), ktune::error);
}

TEST_CASE("run sampling: 1 in N by job id, the same answer for every rank and node") {
    const auto p = parse_run_sampling("1/10", "");
    int chosen = 0;
    for (int job = 0; job < 10000; ++job) {
        const auto a = decide(p, {std::to_string(1000 + job), "SLURM_JOB_ID", 0});
        const auto b = decide(p, {std::to_string(1000 + job), "SLURM_JOB_ID", 7});
        CHECK(a.profile == b.profile);
        chosen += a.profile;
    }
    CHECK(chosen > 850); // binomial(10000, 0.1): sd 30
    CHECK(chosen < 1150);
    CHECK(decide(p, {"42", "SLURM_JOB_ID", 0}).label == "1/10");
    CHECK(decide(parse_run_sampling("", ""), {}).profile);
}

TEST_CASE("run sampling: ranks pick processes; each rank names its own trace") {
    const auto p = parse_run_sampling("", "0,8-9");
    CHECK(decide(p, {"j", "KTUNE_JOB_ID", 8}).profile);
    CHECK_FALSE(decide(p, {"j", "KTUNE_JOB_ID", 3}).profile);
    CHECK_FALSE(decide(p, {"j", "KTUNE_JOB_ID", -1}).profile); // --ranks without a rank
    CHECK(decide(p, {"j", "KTUNE_JOB_ID", 9}).rank_suffix == ".rank9");
    CHECK(decide(p, {"j", "KTUNE_JOB_ID", 9}).label == "all ranks 0,8-9");
    CHECK(with_suffix("out/run.ktrace", ".rank9") == "out/run.rank9.ktrace");
    CHECK(with_suffix("run", ".rank9") == "run.rank9");
    CHECK(with_suffix("run.ktrace", "") == "run.ktrace");
}

TEST_CASE("run sampling: an unprofiled run keeps the program's exit code") {
    CHECK(run_unprofiled({"sh", "-c", "exit 3"}) == 3);
    CHECK_THROWS_AS(run_unprofiled({"/nonexistent/ktune_no_such_program"}), ktune::error);
}
