// ingest_trace: hash, digest, object copy, one transaction (include/ktune/store/ingest.hpp).
#include "ktune/store/ingest.hpp"

#include "ktune/core/error.hpp"
#include "ktune/guard/results.hpp"
#include "ktune/trace/trace_file.hpp"
#include "store/sha256.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace ktune::store {
namespace {

[[noreturn]] void io_fail(const std::string& what, const std::string& path) {
    throw error(error_kind::io, what + " " + path + ": " + std::strerror(errno));
}

class fd_handle {
public:
    explicit fd_handle(int fd) : fd_(fd) {}
    ~fd_handle() {
        if (fd_ >= 0) ::close(fd_);
    }
    fd_handle(const fd_handle&) = delete;
    fd_handle& operator=(const fd_handle&) = delete;
    [[nodiscard]] int get() const noexcept { return fd_; }
    int release() noexcept { return std::exchange(fd_, -1); }

private:
    int fd_;
};

void copy_durably(const std::string& from, const std::string& to) {
    fd_handle in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.get() < 0) io_fail("cannot open", from);
    fd_handle out(::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (out.get() < 0) io_fail("cannot create", to);
    std::vector<char> buf(1 << 20);
    for (;;) {
        const auto n = ::read(in.get(), buf.data(), buf.size());
        if (n < 0) io_fail("cannot read", from);
        if (n == 0) break;
        for (ssize_t done = 0; done < n;) {
            const auto w =
                ::write(out.get(), buf.data() + done, static_cast<std::size_t>(n - done));
            if (w < 0) io_fail("cannot write", to);
            done += w;
        }
    }
    if (::fsync(out.get()) != 0) io_fail("cannot fsync", to);
    if (::close(out.release()) != 0) io_fail("cannot close", to);
}

// A JSON file naming the ktune.results schema near its start (guard/results.hpp).
bool looks_like_results(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    const auto first = head.find_first_not_of(" \t\r\n");
    return first != std::string::npos && head[first] == '{' &&
           head.find("\"ktune.results\"") != std::string::npos;
}

void ingest_bench(profile_store& db, const std::string& path, const ingest_options& options,
                  ingest_result& r) {
    r.kind = "bench";
    const auto results = guard::read_results(path); // errors name the file and JSON path
    bench_digest d;
    d.hash = detail::sha256_file(path);
    d.suite = results.suite;
    d.gpu = results.env.gpu;
    d.build = options.build;
    d.recorded_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
    for (const auto& e : results.entries) {
        if (e.status != "ok" || e.data.samples.empty()) continue;
        bench_row row{e.data.name, e.data.shape, e.data.unit, 0, e.data.samples};
        auto sorted = row.samples;
        std::sort(sorted.begin(), sorted.end());
        const auto n = sorted.size();
        row.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        d.rows.push_back(std::move(row));
    }
    r.run.id = d.hash;
    r.run.build = d.build;
    r.run.gpu = d.gpu;
    r.groups = d.rows.size();
    r.already_stored = !db.add_bench(d);
    if (r.already_stored) r.groups = 0;
}

} // namespace

std::string store_object(const std::string& objects_dir, const std::string& path,
                         const std::string& sha256) {
    namespace fs = std::filesystem;
    const std::string rel = sha256.substr(0, 2) + "/" + sha256 + ".ktrace";
    const fs::path dir = fs::path(objects_dir) / sha256.substr(0, 2);
    const fs::path dest = fs::path(objects_dir) / rel;
    if (fs::exists(dest)) return rel; // content-addressed: same name, same bytes
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw error(error_kind::io, "cannot create the object directory " + dir.string() + ": " +
                                        ec.message() + " (pass --objects DIR)");
    // The temporary name is unique per process, so concurrent ingesters of one trace (on a
    // shared mount too) never write the same file; the rename publishes a whole object.
    const fs::path tmp = dir / (sha256 + ".tmp." + std::to_string(::getpid()));
    copy_durably(path, tmp.string());
    if (::rename(tmp.c_str(), dest.c_str()) != 0) {
        ::unlink(tmp.c_str());
        io_fail("cannot rename onto", dest.string());
    }
    fd_handle d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (d.get() >= 0 && ::fsync(d.get()) != 0) io_fail("cannot fsync directory", dir.string());
    return rel;
}

ingest_result ingest_trace(profile_store& db, const std::string& path,
                           const ingest_options& options) {
    const auto t0 = std::chrono::steady_clock::now();
    ingest_result r;
    r.path = path;
    if (!trace::is_trace_file(path) && looks_like_results(path)) {
        ingest_bench(db, path, options, r);
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return r;
    }
    if (!trace::is_trace_file(path))
        throw error(error_kind::input,
                    path + ": not a .ktrace file (no KTRACE magic at byte 0); record one with "
                           "`ktune profile -o run.ktrace -- <cmd>`");
    // Hashing first makes re-ingesting a stored trace cost one read, no decode.
    const auto id = detail::sha256_file(path);
    if (db.has_run(id)) {
        r.run.id = id;
        r.already_stored = true;
    } else {
        auto d = digest_trace(path, options, &r.note);
        if (options.keep_object) d.run.object = store_object(db.objects_dir(), path, d.run.id);
        r.groups = d.kernels.size();
        r.verdicts = d.verdicts.size();
        r.already_stored = !db.add_run(d);
        if (r.already_stored) r.groups = r.verdicts = 0;
        r.run = std::move(d.run);
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

std::string ingest_json(const std::vector<ingest_result>& results, const std::string& db) {
    nlohmann::ordered_json j;
    j["schema"] = "ktune.ingest";
    j["version"] = "1.0.0";
    j["db"] = db;
    auto& runs = j["traces"] = nlohmann::ordered_json::array();
    std::size_t stored = 0, already = 0;
    for (const auto& r : results) {
        (r.already_stored ? already : stored) += 1;
        nlohmann::ordered_json t;
        t["path"] = r.path;
        t["run"] = r.run.id;
        t["status"] = r.already_stored ? "already_stored" : "stored";
        if (r.kind == "bench") {
            t["kind"] = "bench";
            if (!r.already_stored) t["entries"] = r.groups;
        } else if (!r.already_stored) {
            t["build"] = r.run.build;
            t["gpu"] = r.run.gpu;
            t["kernels"] = r.run.kernels;
            t["total_ns"] = r.run.total_ns;
            t["groups"] = r.groups;
            t["verdicts"] = r.verdicts;
            t["complete"] = r.run.complete;
            t["object"] = r.run.object;
        }
        if (!r.note.empty()) t["note"] = r.note;
        runs.push_back(std::move(t));
    }
    j["stored"] = stored;
    j["already_stored"] = already;
    return j.dump(2);
}

} // namespace ktune::store
