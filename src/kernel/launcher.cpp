// The run-time launcher (launcher.hpp): a problem's plan is resolved once through the config
// cache (exact -> nearest -> the spec's default; a default is recorded as a miss), a config is
// compiled once per process through the cubin cache and loaded once, and every later launch is
// one hash lookup under a shared lock, an argument check and the driver's launch
// (docs/perf/kernel.md has the lookup's cost).
#include "kernel/launch_key.hpp"
#include "kernel/launcher_impl.hpp"

#include "ktune/cache/store.hpp"
#include "ktune/core/env.hpp"
#include "ktune/core/error.hpp"
#include "ktune/kernel/launch_misses.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

namespace ktune::kernel {

using detail::dims_key;
using detail::launcher_state;
using detail::plan_entry;

namespace {

std::string describe_arg(const argument_spec& a, std::size_t i) {
    return a.kind == argument_kind::buffer
               ? fmt::format("argument {} '{}' is a buffer ({})", i, a.name, a.where)
               : fmt::format("argument {} '{}' is a scalar {} ({})", i, a.name, to_string(a.type),
                             a.where);
}

std::string got(const kernel_arg& a) {
    return a.kind() == kernel_arg::arg_kind::pointer
               ? std::string("a pointer")
               : fmt::format("a scalar {}", to_string(a.type()));
}

/// Why a cached config cannot run this problem ("" when it can).
std::string unusable(const launcher_state& st, const config& c, const problem& p) {
    for (const auto& prm : st.spec.parameters) {
        const param_value* v = c.find(prm.name);
        if (!v || !std::holds_alternative<std::int64_t>(*v))
            return fmt::format("it has no integer {}", prm.name);
    }
    try {
        return reject_reason(st.spec, c, p, st.limits);
    } catch (const error& e) {
        return e.what();
    }
}

void record(launcher_state& st, const launch_plan& pl) {
    launch_miss m;
    m.kernel = st.spec.name;
    m.spec = st.spec.path.string();
    m.spec_hash = st.hash;
    m.problem = pl.prob.to_string();
    problem b;
    for (std::size_t i = 0; i < pl.key.bucket.size(); ++i)
        b.dims.emplace_back(st.spec.dimensions[i].first, pl.key.bucket[i]);
    m.bucket = b.to_string();
    m.dtype = st.dtype;
    m.arch = st.env.arch;
    m.toolkit = st.env.toolkit;
    m.driver = st.env.driver_major;
    m.protocol = st.env.protocol;
    try {
        if (record_miss(st.opt.misses_file, m)) ++st.n_misses;
    } catch (const error& e) {
        // The application's launch goes on: a misses file is a hint for a later tune.
        std::fprintf(stderr, "ktune launcher: miss of %s not recorded: %s\n", m.kernel.c_str(),
                     e.what());
    }
}

launch_plan resolve(launcher_state& st, const dims_key& k) {
    launch_plan pl;
    for (std::size_t i = 0; i < k.n; ++i) {
        if (k.v[i] < 1)
            throw error(error_kind::input,
                        fmt::format("kernel {}: dimension {} = {}; each must be at least 1",
                                    st.spec.name, st.spec.dimensions[i].first, k.v[i]));
        pl.prob.dims.emplace_back(st.spec.dimensions[i].first, k.v[i]);
    }
    pl.key = detail::kernel_cache_key(st.spec, st.hash, st.dtype, pl.prob, st.env);
    const auto r = st.index.lookup(cache::prepared_key(pl.key), st.defaults);
    pl.tier = r.tier;
    pl.cfg = *r.cfg;
    if (pl.tier != cache::lookup_tier::op_default) {
        if (auto why = unusable(st, pl.cfg, pl.prob); !why.empty()) {
            pl.fallback_reason =
                fmt::format("{} entry {} ({}) not valid at {}: {}", cache::to_string(pl.tier),
                            r.hit->key.to_string(), pl.cfg.to_string(), pl.prob.to_string(), why);
            pl.tier = cache::lookup_tier::op_default;
            pl.cfg = st.defaults;
        }
    }
    if (pl.tier == cache::lookup_tier::op_default)
        if (auto why = reject_reason(st.spec, pl.cfg, pl.prob, st.limits); !why.empty())
            throw error(error_kind::input,
                        fmt::format("kernel {}: the default config ({}) is not valid at {}: {}",
                                    st.spec.name, pl.cfg.to_string(), pl.prob.to_string(), why));
    pl.geo = launch_of(st.spec, pl.cfg, pl.prob, st.limits);
    const bindings b = bind(st.spec, pl.prob, st.limits, pl.cfg);
    for (const auto& a : st.spec.arguments)
        pl.buffer_bytes.push_back(a.kind == argument_kind::buffer
                                      ? a.size.eval(b) * static_cast<std::int64_t>(size_of(a.type))
                                      : 0);
    if (pl.tier == cache::lookup_tier::op_default && st.opt.record_misses) record(st, pl);
    return pl;
}

dims_key key_of(const launcher_state& st, std::span<const std::int64_t> dims) {
    if (dims.size() != st.spec.dimensions.size())
        throw error(error_kind::input,
                    fmt::format("kernel {}: {} dimensions given, the spec has {} ({})",
                                st.spec.name, dims.size(), st.spec.dimensions.size(),
                                st.spec.example_problem().to_string()));
    dims_key k;
    k.n = dims.size();
    std::copy(dims.begin(), dims.end(), k.v.begin());
    return k;
}

plan_entry& entry_for(launcher_state& st, std::span<const std::int64_t> dims) {
    const dims_key k = key_of(st, dims);
    {
        std::shared_lock lk(st.plans_mu);
        if (auto it = st.plans.find(k); it != st.plans.end()) return *it->second;
    }
    // Resolved outside the lock (a cache lookup, expression evaluation, maybe a misses-file
    // append); a thread that loses the race to insert drops its copy, so a miss is recorded
    // once per distinct problem (record_miss also skips a line already in the file).
    auto e = std::make_unique<plan_entry>();
    e->plan = resolve(st, k);
    std::unique_lock lk(st.plans_mu);
    auto [it, inserted] = st.plans.try_emplace(k, std::move(e));
    if (inserted) ++st.n_plans;
    return *it->second;
}

detail::loaded_kernel& load(launcher_state& st, plan_entry& e) {
    std::lock_guard lk(st.modules_mu);
    if (auto* k = e.kernel.load(std::memory_order_acquire)) return *k;
    const auto rq = compile_request_for(st.spec, e.plan.cfg, e.plan.prob, st.limits);
    const std::string key = compile::cubin_cache::key(rq);
    auto it = st.modules.find(key);
    if (it == st.modules.end()) {
        const auto res = compile::compile_cached(rq, st.cubins ? &*st.cubins : nullptr);
        if (!res.ok)
            throw error(error_kind::nvrtc,
                        fmt::format("kernel {}: config {} does not compile for {}:\n{}",
                                    st.spec.name, e.plan.cfg.to_string(), st.env.arch, res.log));
        ++(res.cache_hit ? st.n_cubin_hits : st.n_nvrtc);
        if (!st.driver) st.driver = st.opt.driver ? st.opt.driver : detail::cuda_launch_driver();
        auto k = std::make_unique<detail::loaded_kernel>();
        k->driver = st.driver;
        k->module = st.driver->load_module(res.cubin);
        k->function = st.driver->get_function(k->module, res.lowered_name);
        ++st.n_modules;
        it = st.modules.emplace(key, std::move(k)).first;
    }
    detail::loaded_kernel& k = *it->second;
    // Opt in whenever dynamic shared memory is used: with the kernel's static shared memory even
    // less than 48 KiB of it can pass the default limit.
    if (e.plan.geo.shared_bytes > k.shared_opt_in) {
        st.driver->set_max_dynamic_shared(k.function, e.plan.geo.shared_bytes);
        k.shared_opt_in = e.plan.geo.shared_bytes;
    }
    e.kernel.store(&k, std::memory_order_release);
    return k;
}

void check_args(const launcher_state& st, std::span<const kernel_arg> args) {
    if (args.size() != st.expected.size()) {
        std::string names;
        for (const auto& a : st.spec.arguments)
            names += (names.empty() ? "" : ", ") + a.name;
        throw error(error_kind::input,
                    fmt::format("kernel {}: launch got {} arguments, the spec declares {} ({}) "
                                "in {}",
                                st.spec.name, args.size(), st.expected.size(), names,
                                st.spec.path.string()));
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& x = st.expected[i];
        const bool pointer = args[i].kind() == kernel_arg::arg_kind::pointer;
        if (x.kind == argument_kind::buffer && pointer) continue;
        if (x.kind == argument_kind::scalar && !pointer && args[i].type() == x.type) continue;
        const auto& a = st.spec.arguments[i];
        throw error(error_kind::input,
                    fmt::format("kernel {}: {}; got {}: pass {}", st.spec.name, describe_arg(a, i),
                                got(args[i]),
                                x.kind == argument_kind::buffer
                                    ? std::string("a device pointer")
                                    : fmt::format("a std::{}_t", to_string(x.type))));
    }
}

} // namespace

struct launcher::impl : launcher_state {};

launcher::launcher(const std::filesystem::path& spec_file, launcher_options o)
    : launcher(load_spec(spec_file), std::move(o)) {}

launcher::launcher(kernel_spec spec, launcher_options o) : impl_(std::make_unique<impl>()) {
    auto& st = *impl_;
    if (spec.dimensions.size() > dims_key::max_dims)
        throw error(error_kind::input,
                    fmt::format("kernel {}: {} dimensions; the launcher takes at most {}",
                                spec.name, spec.dimensions.size(), dims_key::max_dims));
    st.env = o.env ? *o.env : cache::environment::current();
    if (!st.env.has_gpu())
        throw error(error_kind::no_device,
                    fmt::format("kernel {}: no CUDA GPU to launch on (set launcher_options::env "
                                "to plan for an arch without one)",
                                spec.name));
    st.limits = device_limits::for_arch(st.env.arch);
    if (o.cache_file.empty()) o.cache_file = cache::default_cache_path();
    if (o.misses_file.empty()) o.misses_file = o.cache_file.string() + ".misses.jsonl";
    st.cubins.emplace(o.cubin_dir.empty() ? compile::cubin_cache::default_dir() : o.cubin_dir);
    st.capture_dir = o.capture_dir;
    if (const char* c = std::getenv(ktune::env::capture); st.capture_dir.empty() && c && *c)
        st.capture_dir = c;
    st.index = cache::cache_index::load(o.cache_file);
    st.hash = spec_hash(spec);
    st.dtype = kernel_dtype(spec);
    st.defaults = default_config(spec);
    for (const auto& a : spec.arguments)
        st.expected.push_back(
            {a.kind, a.type, a.kind == argument_kind::buffer ? sizeof(void*) : size_of(a.type)});
    st.spec = std::move(spec);
    st.opt = std::move(o);
}

launcher::~launcher() = default;
launcher::launcher(launcher&&) noexcept = default;
launcher& launcher::operator=(launcher&&) noexcept = default;

const launch_plan& launcher::plan_for(std::span<const std::int64_t> dims) {
    return entry_for(*impl_, dims).plan;
}

const launch_plan& launcher::plan_for(const problem& p) {
    check_problem(impl_->spec, p);
    std::vector<std::int64_t> dims;
    for (const auto& d : impl_->spec.dimensions)
        dims.push_back(p.at(d.first));
    return plan_for(dims);
}

const launch_plan& launcher::prepare(std::span<const std::int64_t> dims) {
    plan_entry& e = entry_for(*impl_, dims);
    load(*impl_, e);
    return e.plan;
}

void launcher::launch(std::span<const std::int64_t> dims, std::span<const kernel_arg> args,
                      CUstream_st* stream) {
    auto& st = *impl_;
    plan_entry& e = entry_for(st, dims);
    check_args(st, args);
    detail::loaded_kernel* k = e.kernel.load(std::memory_order_acquire);
    if (!k) k = &load(st, e);
    constexpr std::size_t inline_args = 32;
    std::array<void*, inline_args> small_ptrs{};
    std::array<std::size_t, inline_args> small_sizes{};
    std::vector<void*> big_ptrs;
    std::vector<std::size_t> big_sizes;
    void** ptrs = small_ptrs.data();
    std::size_t* sizes = small_sizes.data();
    if (args.size() > inline_args) {
        big_ptrs.resize(args.size());
        big_sizes.resize(args.size());
        ptrs = big_ptrs.data();
        sizes = big_sizes.data();
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
        // The driver reads each parameter through its pointer and never writes it.
        ptrs[i] = const_cast<void*>(args[i].address());
        sizes[i] = st.expected[i].size;
    }
    const detail::kernel_params params{ptrs, sizes, args.size()};
    if (!st.capture_dir.empty() && !e.captured.exchange(true))
        detail::launch_with_capture(st, e, args, params, stream);
    else
        st.driver->launch(k->function, e.plan.geo, params, stream);
}

void launcher::launch(const problem& p, std::span<const kernel_arg> args, CUstream_st* stream) {
    const launch_plan& pl = plan_for(p);
    std::vector<std::int64_t> dims;
    for (const auto& d : pl.prob.dims)
        dims.push_back(d.second);
    launch(dims, args, stream);
}

const kernel_spec& launcher::spec() const noexcept {
    return impl_->spec;
}
const cache::environment& launcher::environment() const noexcept {
    return impl_->env;
}
const std::string& launcher::hash() const noexcept {
    return impl_->hash;
}
const std::filesystem::path& launcher::misses_file() const noexcept {
    return impl_->opt.misses_file;
}
const std::filesystem::path& launcher::capture_dir() const noexcept {
    return impl_->capture_dir;
}

launcher_stats launcher::stats() const noexcept {
    const auto& st = *impl_;
    return {st.n_plans.load(),   st.n_nvrtc.load(),  st.n_cubin_hits.load(),
            st.n_modules.load(), st.n_misses.load(), st.n_captures.load()};
}

} // namespace ktune::kernel
