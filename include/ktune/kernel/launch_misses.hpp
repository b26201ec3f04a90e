#pragma once
// The misses file: problems a launcher ran with the spec's default config because no tuned
// entry answered, one JSON line each (docs/formats.md#ktunekernel_miss), so `ktune` can tune
// them later. Appends are atomic under an exclusive lock on the file: many processes may share
// one misses file, and a problem already in it is not written twice.
//
//   auto ms = ktune::kernel::read_misses("tuned.json.misses.jsonl");
//   for (const auto& m : ms) std::printf("%s %s\n", m.kernel.c_str(), m.problem.c_str());

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::kernel {

struct launch_miss {
    std::string kernel;    ///< the spec's name
    std::string spec;      ///< the spec file's path
    std::string spec_hash; ///< spec_hash: the key's op_version
    std::string problem;   ///< "M=1000,N=1000,K=1000"
    std::string bucket;    ///< the problem's bucket, same form
    std::string dtype;     ///< kernel_dtype
    std::string arch;
    int toolkit = 0;
    int driver = 0;
    int protocol = 0;
    bool operator==(const launch_miss&) const = default;
};

/// The line as the file holds it (compact JSON, no newline).
std::string miss_line(const launch_miss& m);
/// Parses one line; throws error{input} naming `where` ("file:line").
launch_miss parse_miss_line(std::string_view line, std::string_view where);

/// Appends m unless an equal line is already in the file; true when it appended. Creates the
/// file and its directory. Throws error{io} naming the file.
bool record_miss(const std::filesystem::path& file, const launch_miss& m);
/// Every line; a missing file is empty. Throws error{input} with file:line for a bad line.
std::vector<launch_miss> read_misses(const std::filesystem::path& file);

} // namespace ktune::kernel
