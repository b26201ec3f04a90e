// A child process on two pipes (its stdin and stdout), in its own process group: what the
// measurement worker and the compile servers are. One copy of the POSIX dance for both.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ktune::detail {

/// pid and the parent's ends of the pipes; -1 when not running.
struct child_fds {
    int& pid;
    int& to_fd;   ///< the child's stdin
    int& from_fd; ///< the child's stdout
};

/// fork + exec `argv` with stdin/stdout on pipes. `env`: the child's whole environment, or
/// nullptr to inherit; `nice` > 0 lowers its priority. Returns "" on success, else why.
/// Everything is built before fork: between fork and exec only async-signal-safe calls (the
/// parent has other threads).
std::string spawn_piped(child_fds c, std::vector<std::string> argv, std::vector<std::string>* env,
                        int nice);

/// Closes the child's stdin (EOF, which both children take as "stop") and waits up to
/// `wait_ms` for it to exit on its own, so whatever it holds (a profiler's trace under
/// `ktune profile`) is finished properly. True when it was reaped.
bool close_input_and_reap(child_fds c, int wait_ms) noexcept;

/// Closes both pipes, kills the child's group and reaps it.
void kill_and_reap(child_fds c) noexcept;

/// Why a child whose pipe closed ended ("killed by signal 11", "exited with code 3"): waits up
/// to ~100 ms for it to be reaped (pid then -1); "closed its pipe" when it is still running.
std::string reap_reason(child_fds c) noexcept;

/// The next line from `fd` (without its newline) into `line`, reading into `buf` as needed;
/// false at end of input. What a child's request loop reads its stdin with.
bool read_line(int fd, std::string& buf, std::string& line);

/// Writes all of `s`; false when the pipe is closed.
bool write_all(int fd, std::string_view s) noexcept;

} // namespace ktune::detail
