// ktune-worker: the process candidates run in (a fault takes it down, never the tuner) and, with
// KTUNE_WORKER_ROLE=compile, a compile server. Requests on stdin, answers on stdout
// (ktune/worker/worker.hpp); the library finds this executable (default_worker_command).
#include "ktune/worker/worker.hpp"

int main() {
    return ktune::worker::worker_main(0, 1);
}
