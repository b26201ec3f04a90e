// See file_lock.hpp for why the sidecar is removed on release and how waiters stay correct.
#include "cache/file_lock.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ktune::cache::detail {
namespace {

[[noreturn]] void lock_fail(std::string_view what, const std::filesystem::path& p, int err) {
    throw error(error_kind::io, fmt::format("{} {}: {}", what, p.string(), std::strerror(err)));
}

bool same_inode(int fd, const std::filesystem::path& p) {
    struct stat held {
    }, named{};
    return ::fstat(fd, &held) == 0 && ::stat(p.c_str(), &named) == 0 &&
           held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

} // namespace

namespace {
// Two links to one cache must take one lock: the sidecar belongs to the file they resolve to.
std::filesystem::path resolved(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(file, ec)) return file;
    auto real = std::filesystem::weakly_canonical(file, ec);
    return ec ? file : real;
}
} // namespace

file_lock::file_lock(const std::filesystem::path& file) : path_(resolved(file).string() + ".lock") {
    for (;;) {
        fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) lock_fail("cannot open lock file", path_, errno);
        while (::flock(fd_, LOCK_EX) != 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd_);
            lock_fail("cannot lock", path_, err);
        }
        // The previous holder may have removed this inode between our open and our flock.
        if (same_inode(fd_, path_)) return;
        ::close(fd_);
    }
}

file_lock::~file_lock() {
    ::unlink(path_.c_str()); // while still locked: see file_lock.hpp
    ::close(fd_);            // closing releases the flock
}

} // namespace ktune::cache::detail
