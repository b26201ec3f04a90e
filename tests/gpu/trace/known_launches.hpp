#pragma once
// What run_known_sequence() launched, so the test can compare the trace against it.
#include <cstddef>

struct known_sequence {
    int alpha = 10;      ///< ktune_test_alpha launches, first, on one stream
    int beta = 5;        ///< ktune_test_beta<3> launches, after them
    int graph_nodes = 3; ///< kernels in the captured graph
    int replays = 4;     ///< graph launches
    std::size_t copy_bytes = 0;
    std::size_t memset_bytes = 0;
    bool ok = false;
};

known_sequence run_known_sequence();
