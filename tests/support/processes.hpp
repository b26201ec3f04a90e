#pragma once
// Several processes at one file: body(p) runs in `procs` forked children, released together
// through a pipe so they really overlap, and each must exit 0 (an exception in body is a
// failure). For tests of file locks and atomic appends across processes.
#include "catch.hpp"

#include <functional>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ktune_test {

inline void run_in_processes(int procs, const std::function<void(int)>& body) {
    int go[2];
    REQUIRE(::pipe(go) == 0);
    std::vector<pid_t> kids;
    for (int p = 0; p < procs; ++p) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            ::close(go[1]);
            char c;
            while (::read(go[0], &c, 1) < 0) {
            }
            int rc = 0;
            try {
                body(p);
            } catch (...) {
                rc = 1;
            }
            ::_exit(rc);
        }
        kids.push_back(pid);
    }
    ::close(go[0]);
    ::close(go[1]); // EOF releases every child at once
    for (const pid_t pid : kids) {
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
}

} // namespace ktune_test
