#pragma once
// The copy roof: the best device-memory bandwidth a read+write kernel achieves, in bytes read
// plus bytes written per second. One routine for every consumer (ktune device --measure, the
// roofline's measured peaks, tune's "% of copy"), so they agree, and the best of several copy
// forms (cudaMemcpy and 16-byte-per-thread kernels with plain and streaming accesses at a few
// occupancies), so no tuned op reads above 100 % of it. Each copy is timed after a read sweep
// of L2 (l2_flush.hpp), outside its events: the candidates' own protocol.
//
//   auto c = ktune::measure::measure_copy_bandwidth();   // needs a GPU
//   std::printf("%.0f GB/s (%s)\n", c.median_gbs, c.form.c_str());

#include <cstddef>
#include <string>

namespace ktune::measure {

struct copy_bandwidth {
    double median_gbs = 0; ///< median of the fastest form's repeats
    double min_gbs = 0;    ///< that form's spread
    double max_gbs = 0;
    int repeats = 0;
    std::string form;      ///< the fastest form, e.g. "kernel 16 B/thread, streaming, 8 blocks/SM"
    std::size_t bytes = 0; ///< copied each way per repeat
    bool operator==(const copy_bandwidth&) const = default;
};

/// Measures on the current device. bytes 0: 512 MiB each way (far beyond any L2), less where
/// free memory is short. Throws error{no_device} without a GPU, error{cuda} on a failing call.
copy_bandwidth measure_copy_bandwidth(std::size_t bytes = 0);

} // namespace ktune::measure
