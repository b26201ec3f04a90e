// ktune cache ls|get|merge|verify|rm|push|pull: parsing and printing around ktune/cache.
#include "command.hpp"

#include "ktune/cache/cache.hpp"
#include "ktune/cache/cache_report.hpp"
#include "ktune/cache/shared_tier.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>

namespace ktune::cli {
namespace {

using namespace ktune::cache;

struct filter_options {
    std::string op, op_version, dtype, arch, bucket;
    std::optional<int> toolkit, driver, protocol;
};

struct cache_options {
    std::string file;
    std::vector<std::string> inputs;
    std::string output;
    std::string op, op_version = "", dtype = "fp32", shape, policy = "exact", arch;
    std::string toolkit;
    int driver = -1;
    int protocol = current_protocol;
    filter_options filter;
    bool all = false;
    bool json = false;
    std::string redis;
    int redis_timeout_ms = 40;
};

shared_tier redis_tier(const cache_options& o) {
    return shared_tier({.url = o.redis, .timeout = std::chrono::milliseconds(o.redis_timeout_ms)});
}

std::filesystem::path file_or_default(const std::string& f) {
    return f.empty() ? default_cache_path() : std::filesystem::path(f);
}

// A cache named on the command line must exist: a mistyped path is an error, not an empty
// cache. The default path may be missing (nothing tuned yet).
std::filesystem::path existing_file_or_default(const std::string& f) {
    if (f.empty()) return default_cache_path();
    std::error_code ec;
    if (!std::filesystem::exists(f, ec))
        throw error(error_kind::not_found,
                    fmt::format("no cache file {}: check the path (without one, the default "
                                "cache {} is used)",
                                f, default_cache_path().string()));
    return f;
}

int toolkit_from(const std::string& s) {
    // "13.0" → 13000, "12.8" → 12080, or a raw number "13000".
    const auto dot = s.find('.');
    try {
        if (dot == std::string::npos) return std::stoi(s);
        return std::stoi(s.substr(0, dot)) * 1000 + std::stoi(s.substr(dot + 1)) * 10;
    } catch (const std::exception&) {
        throw error(error_kind::usage,
                    fmt::format("--toolkit '{}': write it like 13.0 or 13000", s));
    }
}

bucket_policy policy_from(const std::string& s) {
    if (s == "exact") return bucket_policy::exact();
    if (s == "pow2") return bucket_policy::pow2();
    if (s.rfind("tile:", 0) == 0) return bucket_policy::tile(parse_shape(s.substr(5)));
    throw error(error_kind::usage,
                fmt::format("--bucket '{}': use exact, pow2 or tile:<t>[x<t>…]", s));
}

key_filter filter_from(const filter_options& o) {
    key_filter f;
    f.op = o.op;
    f.op_version = o.op_version;
    f.dtype = o.dtype;
    f.arch = o.arch;
    if (!o.bucket.empty()) f.bucket = parse_shape(o.bucket);
    f.toolkit = o.toolkit;
    f.driver_major = o.driver;
    f.protocol = o.protocol;
    return f;
}

void add_filter_options(CLI::App* app, filter_options& f) {
    app->add_option("--op", f.op, "Only this op");
    app->add_option("--op-version", f.op_version, "Only this op version / source hash");
    app->add_option("--dtype", f.dtype, "Only this dtype");
    app->add_option("--arch", f.arch, "Only this arch, e.g. sm_90");
    app->add_option("--bucket", f.bucket, "Only this bucket, e.g. 4096x4096");
    app->add_option("--toolkit", f.toolkit, "Only this toolkit, e.g. 13000");
    app->add_option("--driver", f.driver, "Only this driver major");
    app->add_option("--protocol", f.protocol, "Only this measurement-protocol version");
}

int run_ls(const cache_options& o) {
    const auto file = existing_file_or_default(o.file);
    const cache_index idx = cache_index::load(file);
    const key_filter f = filter_from(o.filter);
    fmt::print("{}",
               o.json ? ls_json(file, idx.entries(), f) + "\n" : format_ls(file, idx.entries(), f));
    return ok;
}

int run_get(const cache_options& o) {
    cache_key k;
    k.op = o.op;
    k.op_version = o.op_version;
    k.dtype = o.dtype;
    k.bucket = policy_from(o.policy).apply(parse_shape(o.shape));
    k.protocol = o.protocol;
    if (o.arch.empty() || o.toolkit.empty() || o.driver < 0) {
        // Whatever is not given comes from this machine's GPU, toolkit and driver.
        environment env;
        try {
            env = environment::current();
            if (!env.has_gpu()) throw error(error_kind::no_device, "no CUDA GPU for a cache key");
        } catch (const error& e) {
            throw error(error_kind::usage,
                        fmt::format("{}; give --arch, --toolkit and --driver to look up a key "
                                    "for another machine",
                                    e.what()));
        }
        k.arch = o.arch.empty() ? env.arch : o.arch;
        k.toolkit = o.toolkit.empty() ? env.toolkit : toolkit_from(o.toolkit);
        k.driver_major = o.driver < 0 ? env.driver_major : o.driver;
    } else {
        k.arch = o.arch;
        k.toolkit = toolkit_from(o.toolkit);
        k.driver_major = o.driver;
    }
    // With --redis a missing file is fine: a shared hit creates it.
    const auto file = o.redis.empty() ? existing_file_or_default(o.file) : file_or_default(o.file);
    const cache_index idx = cache_index::load(file);
    through_result r;
    if (o.redis.empty()) {
        const auto local = idx.lookup(prepared_key(k));
        r.tier = local.tier;
        if (local.hit) r.hit = *local.hit;
    } else {
        shared_tier tier = redis_tier(o);
        r = lookup_through(file, idx, tier, prepared_key(k));
    }
    fmt::print("{}",
               o.json ? get_json(file, k, r, !o.redis.empty()) + "\n" : format_get(file, k, r));
    return r.hit ? ok : finding;
}

int run_merge(const cache_options& o) {
    const std::vector<std::filesystem::path> inputs(o.inputs.begin(), o.inputs.end());
    const merge_report r = merge_files(inputs, o.output);
    fmt::print("{}", o.json ? merge_json(o.inputs, o.output, r) + "\n"
                            : format_merge(o.inputs, o.output, r));
    return ok;
}

int run_verify(const cache_options& o) {
    const auto file = existing_file_or_default(o.file);
    const auto issues = verify(file);
    fmt::print("{}", o.json ? verify_json(file, issues) + "\n"
                            : format_verify(file, issues, read_cache(file).size()));
    return issues.empty() ? ok : finding;
}

int run_rm(const cache_options& o) {
    const key_filter f = filter_from(o.filter);
    const bool any = !f.op.empty() || !f.op_version.empty() || !f.dtype.empty() ||
                     !f.arch.empty() || f.bucket || f.toolkit || f.driver_major || f.protocol;
    if (!any && !o.all)
        throw error(error_kind::usage,
                    "ktune cache rm: give a filter (--op, --arch, …) or --all to remove every "
                    "entry");
    const auto file = file_or_default(o.file);
    const std::size_t n = remove(file, f);
    fmt::print("{}", o.json ? rm_json(file, n) + "\n" : format_rm(file, n));
    return ok;
}

int run_push(const cache_options& o) {
    const auto file = existing_file_or_default(o.file);
    const auto entries = read_cache(file);
    shared_tier tier = redis_tier(o);
    const push_report r{file, o.redis, entries.size(), tier.push(entries)};
    fmt::print("{}", o.json ? push_json(r) + "\n" : format_push(r));
    return ok;
}

int run_pull(const cache_options& o) {
    const auto file = file_or_default(o.file);
    shared_tier tier = redis_tier(o);
    const auto entries = tier.pull();
    const store_report stored = store(file, entries);
    const pull_report r{file, o.redis, entries.size(), stored, tier.stats().rejected};
    fmt::print("{}", o.json ? pull_json(r) + "\n" : format_pull(r));
    return ok;
}

} // namespace

command add_cache(CLI::App& root) {
    auto o = std::make_shared<cache_options>();
    auto* app = root.add_subcommand("cache", "List, read, merge, verify and remove tuned configs");
    app->require_subcommand(1);
    const std::string file_help = "Cache file (default: $KTUNE_CACHE or ~/.cache/ktune/cache.json)";

    auto* ls = app->add_subcommand("ls", "List entries (filters: --op, --arch, …)");
    ls->add_option("file", o->file, file_help);
    add_filter_options(ls, o->filter);
    ls->add_flag("--json", o->json, "Machine-readable output (schema ktune.cache.ls 1.0.0)");

    auto* get = app->add_subcommand("get", "Look a config up as an application would; exit 1 on "
                                           "a miss");
    get->add_option("op", o->op, "Op name")->required();
    get->add_option("--shape", o->shape, "Problem shape, e.g. 4096x4096")->required();
    get->add_option("--dtype", o->dtype, "Data type (default fp32)");
    get->add_option("--op-version", o->op_version, "Op version / source hash");
    get->add_option("--bucket", o->policy, "Bucket policy: exact (default), pow2, tile:128x128");
    get->add_option("--arch", o->arch, "GPU arch, e.g. sm_90 (default: this GPU)");
    get->add_option("--toolkit", o->toolkit, "CUDA toolkit, e.g. 13.0 (default: this runtime)");
    get->add_option("--driver", o->driver, "Driver major, e.g. 580 (default: this driver)");
    get->add_option("--protocol", o->protocol, "Measurement-protocol version");
    get->add_option("-f,--file", o->file, file_help);
    get->add_flag("--json", o->json, "Machine-readable output (schema ktune.cache.get 1.0.0)");
    const std::string redis_help = "Redis shared tier: redis://host:port/db or unix:///path.sock";
    const std::string timeout_help = "Bound on each Redis call in ms (default 40)";
    get->add_option("--redis", o->redis, redis_help + " (asked on a local miss)");
    get->add_option("--redis-timeout-ms", o->redis_timeout_ms, timeout_help);

    auto* mg = app->add_subcommand("merge", "Merge cache files by the tie rule");
    mg->add_option("inputs", o->inputs, "Cache files to merge")->required();
    mg->add_option("-o,--output", o->output, "Merged cache file (written atomically)")->required();
    mg->add_flag("--json", o->json, "Machine-readable output (schema ktune.cache.merge 1.0.0)");

    auto* vf = app->add_subcommand("verify", "Check a cache file; exit 1 on problems");
    vf->add_option("file", o->file, file_help);
    vf->add_flag("--json", o->json, "Machine-readable output (schema ktune.cache.verify 1.0.0)");

    auto* rm = app->add_subcommand("rm", "Remove matching entries");
    rm->add_option("file", o->file, file_help);
    add_filter_options(rm, o->filter);
    rm->add_flag("--all", o->all, "Remove every entry");
    rm->add_flag("--json", o->json, "Machine-readable output (schema ktune.cache.rm 1.0.0)");

    auto* push = app->add_subcommand("push", "Write the file's entries to the Redis shared tier");
    push->add_option("file", o->file, file_help);
    push->add_option("--redis", o->redis, redis_help)->required();
    push->add_option("--redis-timeout-ms", o->redis_timeout_ms, timeout_help);
    push->add_flag("--json", o->json, "Machine-readable output (schema ktune.cache.push 1.0.0)");

    auto* pull = app->add_subcommand("pull", "Merge the Redis shared tier's entries into the file");
    pull->add_option("file", o->file, file_help);
    pull->add_option("--redis", o->redis, redis_help)->required();
    pull->add_option("--redis-timeout-ms", o->redis_timeout_ms, timeout_help);
    pull->add_flag("--json", o->json, "Machine-readable output (schema ktune.cache.pull 1.0.0)");

    return {app, [o, ls, get, mg, vf, rm, push, pull]() -> int {
                if (ls->parsed()) return run_ls(*o);
                if (get->parsed()) return run_get(*o);
                if (mg->parsed()) return run_merge(*o);
                if (vf->parsed()) return run_verify(*o);
                if (rm->parsed()) return run_rm(*o);
                if (push->parsed()) return run_push(*o);
                if (pull->parsed()) return run_pull(*o);
                return usage_error;
            }};
}

} // namespace ktune::cli
