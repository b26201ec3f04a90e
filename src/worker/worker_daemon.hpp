#pragma once
// A measurement worker that outlives one tuner process (opt-in, worker_process's keep_alive):
// later `ktune tune` runs connect to it and skip its GPU context, buffers and helper kernels.
//
// Files, in a per-user directory that must be ours and mode 0700 ($XDG_RUNTIME_DIR/ktune, else
// /tmp/ktune-<uid>), named after a hash of what the worker depends on (its command and binary,
// CUDA_VISIBLE_DEVICES, the cubin cache), so a rebuilt binary or other GPUs get their own:
//   <name>.lock    held by the live daemon (flock): a second daemon exits at once
//   <name>.client  held by the client using it: one client at a time; a busy daemon makes the
//                  next client start a private worker instead of waiting
//   <name>.pid     the daemon's pid (written before it listens), for a kill on timeout
//   <name>.sock    the listening socket (0600); the daemon checks the peer's uid too
//   <name>.log     the daemon's stderr
// The daemon serves one connection at a time like a piped worker, frees the problem's buffers
// 2 s after a client leaves (back-to-back tunes keep them), exits after `idle` seconds without
// a client (only when it can take the client lock: a client about to connect keeps it alive),
// exits on a fault that destroys its context, and kills itself when its client disappears in
// the middle of a candidate (a hung kernel would otherwise hold the GPU forever).
#include "ktune/core/env.hpp"
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ktune::worker::detail {

struct daemon_paths {
    std::filesystem::path dir, sock, lock, client, pid, log;
};

/// The paths for a worker started as `argv`; "" on success, else why a kept worker cannot be
/// used here (the directory is someone else's or open to others, a path too long for a socket).
std::string daemon_paths_for(const std::vector<std::string>& argv, daemon_paths& out);

/// A connection to a kept worker: the socket and the daemon's pid. Holds the client lock.
struct daemon_connection {
    int fd = -1;
    int pid = -1;
    int client_lock = -1;
};

/// Connects to the kept worker for argv, starting it (detached, its own session) when none
/// runs. "" on success; else why not (the caller starts a private worker). Never blocks on a
/// busy daemon. `idle_s`: how long a daemon it starts waits for the next client.
std::string connect_kept_worker(const std::vector<std::string>& argv, int idle_s,
                                daemon_connection& out);

/// Releases the connection (the daemon goes back to waiting for a client).
void disconnect(daemon_connection& c) noexcept;

/// The server side, run by worker_main when $KTUNE_WORKER_DAEMON names the socket.
/// `setup` creates the GPU state (false: it failed, and the daemon serves one client with the
/// error, then exits); `serve(in, out)` answers one connection's requests until EOF (0) or a
/// fatal fault (it never returns then); `release` frees the idle buffers.
int daemon_main(const std::string& sock, int idle_s, const std::function<bool()>& setup,
                const std::function<int(int, int)>& serve, const std::function<void()>& release);

/// A process that exists and is not a zombie (a killed daemon is reaped by whoever adopted it,
/// which in a container may be never).
bool process_alive(int pid) noexcept;

/// Environment variables of the daemon mode: the socket path and the idle seconds.
inline constexpr const char* daemon_env = ktune::env::worker_daemon;
inline constexpr const char* daemon_idle_env = ktune::env::worker_idle;

} // namespace ktune::worker::detail
