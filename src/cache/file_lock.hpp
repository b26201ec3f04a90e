#pragma once
// Private: the writers' lock of a cache file, an exclusive flock on the sidecar "<file>.lock".
// The lock cannot live on the cache file itself, which every store replaces by rename. The
// sidecar is removed when the lock is released, so no command leaves it behind: the holder
// unlinks it while still holding the lock, and a waiter that then wins the flock on the unlinked
// inode sees that the path no longer names its file and starts over on the new one.
#include <filesystem>

namespace ktune::cache::detail {

class file_lock {
public:
    /// Blocks until this process holds the lock of `file`. Throws error(io).
    explicit file_lock(const std::filesystem::path& file);
    ~file_lock();
    file_lock(const file_lock&) = delete;
    file_lock& operator=(const file_lock&) = delete;

private:
    std::filesystem::path path_;
    int fd_ = -1;
};

} // namespace ktune::cache::detail
