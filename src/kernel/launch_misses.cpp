// The misses file (docs/formats.md#ktunekernel_miss). An append is one write(2) of a whole line
// to a descriptor opened O_APPEND, under an exclusive flock on the file itself (it is only ever
// appended to, never replaced, so the lock can live on it): concurrent launchers in several
// processes neither interleave nor duplicate lines, and a killed writer leaves whole lines.
#include "ktune/kernel/launch_misses.hpp"

#include "kernel/file_schema.hpp"

#include "ktune/core/error.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ktune::kernel {
namespace {

constexpr const char* schema = "ktune.kernel_miss";
constexpr const char* version = "1.0.0";

[[noreturn]] void io_fail(const std::filesystem::path& f, const char* what) {
    throw error(error_kind::io,
                fmt::format("misses file {}: {}: {}", f.string(), what, std::strerror(errno)));
}

/// Closes the descriptor (which drops the flock) on every path out.
class locked_fd {
public:
    explicit locked_fd(const std::filesystem::path& f)
        : fd_(::open(f.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) {
        if (fd_ < 0) io_fail(f, "open");
        int rc = 0;
        while ((rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
        }
        if (rc != 0) {
            ::close(fd_);
            io_fail(f, "flock");
        }
    }
    ~locked_fd() { ::close(fd_); }
    locked_fd(const locked_fd&) = delete;
    locked_fd& operator=(const locked_fd&) = delete;
    [[nodiscard]] int get() const noexcept { return fd_; }

private:
    int fd_;
};

std::string read_all(int fd, const std::filesystem::path& f) {
    std::string out;
    char buf[65536];
    off_t at = 0;
    for (;;) {
        const ssize_t n = ::pread(fd, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) io_fail(f, "read");
        if (n == 0) return out;
        out.append(buf, static_cast<std::size_t>(n));
        at += n;
    }
}

} // namespace

std::string miss_line(const launch_miss& m) {
    nlohmann::ordered_json j;
    j["schema"] = schema;
    j["version"] = version;
    j["kernel"] = m.kernel;
    j["spec"] = m.spec;
    j["spec_hash"] = m.spec_hash;
    j["problem"] = m.problem;
    j["bucket"] = m.bucket;
    j["dtype"] = m.dtype;
    j["arch"] = m.arch;
    j["toolkit"] = m.toolkit;
    j["driver"] = m.driver;
    j["protocol"] = m.protocol;
    return j.dump();
}

launch_miss parse_miss_line(std::string_view line, std::string_view where) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw error(error_kind::input, fmt::format("{}: not a JSON object", where));
    if (!detail::is_schema_1x(j, schema))
        throw error(error_kind::input,
                    fmt::format("{}: not a {} 1.x line (schema {}, version {})", where, schema,
                                j.contains("schema") ? j["schema"].dump() : "missing",
                                j.contains("version") ? j["version"].dump() : "missing"));
    launch_miss m;
    try {
        m.kernel = j.at("kernel").get<std::string>();
        m.spec = j.at("spec").get<std::string>();
        m.spec_hash = j.at("spec_hash").get<std::string>();
        m.problem = j.at("problem").get<std::string>();
        m.bucket = j.at("bucket").get<std::string>();
        m.dtype = j.at("dtype").get<std::string>();
        m.arch = j.at("arch").get<std::string>();
        m.toolkit = j.at("toolkit").get<int>();
        m.driver = j.at("driver").get<int>();
        m.protocol = j.at("protocol").get<int>();
    } catch (const nlohmann::json::exception& e) {
        throw error(error_kind::input, fmt::format("{}: a missing or mistyped field ({}); a {} "
                                                   "line needs kernel, spec, spec_hash, problem, "
                                                   "bucket, dtype, arch, toolkit, driver, "
                                                   "protocol",
                                                   where, e.what(), schema));
    }
    return m;
}

bool record_miss(const std::filesystem::path& file, const launch_miss& m) {
    const std::string line = miss_line(m) + "\n";
    // The default file lies beside the cache file, whose directory a fresh machine lacks.
    std::error_code ec;
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
    const locked_fd fd(file);
    const std::string have = read_all(fd.get(), file);
    // A line equal to ours, whole (at the start of the file or after a newline).
    for (std::size_t at = have.find(line); at != std::string::npos; at = have.find(line, at + 1))
        if (at == 0 || have[at - 1] == '\n') return false;
    // A torn last line (a writer killed mid-write) must not glue onto ours.
    const std::string out = (!have.empty() && have.back() != '\n') ? "\n" + line : line;
    const ssize_t n = ::write(fd.get(), out.data(), out.size());
    if (n != static_cast<ssize_t>(out.size())) io_fail(file, "write");
    if (::fsync(fd.get()) != 0) io_fail(file, "fsync");
    return true;
}

std::vector<launch_miss> read_misses(const std::filesystem::path& file) {
    std::vector<launch_miss> out;
    std::ifstream in(file);
    if (!in) return out;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
        if (!line.empty())
            out.push_back(parse_miss_line(line, fmt::format("{}:{}", file.string(), n)));
    return out;
}

} // namespace ktune::kernel
