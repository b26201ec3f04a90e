// The one atomic-write path (see atomic_file.hpp): mkstemp beside the target, fsync, rename,
// fsync of the directory. The temporary's name is unique per writer, so two commands writing the
// same output never write into each other's temporary; the last rename wins whole.
#include "ktune/core/atomic_file.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace ktune {
namespace {

[[noreturn]] void io_fail(std::string_view what, const std::filesystem::path& p, int err) {
    throw error(error_kind::io, fmt::format("{} {}: {}", what, p.string(), std::strerror(err)));
}

std::filesystem::path directory_of(const std::filesystem::path& p) {
    return p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
}

void fsync_directory(const std::filesystem::path& dir) {
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) io_fail("cannot open directory", dir, errno);
    const int rc = ::fsync(dfd);
    const int err = errno;
    ::close(dfd);
    if (rc != 0) io_fail("cannot fsync directory", dir, err);
}

} // namespace

atomic_file::atomic_file(std::filesystem::path target) : target_(std::move(target)) {
    // A link is written through, as fopen would: the renamed file replaces the link's target,
    // and the link stays (a cache on a shared mount is often reached by one).
    std::error_code ec;
    if (std::filesystem::is_symlink(target_, ec))
        if (auto real = std::filesystem::weakly_canonical(target_, ec); !ec) target_ = real;
    // A device or pipe (-o /dev/stdout) cannot be replaced by rename: it is written in place.
    struct stat st {};
    if (::stat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        f_ = std::fopen(target_.c_str(), "wb");
        if (!f_) io_fail("cannot open", target_, errno);
        return;
    }
    // Hidden and named after the target, so a temporary left by a SIGKILL says whose it was.
    std::string pattern =
        (directory_of(target_) / ("." + target_.filename().string() + ".ktune-tmp-XXXXXX"))
            .string();
    const int fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd < 0) io_fail("cannot create a temporary file for", target_, errno);
    tmp_ = pattern;
    // mkstemp creates 0600; an output is an ordinary file: 0666 less the umask.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    f_ = ::fdopen(fd, "wb");
    if (!f_) {
        const int err = errno;
        ::close(fd);
        ::unlink(tmp_.c_str());
        io_fail("cannot open a temporary file for", target_, err);
    }
}

atomic_file::~atomic_file() {
    discard();
}

atomic_file::atomic_file(atomic_file&& other) noexcept
    : target_(std::move(other.target_)), tmp_(std::move(other.tmp_)),
      f_(std::exchange(other.f_, nullptr)) {
    other.tmp_.clear();
}

atomic_file& atomic_file::operator=(atomic_file&& other) noexcept {
    if (this != &other) {
        discard();
        target_ = std::move(other.target_);
        tmp_ = std::move(other.tmp_);
        other.tmp_.clear();
        f_ = std::exchange(other.f_, nullptr);
    }
    return *this;
}

void atomic_file::discard() noexcept {
    if (f_) std::fclose(std::exchange(f_, nullptr));
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
    tmp_.clear();
}

void atomic_file::write(std::string_view bytes) {
    if (!f_) throw error(error_kind::internal, "atomic_file: write after commit");
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size())
        io_fail("cannot write", target_, errno);
}

void atomic_file::commit() {
    if (!f_) throw error(error_kind::internal, "atomic_file: commit twice");
    try {
        if (std::fflush(f_) != 0 || std::ferror(f_)) io_fail("cannot write", target_, errno);
        if (tmp_.empty()) { // written in place (a device or pipe)
            if (std::fclose(std::exchange(f_, nullptr)) != 0)
                io_fail("cannot write", target_, errno);
            return;
        }
        if (::fsync(::fileno(f_)) != 0) io_fail("cannot fsync", target_, errno);
        const int rc = std::fclose(std::exchange(f_, nullptr));
        if (rc != 0) io_fail("cannot write", target_, errno);
        if (::rename(tmp_.c_str(), target_.c_str()) != 0)
            io_fail("cannot rename onto", target_, errno);
    } catch (...) {
        discard();
        throw;
    }
    tmp_.clear(); // renamed: nothing left to remove
    fsync_directory(directory_of(target_));
}

void write_file_atomically(const std::filesystem::path& target, std::string_view bytes) {
    atomic_file out(target);
    out.write(bytes);
    out.commit();
}

void refuse_same_file(const std::filesystem::path& output,
                      std::span<const std::filesystem::path> inputs) {
    // stat() follows links, so a symlink or hard link to an input is caught by its inode.
    struct stat out {};
    if (::stat(output.c_str(), &out) != 0) return;
    for (const auto& in : inputs) {
        struct stat st {};
        if (::stat(in.c_str(), &st) != 0) continue;
        if (st.st_dev == out.st_dev && st.st_ino == out.st_ino)
            throw error(error_kind::usage,
                        fmt::format("refusing to write {} over its own input {}: name another "
                                    "output file",
                                    output.string(), in.string()));
    }
}

} // namespace ktune
