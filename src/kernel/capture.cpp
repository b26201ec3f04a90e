// Capture directories (docs/formats.md#ktunekernel_capture): written all or nothing (a
// temporary directory renamed into place), read back with every size checked.
#include "ktune/kernel/capture.hpp"

#include "core/config_json.hpp"
#include "kernel/file_schema.hpp"
#include "ktune/core/atomic_file.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

namespace ktune::kernel {
std::string capture_data_file(std::size_t i, const captured_argument& a, bool before) {
    return fmt::format("{}-{}.{}", i, a.name, before ? "in" : "out");
}

namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

constexpr const char* schema = "ktune.kernel_capture";
constexpr const char* version = "1.0.0";

std::string data_file(std::size_t i, const captured_argument& a, const char* when) {
    return capture_data_file(i, a, std::string_view(when) == "in");
}

ojson triple(const std::int64_t (&v)[3]) {
    return ojson::array({v[0], v[1], v[2]});
}

void read_triple(const nlohmann::json& j, std::int64_t (&v)[3]) {
    for (int i = 0; i < 3; ++i)
        v[i] = j.at(static_cast<std::size_t>(i)).get<std::int64_t>();
}

std::string read_bytes(const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    if (!in)
        throw error(error_kind::input,
                    fmt::format("{}: missing (named by capture.json)", f.string()));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

element_type dtype_of(const nlohmann::json& a, const fs::path& file) {
    const auto t = parse_element_type(a.at("dtype").get<std::string>());
    if (!t)
        throw error(error_kind::input,
                    fmt::format("{}: argument {}: unknown dtype {}", file.string(),
                                a.value("name", "?"), a.at("dtype").dump()));
    return *t;
}

} // namespace

std::string capture_dir_name(const kernel_capture& c) {
    std::string dims;
    for (const auto& [n, v] : c.prob.dims)
        dims += fmt::format("{}{}{}", dims.empty() ? "" : "_", n, v);
    return fmt::format("{}-{}-{}", c.kernel, c.spec_hash, dims);
}

std::string capture_json(const kernel_capture& c) {
    ojson j;
    j["schema"] = schema;
    j["version"] = version;
    j["kernel"] = c.kernel;
    j["spec"] = c.spec;
    j["spec_hash"] = c.spec_hash;
    j["arch"] = c.arch;
    j["toolkit"] = c.toolkit;
    j["driver"] = c.driver;
    ojson dims = ojson::object();
    for (const auto& [n, v] : c.prob.dims)
        dims[n] = v;
    j["problem"] = dims;
    j["tier"] = c.tier;
    j["config"] = ktune::detail::config_to_json(c.cfg);
    j["launch"] = {{"grid", triple(c.geo.grid)},
                   {"block", triple(c.geo.block)},
                   {"shared_bytes", c.geo.shared_bytes},
                   {"cluster", triple(c.geo.cluster)}};
    ojson args = ojson::array();
    for (std::size_t i = 0; i < c.arguments.size(); ++i) {
        const auto& a = c.arguments[i];
        ojson o;
        o["name"] = a.name;
        o["kind"] = a.kind == argument_kind::buffer ? "buffer" : "scalar";
        o["dtype"] = std::string(to_string(a.type));
        if (a.kind == argument_kind::scalar) {
            o["value"] = a.value;
        } else {
            o["bytes"] = a.bytes;
            if (a.before) o["before"] = data_file(i, a, "in");
            if (a.after) o["after"] = data_file(i, a, "out");
        }
        args.push_back(std::move(o));
    }
    j["arguments"] = std::move(args);
    return j.dump(2) + "\n";
}

fs::path write_capture(const fs::path& root, const kernel_capture& c) {
    fs::path final_dir = root / capture_dir_name(c);
    std::error_code ec;
    if (fs::exists(final_dir, ec)) return {};
    fs::create_directories(root, ec);
    const std::size_t tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
    const fs::path tmp =
        root / fmt::format(".{}.tmp-{}-{:x}", capture_dir_name(c), ::getpid(), tid);
    fs::remove_all(tmp, ec);
    if (!fs::create_directories(tmp, ec) || ec)
        throw error(error_kind::io,
                    fmt::format("capture: cannot create {}: {}", tmp.string(), ec.message()));
    try {
        for (std::size_t i = 0; i < c.arguments.size(); ++i) {
            const auto& a = c.arguments[i];
            if (a.before) write_file_atomically(tmp / data_file(i, a, "in"), *a.before);
            if (a.after) write_file_atomically(tmp / data_file(i, a, "out"), *a.after);
        }
        write_file_atomically(tmp / "capture.json", capture_json(c));
    } catch (...) {
        fs::remove_all(tmp, ec);
        throw;
    }
    // rename(2) of a directory fails when the target exists and is not empty: another thread
    // or process captured the same problem first, and its capture stays.
    fs::rename(tmp, final_dir, ec);
    if (ec) {
        fs::remove_all(tmp, ec);
        return {};
    }
    return final_dir;
}

kernel_capture read_capture(const fs::path& dir) {
    const fs::path file = dir / "capture.json";
    std::ifstream in(file);
    if (!in) throw error(error_kind::io, fmt::format("{}: cannot be read", file.string()));
    std::ostringstream ss;
    ss << in.rdbuf();
    const auto j = nlohmann::ordered_json::parse(ss.str(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw error(error_kind::input, fmt::format("{}: not a JSON object", file.string()));
    if (!detail::is_schema_1x(j, schema))
        throw error(error_kind::input, fmt::format("{}: not a {} 1.x file", file.string(), schema));
    kernel_capture c;
    try {
        c.kernel = j.at("kernel").get<std::string>();
        c.spec = j.at("spec").get<std::string>();
        c.spec_hash = j.at("spec_hash").get<std::string>();
        c.arch = j.at("arch").get<std::string>();
        c.toolkit = j.at("toolkit").get<int>();
        c.driver = j.at("driver").get<int>();
        for (const auto& [n, v] : j.at("problem").items())
            c.prob.dims.emplace_back(n, v.get<std::int64_t>());
        c.tier = j.at("tier").get<std::string>();
        try {
            c.cfg = ktune::detail::config_from_json(j.at("config"));
        } catch (const error& e) { // it names the parameter, not the file
            throw error(error_kind::input, fmt::format("{}: config: {}", file.string(), e.what()));
        }
        const auto& l = j.at("launch");
        read_triple(l.at("grid"), c.geo.grid);
        read_triple(l.at("block"), c.geo.block);
        c.geo.shared_bytes = l.at("shared_bytes").get<std::int64_t>();
        read_triple(l.at("cluster"), c.geo.cluster);
        for (const auto& a : j.at("arguments")) {
            captured_argument x;
            x.name = a.at("name").get<std::string>();
            x.kind = a.at("kind").get<std::string>() == "scalar" ? argument_kind::scalar
                                                                 : argument_kind::buffer;
            x.type = dtype_of(a, file);
            if (x.kind == argument_kind::scalar) {
                x.value = a.at("value").get<std::int64_t>();
            } else {
                x.bytes = a.at("bytes").get<std::int64_t>();
                for (const char* when : {"before", "after"}) {
                    if (!a.contains(when)) continue;
                    const auto name = a.at(when).get<std::string>();
                    // A data file lies in the capture's directory: a path is refused, so a
                    // capture cannot make its reader open files elsewhere.
                    if (name.empty() || name.find('/') != std::string::npos || name == "." ||
                        name == "..")
                        throw error(error_kind::input,
                                    fmt::format("{}: argument {}: \"{}\" is not a file name in "
                                                "the capture's directory",
                                                file.string(), x.name, name));
                    const fs::path f = dir / name;
                    std::string bytes = read_bytes(f);
                    if (static_cast<std::int64_t>(bytes.size()) != x.bytes)
                        throw error(error_kind::input,
                                    fmt::format("{}: {} bytes, capture.json says {} for {}",
                                                f.string(), bytes.size(), x.bytes, x.name));
                    (when[0] == 'b' ? x.before : x.after) = std::move(bytes);
                }
            }
            c.arguments.push_back(std::move(x));
        }
    } catch (const nlohmann::json::exception& e) {
        throw error(error_kind::input,
                    fmt::format("{}: a missing or mistyped field: {}", file.string(), e.what()));
    }
    return c;
}

} // namespace ktune::kernel
