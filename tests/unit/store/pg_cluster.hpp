#pragma once
// A throwaway PostgreSQL cluster for tests: initdb + pg_ctl in a temporary directory, listening
// only on a unix socket in that directory, stopped and removed at the end. PostgreSQL refuses
// to run as root, so as root (CI) the cluster runs as `nobody` and owns its directory.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <pwd.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ktune::store::test {

class pg_cluster {
public:
    /// The directory holding initdb and pg_ctl, or "" when PostgreSQL is not installed.
    static std::string bin_dir() {
        namespace fs = std::filesystem;
        if (const char* path = std::getenv("PATH")) {
            std::string p = path;
            for (std::size_t a = 0, b; a <= p.size(); a = b + 1) {
                b = p.find(':', a);
                if (b == std::string::npos) b = p.size();
                const fs::path dir = p.substr(a, b - a);
                if (!dir.empty() && fs::exists(dir / "initdb") && fs::exists(dir / "pg_ctl"))
                    return dir.string();
            }
        }
        for (const char* d : {"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin",
                              "/usr/lib/postgresql/17/bin"})
            if (fs::exists(fs::path(d) / "initdb")) return d;
        return {};
    }

    /// Starts the cluster; `error()` says why when it could not.
    pg_cluster() {
        bin_ = bin_dir();
        if (bin_.empty()) {
            error_ = "initdb/pg_ctl not found (install postgresql: scripts/setup.sh)";
            return;
        }
        char tmpl[] = "/tmp/ktune_pg_XXXXXX";
        if (!::mkdtemp(tmpl)) {
            error_ = "mkdtemp failed";
            return;
        }
        dir_ = tmpl;
        if (::geteuid() == 0) {
            const passwd* pw = ::getpwnam("nobody");
            if (!pw) {
                error_ = "running as root and no `nobody` user to run PostgreSQL as";
                return;
            }
            uid_ = pw->pw_uid, gid_ = pw->pw_gid;
            if (::chown(dir_.c_str(), uid_, gid_) != 0) {
                error_ = "cannot chown " + dir_;
                return;
            }
        }
        const std::string data = dir_ + "/data";
        if (run({bin_ + "/initdb", "-D", data, "-A", "trust", "-U", "ktune", "-E", "UTF8",
                 "--locale=C", "--no-sync"}) != 0) {
            error_ = "initdb failed: see " + dir_ + "/cmd.log";
            return;
        }
        if (run({bin_ + "/pg_ctl", "-D", data, "-l", dir_ + "/server.log", "-w", "-o",
                 "-k " + dir_ + " -c listen_addresses= -F -c max_connections=64", "start"}) != 0) {
            error_ = "pg_ctl start failed: see " + dir_ + "/server.log";
            return;
        }
        started_ = true;
    }
    ~pg_cluster() {
        if (started_)
            run({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-m", "immediate", "-w", "stop"});
        if (!dir_.empty() && std::getenv("KTUNE_KEEP_PG") == nullptr) {
            std::error_code ec;
            std::filesystem::remove_all(dir_, ec);
        }
    }
    pg_cluster(const pg_cluster&) = delete;
    pg_cluster& operator=(const pg_cluster&) = delete;

    [[nodiscard]] bool ok() const { return started_; }
    [[nodiscard]] const std::string& error() const { return error_; }
    /// URL of database `db` ("postgres" exists from the start).
    [[nodiscard]] std::string url(const std::string& db = "postgres") const {
        return "postgresql:///" + db + "?host=" + dir_ + "&user=ktune";
    }

private:
    int run(const std::vector<std::string>& args) const {
        const pid_t pid = ::fork();
        if (pid == 0) {
            const std::string log = dir_ + "/cmd.log";
            if (std::FILE* f = std::fopen(log.c_str(), "a")) {
                ::dup2(::fileno(f), 1);
                ::dup2(::fileno(f), 2);
            }
            if (uid_ != 0 && (::setgid(gid_) != 0 || ::setuid(uid_) != 0)) ::_exit(126);
            std::vector<char*> argv;
            for (const auto& a : args)
                argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        int st = 0;
        ::waitpid(pid, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    }
    std::string bin_, dir_, error_;
    uid_t uid_ = 0;
    gid_t gid_ = 0;
    bool started_ = false;
};

} // namespace ktune::store::test
