#include "tune/tuner_faults.hpp"

#include "ktune/tune/space.hpp"

namespace ktune::tune::detail {

injected_fault choose_fault(const config& c, double rate, std::uint64_t seed) {
    if (rate <= 0) return injected_fault::none;
    std::uint64_t h = config_hash(c) ^ (seed * 0x9e3779b97f4a7c15ULL);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    if (static_cast<double>(h % 100000) >= rate * 100000) return injected_fault::none;
    const auto k = (h / 100000) % 10;
    return k < 6 ? injected_fault::wrong_element
                 : (k < 9 ? injected_fault::illegal_address : injected_fault::hang);
}

std::string inject(injected_fault f) {
    // Thread (0,0) of block (0,0) writes out[0] in every built-in, so its own change is final.
    constexpr const char* first = "if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && "
                                  "threadIdx.y == 0)";
    switch (f) {
    case injected_fault::none:
        return {};
    case injected_fault::wrong_element:
        return std::string("#define KTUNE_EPILOGUE(out, n) ") + first +
               " { out[0] = from_f(to_f(out[0]) * 1.05f + 1e-3f); }\n";
    case injected_fault::illegal_address:
        return std::string("#define KTUNE_EPILOGUE(out, n) ") + first +
               " { out[-(1ll << 40)] = out[0]; }\n";
    case injected_fault::hang:
        return std::string("#define KTUNE_EPILOGUE(out, n) ") + first +
               " { const long long t = clock64(); while (clock64() - t >= 0) {} }\n";
    }
    return {};
}

} // namespace ktune::tune::detail
