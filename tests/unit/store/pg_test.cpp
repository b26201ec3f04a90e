// The PostgreSQL backend against a real throwaway server (pg_cluster.hpp): the same schema and
// migrations as SQLite, idempotent ingest, and concurrent ingesters losing nothing. Exit 77
// (CTest: skipped) with the reason when PostgreSQL is not installed or this build has no libpq.
#if KTUNE_CATCH_MAJOR == 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#endif
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/store/backlog.hpp"
#include "ktune/store/ingest.hpp"
#include "pg_cluster.hpp"
#include "store/sql_seam.hpp"
#include "synthetic_trace.hpp"

#include <filesystem>
#include <set>

using namespace ktune;
using namespace ktune::store;
namespace fs = std::filesystem;

namespace {

test::pg_cluster* cluster = nullptr;
int databases = 0;

// A fresh database per test case, so cases do not see each other's runs.
std::string fresh_db() {
    const std::string name = "t" + std::to_string(++databases);
    auto c = detail::open_postgresql(cluster->url());
    c->exec("CREATE DATABASE " + name);
    return cluster->url(name);
}

// Fixed at the first call (in the parent): forked ingesters must see the parent's files.
const fs::path& temp_root() {
    static const fs::path dir = [] {
        auto d = fs::temp_directory_path() / ("ktune_pgt_" + std::to_string(::getpid()));
        fs::create_directories(d);
        return d;
    }();
    return dir;
}

std::string temp(const std::string& name) {
    return (temp_root() / name).string();
}

} // namespace

TEST_CASE("postgresql: same schema, versioned; a newer one is refused") {
    const auto url = fresh_db();
    CHECK(open_store(url, temp("objects")).version() == schema_version);
    CHECK(open_store(url, temp("objects")).version() == schema_version);
    detail::open_postgresql(url)->exec("INSERT INTO schema_version (version) VALUES (99)");
    try {
        open_store(url, temp("objects"));
        FAIL("a newer schema was accepted");
    } catch (const error& e) {
        CHECK(e.kind() == error_kind::unsupported);
    }
}

TEST_CASE("postgresql: ingest is idempotent and the backlog matches SQLite's") {
    const auto url = fresh_db();
    auto pg = open_store(url, temp("objects"));
    fs::remove(temp("k.db"));
    auto lite = open_store("sqlite:" + temp("k.db"));
    const auto a = test::write_trace(temp("a.ktrace"), "n1");
    const auto b = test::write_trace(temp("b.ktrace"), "n2", 5000);
    for (auto* db : {&pg, &lite}) {
        CHECK_FALSE(ingest_trace(*db, a, {.build = "v1"}).already_stored);
        CHECK_FALSE(ingest_trace(*db, b, {.build = "v2"}).already_stored);
        CHECK(ingest_trace(*db, a, {.build = "v1"}).already_stored);
        CHECK(db->runs().size() == 2);
    }
    const auto x = backlog(pg), y = backlog(lite);
    REQUIRE(x.rows.size() == y.rows.size());
    for (std::size_t i = 0; i < x.rows.size(); ++i) {
        CHECK(x.rows[i].kernel == y.rows[i].kernel);
        CHECK(x.rows[i].total_ns == y.rows[i].total_ns);
        CHECK(x.rows[i].p99_ns == y.rows[i].p99_ns); // the sketch blobs round-trip via bytea
        CHECK(x.rows[i].tune == y.rows[i].tune);
    }
}

TEST_CASE("postgresql: concurrent ingesters store every run once") {
    const auto url = fresh_db();
    open_store(url, temp("objects")); // migrate once; the race on migration is tested too below
    constexpr int procs = 6, traces = 5;
    const auto shared = test::write_trace(temp("shared.ktrace"), "shared");
    for (int p = 0; p < procs; ++p)
        for (int i = 0; i < traces; ++i)
            test::write_trace(temp("c" + std::to_string(p) + "_" + std::to_string(i) + ".ktrace"),
                              "p" + std::to_string(p) + "i" + std::to_string(i));
    const auto url2 = fresh_db(); // a database nobody has migrated: all processes race on it
    std::vector<pid_t> kids;
    for (int p = 0; p < procs; ++p) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            int rc = 0;
            try {
                for (const auto& u : {url, url2}) {
                    auto db = open_store(u, temp("objects"));
                    ingest_trace(db, shared);
                    for (int i = 0; i < traces; ++i)
                        ingest_trace(db, temp("c" + std::to_string(p) + "_" + std::to_string(i) +
                                              ".ktrace"));
                }
            } catch (const std::exception& e) {
                std::fprintf(stderr, "ingester %d: %s\n", p, e.what());
                rc = 1;
            }
            ::_exit(rc);
        }
        kids.push_back(pid);
    }
    int failed = 0;
    for (auto pid : kids) {
        int st = 0;
        ::waitpid(pid, &st, 0);
        failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    CHECK(failed == 0);
    for (const auto& u : {url, url2}) {
        auto db = open_store(u, temp("objects"));
        const auto runs = db.runs();
        std::set<std::string> ids;
        for (const auto& r : runs)
            ids.insert(r.id);
        CHECK(runs.size() == procs * traces + 1);
        CHECK(ids.size() == runs.size());
        CHECK(backlog(db).rows.at(0).count == 30u * (procs * traces + 1));
    }
}

int main(int argc, char** argv) {
    if (test::pg_cluster::bin_dir().empty()) {
        std::printf("SKIPPED: PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or "
                    "in /usr/lib/postgresql/*/bin\n");
        return 77;
    }
    try {
        detail::open_postgresql("postgresql:///none?host=/nonexistent");
    } catch (const error& e) {
        if (e.kind() == error_kind::unsupported) {
            std::printf("SKIPPED: %s\n", e.what());
            return 77;
        }
    }
    test::pg_cluster c;
    if (!c.ok()) {
        std::printf("FAILED to start a throwaway PostgreSQL cluster: %s\n", c.error().c_str());
        return 1;
    }
    cluster = &c;
    const int rc = Catch::Session().run(argc, argv);
    std::error_code ec;
    fs::remove_all(temp_root(), ec);
    return rc;
}
