#pragma once
// Every file ktune writes for a user goes through here, so that a failed or killed command never
// leaves a truncated output: the bytes go to a temporary file beside the target, which is
// fsynced, renamed over the target and made durable by an fsync of the directory. Until commit()
// the target keeps its old contents; a writer that throws or is killed leaves the old file (an
// abandoned temporary is removed by the destructor; only SIGKILL can leave one behind). A target
// that exists and is not a regular file (/dev/stdout, a pipe) is written in place; a symbolic
// link is written through (its target is replaced, the link stays).
//
//   ktune::atomic_file out("report.json");
//   out.write(text);
//   out.commit();
//
// A command must also never write over one of its own inputs (`ktune export r.ktrace -o
// r.ktrace`): refuse_same_file() compares device and inode, so links and `./` spellings count.

#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace ktune {

/// Move-only temporary file that replaces `target` atomically on commit().
class atomic_file {
public:
    /// Creates the temporary in target's directory (which must exist). Throws error(io).
    explicit atomic_file(std::filesystem::path target);
    ~atomic_file();
    atomic_file(atomic_file&& other) noexcept;
    atomic_file& operator=(atomic_file&& other) noexcept;
    atomic_file(const atomic_file&) = delete;
    atomic_file& operator=(const atomic_file&) = delete;

    /// The open stream, for writers that print piecewise (fmt::print(out.stream(), …)).
    [[nodiscard]] std::FILE* stream() const noexcept { return f_; }
    /// Appends bytes; throws error(io) naming the target on failure.
    void write(std::string_view bytes);
    /// Flush, fsync, rename over the target, fsync the directory. Throws error(io); after a
    /// failure the target is untouched and the temporary is gone.
    void commit();
    [[nodiscard]] const std::filesystem::path& target() const noexcept { return target_; }

private:
    void discard() noexcept;
    std::filesystem::path target_;
    std::filesystem::path tmp_;
    std::FILE* f_ = nullptr;
};

/// Writes `bytes` to `target` through an atomic_file.
void write_file_atomically(const std::filesystem::path& target, std::string_view bytes);

/// Throws error(usage) when `output` is the same file as one of `inputs` (same device and inode
/// after resolving links). A missing output or input is never the same file.
void refuse_same_file(const std::filesystem::path& output,
                      std::span<const std::filesystem::path> inputs);
inline void refuse_same_file(const std::filesystem::path& output,
                             std::initializer_list<std::filesystem::path> inputs) {
    refuse_same_file(output, std::span<const std::filesystem::path>(inputs.begin(), inputs.size()));
}

} // namespace ktune
