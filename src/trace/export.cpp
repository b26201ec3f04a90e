// Streaming exports of a .ktrace: Chrome trace event JSON (Perfetto) and CSV.
#include "ktune/trace/export.hpp"

#include "ktune/core/atomic_file.hpp"
#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <utility>

namespace ktune::trace {

export_format parse_export_format(std::string_view name) {
    if (name == "chrome") return export_format::chrome;
    if (name == "csv") return export_format::csv;
    if (name == "sqlite")
        throw error(error_kind::unsupported,
                    "export format sqlite is not supported yet; use --format chrome or csv");
    throw error(error_kind::usage,
                "unknown export format '" + std::string(name) + "'; use chrome or csv");
}

namespace {

// The output replaces its file only once the export is complete (ktune/core/atomic_file.hpp).
struct out_file {
    atomic_file file;
    std::FILE* f;
    explicit out_file(const std::string& p) : file(p), f(file.stream()) {}
    void close() { file.commit(); }
};

// Escaped JSON names, computed once per string id.
class names {
public:
    explicit names(const trace_reader& r) : r_(r) {}
    const std::string& json(std::uint32_t id) {
        if (id >= cache_.size()) cache_.resize(id + 1);
        if (cache_[id].empty()) cache_[id] = nlohmann::json(r_.string(id).demangled).dump();
        return cache_[id];
    }
    const std::string& csv(std::uint32_t id) {
        if (id >= csv_.size()) csv_.resize(id + 1);
        if (csv_[id].empty()) {
            std::string s = "\"";
            for (char c : r_.string(id).demangled)
                s += c == '"' ? std::string("\"\"") : std::string(1, c);
            csv_[id] = s + "\"";
        }
        return csv_[id];
    }

private:
    const trace_reader& r_;
    std::vector<std::string> cache_, csv_;
};

const char* copy_kind_name(std::uint8_t k) {
    static constexpr const char* n[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                        "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
    return k < std::size(n) ? n[k] : "unknown";
}

class chrome_visitor final : public trace_visitor {
public:
    chrome_visitor(std::FILE* f, trace_reader& r, std::uint64_t origin)
        : f_(f), names_(r), origin_(origin) {}
    std::uint64_t records = 0;
    std::set<std::pair<std::uint32_t, std::uint32_t>> tracks; // (device, stream)

    void on_kernels(std::span<const kernel_record> rs) override {
        for (const auto& k : rs) {
            if (!k.timed()) continue;
            begin(k.start_ns, k.end_ns, names_.json(k.name_id), k.device, k.stream, "kernel");
            fmt::print(f_,
                       ",\"args\":{{\"grid\":\"{},{},{}\",\"block\":\"{},{},{}\",\"registers\":{},"
                       "\"smem\":{},\"correlation\":{},\"graph\":{}",
                       k.grid.x, k.grid.y, k.grid.z, k.block.x, k.block.y, k.block.z, k.registers,
                       k.static_smem + k.dynamic_smem, k.correlation, k.graph_id);
            // The NVTX range (path) the kernel was launched in: searchable in Perfetto.
            if (k.nvtx_path) fmt::print(f_, ",\"nvtx\":{}", names_.json(k.nvtx_path - 1));
            std::fputs("}}", f_);
        }
    }
    void on_memcpys(std::span<const memcpy_record> rs) override {
        for (const auto& m : rs) {
            if (!m.timed()) continue;
            begin(m.start_ns, m.end_ns,
                  fmt::format("\"memcpy {} {} B\"", copy_kind_name(m.copy_kind), m.bytes), m.device,
                  m.stream, "memcpy");
            fmt::print(f_, ",\"args\":{{\"bytes\":{}}}}}", m.bytes);
        }
    }
    void on_memsets(std::span<const memset_record> rs) override {
        for (const auto& m : rs) {
            if (!m.timed()) continue;
            begin(m.start_ns, m.end_ns, fmt::format("\"memset {} B\"", m.bytes), m.device, m.stream,
                  "memset");
            fmt::print(f_, "}}");
        }
    }
    void on_syncs(std::span<const sync_record> rs) override {
        for (const auto& s : rs) {
            if (!s.timed()) continue;
            sep();
            fmt::print(f_,
                       "{{\"ph\":\"X\",\"cat\":\"sync\",\"name\":\"sync\",\"pid\":\"host\","
                       "\"tid\":\"sync\",\"ts\":{:.3f},\"dur\":{:.3f}}}",
                       us(s.start_ns), (s.end_ns - s.start_ns) / 1e3);
        }
    }
    void on_nvtx(std::span<const nvtx_record> rs) override {
        for (const auto& n : rs) {
            if (!n.timed()) continue;
            sep();
            fmt::print(f_,
                       "{{\"ph\":\"X\",\"cat\":\"nvtx\",\"name\":{},\"pid\":\"host\","
                       "\"tid\":\"nvtx\",\"ts\":{:.3f},\"dur\":{:.3f}}}",
                       names_.json(n.name_id), us(n.start_ns), (n.end_ns - n.start_ns) / 1e3);
        }
    }

private:
    double us(std::uint64_t ns) {
        if (origin_ == 0) origin_ = ns; // synthetic traces without a session start time
        return (static_cast<double>(static_cast<std::int64_t>(ns - origin_))) / 1e3;
    }
    void sep() {
        if (records++) std::fputs(",\n", f_);
    }
    void begin(std::uint64_t start, std::uint64_t end, const std::string& name_json,
               std::uint32_t device, std::uint32_t stream, const char* cat) {
        sep();
        tracks.emplace(device, stream);
        fmt::print(f_,
                   "{{\"ph\":\"X\",\"cat\":\"{}\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":{:.3f},"
                   "\"dur\":{:.3f}",
                   cat, name_json, device, stream, us(start), (end - start) / 1e3);
    }
    std::FILE* f_;
    names names_;
    std::uint64_t origin_;
};

class csv_visitor final : public trace_visitor {
public:
    csv_visitor(std::FILE* f, trace_reader& r) : f_(f), names_(r) {
        std::fputs("kind,name,start_ns,end_ns,duration_ns,device,context,stream,correlation,"
                   "grid,block,cluster,registers,static_smem,dynamic_smem,local_mem,bytes,"
                   "graph_id,graph_node_id,no_timestamp,nvtx\n",
                   f_);
    }
    std::uint64_t records = 0;
    void on_kernels(std::span<const kernel_record> rs) override {
        for (const auto& k : rs)
            fmt::print(f_,
                       "kernel,{},{},{},{},{},{},{},{},{}x{}x{},{}x{}x{},{}x{}x{},{},{},{},{},,{},{"
                       "},{},{}\n",
                       names_.csv(k.name_id), k.start_ns, k.end_ns, k.duration_ns(), k.device,
                       k.context, k.stream, k.correlation, k.grid.x, k.grid.y, k.grid.z, k.block.x,
                       k.block.y, k.block.z, k.cluster.x, k.cluster.y, k.cluster.z, k.registers,
                       k.static_smem, k.dynamic_smem, k.local_mem, k.graph_id, k.graph_node_id,
                       k.timed() ? 0 : 1,
                       k.nvtx_path ? names_.csv(k.nvtx_path - 1) : std::string());
        records += rs.size();
    }
    void on_memcpys(std::span<const memcpy_record> rs) override {
        for (const auto& m : rs)
            fmt::print(f_, "memcpy,{},{},{},{},{},{},{},{},,,,,,,,{},{},,{},\n",
                       copy_kind_name(m.copy_kind), m.start_ns, m.end_ns, m.duration_ns(), m.device,
                       m.context, m.stream, m.correlation, m.bytes, m.graph_id, m.timed() ? 0 : 1);
        records += rs.size();
    }
    void on_memsets(std::span<const memset_record> rs) override {
        for (const auto& m : rs)
            fmt::print(f_, "memset,memset,{},{},{},{},{},{},{},,,,,,,,{},{},,{},\n", m.start_ns,
                       m.end_ns, m.duration_ns(), m.device, m.context, m.stream, m.correlation,
                       m.bytes, m.graph_id, m.timed() ? 0 : 1);
        records += rs.size();
    }
    void on_syncs(std::span<const sync_record> rs) override {
        for (const auto& s : rs)
            fmt::print(f_, "sync,sync type {},{},{},{},,{},{},{},,,,,,,,,,,{},\n", s.type,
                       s.start_ns, s.end_ns, s.duration_ns(), s.context, s.stream, s.correlation,
                       s.timed() ? 0 : 1);
        records += rs.size();
    }
    void on_nvtx(std::span<const nvtx_record> rs) override {
        for (const auto& n : rs)
            fmt::print(f_, "nvtx,{},{},{},{},,,,,,,,,,,,,,,{},\n", names_.csv(n.name_id),
                       n.start_ns, n.end_ns, n.duration_ns(), n.timed() ? 0 : 1);
        records += rs.size();
    }

private:
    std::FILE* f_;
    names names_;
};

} // namespace

export_summary export_trace(const std::string& trace_path, const std::string& out_path,
                            export_format format) {
    refuse_same_file(out_path, {trace_path});
    trace_reader reader(trace_path);
    out_file out(out_path);
    export_summary s;
    if (format == export_format::csv) {
        csv_visitor v(out.f, reader);
        s.damage = reader.read(v).damage;
        s.records = v.records;
    } else {
        std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out.f);
        chrome_visitor v(out.f, reader, reader.environment().start_trace_ns);
        s.damage = reader.read(v).damage;
        s.records = v.records;
        // Track names: the GPU and stream of each lane, as Perfetto shows them.
        const auto& env = reader.environment();
        std::set<std::uint32_t> devices;
        for (const auto& [dev, stream] : v.tracks) {
            fmt::print(out.f,
                       ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},"
                       "\"args\":{{\"name\":\"stream {}\"}}}}",
                       dev, stream, stream);
            devices.insert(dev);
        }
        for (const auto dev : devices) {
            std::string name = "GPU " + std::to_string(dev);
            for (const auto& g : env.gpus)
                if (g.device == dev) name += " (" + g.name + ")";
            fmt::print(
                out.f,
                ",\n{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"args\":{{\"name\":{}}}}}",
                dev, nlohmann::json(name).dump());
        }
        nlohmann::json meta{{"schema", "ktune.chrome_export"},
                            {"version", "1.0.0"},
                            {"source", trace_path},
                            {"host", env.host},
                            {"pid", env.pid}};
        fmt::print(out.f, "\n],\"otherData\":{}}}\n", meta.dump());
    }
    out.close();
    return s;
}

} // namespace ktune::trace
