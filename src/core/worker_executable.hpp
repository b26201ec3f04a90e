#pragma once
// Where ktune's helper processes come from: the measurement worker and the compile servers are
// one executable, started by the worker module (worker_process) and by the compile pool, which
// sits below it; so the lookup lives here, below both.
#include <string>
#include <vector>

namespace ktune::detail {

/// argv of a worker process (see ktune/worker/worker.hpp, default_worker_command).
std::vector<std::string> worker_executable_command();

} // namespace ktune::detail
