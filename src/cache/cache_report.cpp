// The reports of `ktune cache …`: JSON (schemas ktune.cache.<command>, docs/formats.md) and text.
#include "ktune/cache/cache_report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ktune::cache {
namespace {

using ojson = nlohmann::ordered_json;

ojson doc(std::string_view what) {
    return {{"schema", fmt::format("ktune.cache.{}", what)},
            {"version", std::string(cache_report_version)}};
}

// The stored form of the entry (to_json_text), with its readable key first.
ojson entry_json(const entry& e) {
    ojson j{{"key", e.key.to_string()}};
    j.update(ojson::parse(to_json_text(e)));
    return j;
}

std::string measurement_text(const entry& e) {
    return fmt::format("median {:.4g} us [{:.4g}, {:.4g}] n={}", e.time.median_us, e.time.ci_low_us,
                       e.time.ci_high_us, e.time.samples);
}

} // namespace

std::string ls_json(const std::filesystem::path& file, std::span<const entry> entries,
                    const key_filter& filter) {
    ojson j = doc("ls");
    j["file"] = file.string();
    j["entries"] = ojson::array();
    for (const auto& e : entries)
        if (filter.matches(e.key)) j["entries"].push_back(entry_json(e));
    return j.dump(2);
}

std::string format_ls(const std::filesystem::path& file, std::span<const entry> entries,
                      const key_filter& filter) {
    std::string out;
    std::size_t shown = 0;
    for (const auto& e : entries) {
        if (!filter.matches(e.key)) continue;
        out += fmt::format("{}\n    {}  {}  {} {} {}\n", e.key.to_string(), e.cfg.to_string(),
                           measurement_text(e), e.origin.gpu_name, e.origin.date, e.origin.host);
        ++shown;
    }
    return out + fmt::format("{} of {} entries in {}\n", shown, entries.size(), file.string());
}

std::string get_json(const std::filesystem::path& file, const cache_key& query,
                     const through_result& r, bool asked_shared) {
    ojson j = doc("get");
    j["file"] = file.string();
    j["query"] = query.to_string();
    j["tier"] = std::string(to_string(r.tier));
    if (asked_shared) j["from_redis"] = r.from_shared;
    if (r.hit) j["entry"] = entry_json(*r.hit);
    return j.dump(2);
}

std::string format_get(const std::filesystem::path& file, const cache_key& query,
                       const through_result& r) {
    if (!r.hit)
        return fmt::format("miss: nothing tuned for {} in {}\n", query.to_string(), file.string());
    const entry& e = *r.hit;
    return fmt::format("{}{}: {}\n  {}\n  {}  {} {}\n", to_string(r.tier),
                       r.from_shared ? " (from Redis)" : "", e.key.to_string(), e.cfg.to_string(),
                       measurement_text(e), e.origin.gpu_name, e.origin.date);
}

std::string merge_json(std::span<const std::string> inputs, const std::string& output,
                       const merge_report& r) {
    ojson j = doc("merge");
    j["inputs"] = std::vector<std::string>(inputs.begin(), inputs.end());
    j["output"] = output;
    j["entries_in"] = r.entries_in;
    j["entries_out"] = r.entries_out;
    return j.dump(2);
}

std::string format_merge(std::span<const std::string> inputs, const std::string& output,
                         const merge_report& r) {
    return fmt::format("merged {} entries from {} files into {} entries in {}\n", r.entries_in,
                       inputs.size(), r.entries_out, output);
}

std::string verify_json(const std::filesystem::path& file, std::span<const verify_issue> issues) {
    ojson j = doc("verify");
    j["file"] = file.string();
    j["valid"] = issues.empty();
    j["issues"] = ojson::array();
    for (const auto& i : issues)
        j["issues"].push_back({{"index", i.index}, {"key", i.key}, {"problem", i.problem}});
    return j.dump(2);
}

std::string format_verify(const std::filesystem::path& file, std::span<const verify_issue> issues,
                          std::size_t entries) {
    if (issues.empty()) return fmt::format("{}: valid ({} entries)\n", file.string(), entries);
    std::string out;
    for (const auto& i : issues)
        out += fmt::format("{}: entry {} ({}): {}\n", file.string(), i.index, i.key, i.problem);
    return out;
}

std::string rm_json(const std::filesystem::path& file, std::size_t removed) {
    ojson j = doc("rm");
    j["file"] = file.string();
    j["removed"] = removed;
    return j.dump(2);
}

std::string format_rm(const std::filesystem::path& file, std::size_t removed) {
    return fmt::format("removed {} entries from {}\n", removed, file.string());
}

std::string push_json(const push_report& r) {
    ojson j = doc("push");
    j["file"] = r.file.string();
    j["redis"] = r.redis;
    j["entries"] = r.entries;
    j["written"] = r.written;
    return j.dump(2);
}

std::string format_push(const push_report& r) {
    return fmt::format(
        "pushed {} of {} entries from {} to {} (the rest: Redis holds a better one)\n", r.written,
        r.entries, r.file.string(), r.redis);
}

std::string pull_json(const pull_report& r) {
    ojson j = doc("pull");
    j["file"] = r.file.string();
    j["redis"] = r.redis;
    j["entries"] = r.entries;
    j["added"] = r.stored.added;
    j["replaced"] = r.stored.replaced;
    j["kept"] = r.stored.kept;
    j["rejected"] = r.rejected;
    j["total"] = r.stored.total;
    return j.dump(2);
}

std::string format_pull(const pull_report& r) {
    std::string out = fmt::format(
        "pulled {} entries from {} into {}: {} added, {} replaced, {} kept; {} now\n", r.entries,
        r.redis, r.file.string(), r.stored.added, r.stored.replaced, r.stored.kept, r.stored.total);
    if (r.rejected)
        out += fmt::format("warning: {} values in Redis were not valid entries and were skipped\n",
                           r.rejected);
    return out;
}

} // namespace ktune::cache
