#pragma once
// Shared by the fuzz targets: a hard failure that libFuzzer (and the replay test) reports, and a
// per-process scratch file for readers that take a path.
#include "ktune/core/error.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

namespace ktune::fuzz {

[[noreturn]] inline void fail(const char* target, const std::string& what) {
    std::fprintf(stderr, "%s: %s\n", target, what.c_str());
    std::abort();
}

/// A reader may refuse input only with ktune::error{input} (or {io}) whose message names the
/// source; anything else (another kind, an unnamed source) is a finding.
inline void check_refusal(const char* target, const ktune::error& e, std::string_view source) {
    if (e.kind() != ktune::error_kind::input && e.kind() != ktune::error_kind::io)
        fail(target, std::string("an error that is not 'input': ") + e.what());
    if (std::string_view(e.what()).find(source) == std::string_view::npos)
        fail(target, std::string("an error that does not name the input: ") + e.what());
}

/// `data` written to a scratch file of this process (on tmpfs where there is one).
inline const std::string& scratch_file(const std::uint8_t* data, std::size_t size,
                                       const char* suffix) {
    static const std::string path =
        std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/ktune_fuzz_" +
        std::to_string(getpid()) + suffix;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) fail("scratch_file", "cannot write " + path);
    return path;
}

} // namespace ktune::fuzz
