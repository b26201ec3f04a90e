// The compile server (compile_server_main) and its wire format. NVRTC serialises much of a
// compile inside one process, so the pool runs one of these per core
// (docs/perf/tune.md#compile-servers).
#include "compile/compile_wire.hpp"
#include "core/child_process.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <unistd.h>

namespace ktune::compile {

using ktune::detail::child_fds;
using ktune::detail::close_input_and_reap;
using ktune::detail::kill_and_reap;
using ktune::detail::read_line;
using ktune::detail::reap_reason;
using ktune::detail::spawn_piped;
using ktune::detail::write_all;
namespace detail {
namespace {

using json = nlohmann::json;

json parse(std::string_view line) {
    try {
        return json::parse(line);
    } catch (const json::exception& e) {
        throw error(error_kind::input, fmt::format("compile server message: {}", e.what()));
    }
}

template <class T>
T field(const json& j, const char* name) {
    const auto it = j.find(name);
    if (it == j.end())
        throw error(error_kind::input, fmt::format("compile server message lacks '{}'", name));
    try {
        return it->get<T>();
    } catch (const json::exception& e) {
        throw error(error_kind::input,
                    fmt::format("compile server message: '{}': {}", name, e.what()));
    }
}

} // namespace

std::string encode_batch(const std::vector<compile_request>& rs, const std::filesystem::path& dir) {
    json a = json::array();
    for (const auto& r : rs)
        a.push_back({{"source", r.source},
                     {"name", r.name_expression},
                     {"arch", r.arch},
                     {"options", r.options}});
    return json{{"cache", dir.string()}, {"requests", std::move(a)}}.dump();
}

std::vector<compile_request> decode_batch(std::string_view line, std::filesystem::path& dir) {
    const json j = parse(line);
    dir = field<std::string>(j, "cache");
    std::vector<compile_request> out;
    for (const auto& r : field<json>(j, "requests"))
        out.push_back({field<std::string>(r, "source"), field<std::string>(r, "name"),
                       field<std::string>(r, "arch"),
                       field<std::vector<std::string>>(r, "options")});
    return out;
}

std::string encode_results(const std::vector<compile_result>& rs) {
    json a = json::array();
    for (const auto& r : rs)
        a.push_back({{"ok", r.ok},
                     {"lowered", r.lowered_name},
                     {"log", r.log},
                     {"ms", r.compile_ms},
                     {"hit", r.cache_hit},
                     {"path", r.cubin_path.string()}});
    return json{{"results", std::move(a)}}.dump();
}

std::vector<compile_result> decode_results(std::string_view line) {
    std::vector<compile_result> out;
    for (const auto& r : field<json>(parse(line), "results")) {
        compile_result c;
        c.ok = field<bool>(r, "ok");
        c.lowered_name = field<std::string>(r, "lowered");
        c.log = field<std::string>(r, "log");
        c.compile_ms = field<double>(r, "ms");
        c.cache_hit = field<bool>(r, "hit");
        c.cubin_path = field<std::string>(r, "path");
        out.push_back(std::move(c));
    }
    return out;
}

std::string ready_line() {
    return json{{"ready", true}, {"nvrtc", nvrtc_version()}}.dump();
}

bool is_ready_line(std::string_view line) {
    try {
        const json j = json::parse(line);
        return j.is_object() && j.value("ready", false);
    } catch (const json::exception&) {
        return false;
    }
}

} // namespace detail

int compile_server_main(int in_fd, int out_fd) {
    // No warm-up compile after the ready line: servers start at the pool's first miss, so the
    // first batch would queue behind it, and it saves the first real compile only part of what
    // it costs (docs/perf/kernel.md#compile-cost-per-candidate).
    if (!ktune::detail::write_all(out_fd, detail::ready_line() + "\n")) return 1;
    std::string buf, line;
    while (ktune::detail::read_line(in_fd, buf, line)) {
        std::vector<compile_result> res;
        std::size_t count = 1;
        try {
            std::filesystem::path dir;
            const auto rs = detail::decode_batch(line, dir);
            count = rs.size();
            const cubin_cache cache(dir);
            res = rs.size() == 1 ? std::vector<compile_result>{compile_cached(rs[0], &cache)}
                                 : compile_batch(rs, &cache);
        } catch (const std::exception& e) {
            // A malformed batch or an unusable cache: every request of it fails with the reason.
            res.assign(count, compile_result{});
            for (auto& r : res)
                r.log = fmt::format("compile server: {}", e.what());
        }
        if (!ktune::detail::write_all(out_fd, detail::encode_results(res) + "\n")) return 1;
    }
    return 0; // end of input: the client is done
}

} // namespace ktune::compile
