#pragma once
// Captures: what a launch saw, written by the launcher when $KTUNE_CAPTURE names a directory
// (docs/formats.md#ktunekernel_capture). One directory per distinct problem: capture.json (the
// kernel, spec hash, arch, toolkit, problem, the config that ran and the arguments) and the raw
// bytes of every input buffer before the launch and every output buffer after it, so a tune can
// run offline on the application's real data with its own output as the reference.
//
//   auto c = ktune::kernel::read_capture("captures/matmul-0123456789abcdef-M64_N64_K64");
//   const std::string& out = *c.arguments[2].after;        // C as the application computed it

#include "ktune/core/config.hpp"
#include "ktune/kernel/problem.hpp"
#include "ktune/kernel/space.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ktune::kernel {

struct captured_argument {
    std::string name;
    argument_kind kind = argument_kind::buffer;
    element_type type = element_type::fp32;
    std::int64_t bytes = 0;            ///< a buffer's size in bytes
    std::optional<std::string> before; ///< an input buffer's bytes before the launch
    std::optional<std::string> after;  ///< an output buffer's bytes after the launch
    std::int64_t value = 0;            ///< a scalar's value
    bool operator==(const captured_argument&) const = default;
};

struct kernel_capture {
    std::string kernel;
    std::string spec; ///< the spec file's path
    std::string spec_hash;
    std::string arch;
    int toolkit = 0;
    int driver = 0;
    problem prob;
    std::string tier; ///< the lookup tier of the config that ran ("exact", ...)
    config cfg;
    geometry geo;
    std::vector<captured_argument> arguments; ///< in the spec's argument order
    bool operator==(const kernel_capture&) const = default;
};

/// "<kernel>-<spec_hash>-<dim><value>_..." ("matmul-0123456789abcdef-M64_N64_K64").
std::string capture_dir_name(const kernel_capture& c);
/// The data file of argument i (index in the spec's order) inside a capture directory: its
/// bytes before the launch ("<i>-<name>.in") or after it ("<i>-<name>.out").
std::string capture_data_file(std::size_t i, const captured_argument& a, bool before);
/// The capture.json text (what write_capture writes; for golden tests).
std::string capture_json(const kernel_capture& c);

/// Writes c under root/capture_dir_name(c), all or nothing: the files go into a temporary
/// directory that is renamed into place. Returns the capture's directory, or an empty path when
/// one already exists (a capture is never overwritten). Throws error{io}.
std::filesystem::path write_capture(const std::filesystem::path& root, const kernel_capture& c);

/// Reads a capture directory. Throws error{input} naming the file for a malformed capture.json,
/// a data file whose size is not the buffer's, or a missing data file; error{io} when a file
/// cannot be read.
kernel_capture read_capture(const std::filesystem::path& dir);

} // namespace ktune::kernel
