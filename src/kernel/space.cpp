// The configuration space of a kernel spec: cartesian product, restrictions, device limits.
#include "ktune/kernel/space.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

namespace ktune::kernel {
namespace {

std::string dim_list(const kernel_spec& s) {
    std::string out;
    for (const auto& [n, v] : s.dimensions)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::int64_t eval_at(const located_expr& e, const bindings& b, const char* what) {
    try {
        return e.e.eval(b);
    } catch (const expr_error& x) {
        throw error(error_kind::input,
                    fmt::format("{}: {} '{}': {}", e.where, what, e.e.text(), x.what()));
    }
}

// Values of one config bound in place: the map's nodes stay put, so the enumeration rewrites
// the parameters' slots instead of building a map per config.
struct slots {
    bindings b;
    std::vector<std::int64_t*> params;

    slots(const kernel_spec& s, const problem& p, const device_limits& l) {
        l.bind(b);
        for (const auto& [n, v] : p.dims)
            b[n] = v;
        for (const auto& tp : s.parameters)
            params.push_back(&(b[tp.name] = tp.default_value));
    }
};

geometry geometry_from(const kernel_spec& s, const bindings& b) {
    geometry g;
    for (int i = 0; i < 3; ++i) {
        g.grid[i] = eval_at(s.launch.grid[i], b, "grid");
        g.block[i] = eval_at(s.launch.block[i], b, "block");
        g.cluster[i] = eval_at(s.launch.cluster[i], b, "cluster");
    }
    g.shared_bytes = eval_at(s.launch.shared_bytes, b, "shared_bytes");
    return g;
}

config config_from(const kernel_spec& s, const std::vector<std::int64_t*>& params) {
    std::vector<config::entry> e;
    e.reserve(params.size());
    for (std::size_t i = 0; i < params.size(); ++i)
        e.emplace_back(s.parameters[i].name, param_value{*params[i]});
    return config(std::move(e));
}

} // namespace

config config_space::at(std::size_t i) const {
    // Mixed radix, last parameter fastest: the order enumerate() walks.
    std::uint64_t n = valid.at(i);
    std::vector<config::entry> e(names.size());
    for (std::size_t k = names.size(); k-- > 0;) {
        e[k] = {names[k], param_value{values[k][n % values[k].size()]}};
        n /= values[k].size();
    }
    return config(std::move(e));
}

std::vector<config> config_space::configs() const {
    std::vector<config> out;
    out.reserve(valid.size());
    for (std::size_t i = 0; i < valid.size(); ++i)
        out.push_back(at(i));
    return out;
}

void check_problem(const kernel_spec& s, const problem& p) {
    for (const auto& [n, v] : p.dims)
        if (!s.example_problem().find(n))
            throw error(error_kind::input,
                        fmt::format("the problem gives '{}', which is not a dimension of kernel "
                                    "'{}' (its dimensions: {})",
                                    n, s.name, dim_list(s)));
    for (const auto& [n, v] : s.dimensions)
        if (!p.find(n))
            throw error(error_kind::input,
                        fmt::format("the problem lacks dimension '{}' of kernel '{}' (give all of "
                                    "{}, e.g. --problem {})",
                                    n, s.name, dim_list(s), s.example_problem().to_string()));
}

bindings bind(const kernel_spec& s, const problem& p, const device_limits& l, const config& c) {
    bindings b;
    l.bind(b);
    for (const auto& [n, v] : p.dims)
        b[n] = v;
    for (const auto& [n, v] : c.values())
        if (const auto* i = std::get_if<std::int64_t>(&v)) b[n] = *i;
    (void)s;
    return b;
}

config default_config(const kernel_spec& s) {
    std::vector<config::entry> e;
    for (const auto& tp : s.parameters)
        e.emplace_back(tp.name, param_value{tp.default_value});
    return config(std::move(e));
}

geometry launch_of(const kernel_spec& s, const config& c, const problem& p,
                   const device_limits& l) {
    return geometry_from(s, bind(s, p, l, c));
}

std::string limit_violation(const geometry& g, const device_limits& l) {
    static constexpr char axis[] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; ++i) {
        if (g.block[i] < 1)
            return fmt::format("block.{} = {} is not positive", axis[i], g.block[i]);
        if (g.grid[i] < 1) return fmt::format("grid.{} = {} is not positive", axis[i], g.grid[i]);
        if (g.cluster[i] < 1)
            return fmt::format("cluster.{} = {} is not positive", axis[i], g.cluster[i]);
        if (g.block[i] > l.max_block_dim[i])
            return fmt::format("block.{} = {} > max_block_dim_{} {}", axis[i], g.block[i], axis[i],
                               l.max_block_dim[i]);
        if (g.cluster[i] > 1024)
            return fmt::format("cluster.{} = {} is beyond any GPU's cluster size", axis[i],
                               g.cluster[i]);
        if (g.grid[i] > l.max_grid_dim[i])
            return fmt::format("grid.{} = {} > max_grid_dim_{} {}", axis[i], g.grid[i], axis[i],
                               l.max_grid_dim[i]);
    }
    // Each factor is at most 1024 here, so the products cannot overflow.
    const std::int64_t threads = g.block[0] * g.block[1] * g.block[2];
    if (threads > l.max_threads_per_block)
        return fmt::format("block {}x{}x{} = {} threads > max_threads_per_block {}", g.block[0],
                           g.block[1], g.block[2], threads, l.max_threads_per_block);
    if (g.shared_bytes < 0) return fmt::format("shared_bytes = {} is negative", g.shared_bytes);
    if (g.shared_bytes > l.max_shared_bytes_per_block)
        return fmt::format("shared_bytes = {} > max_shared_bytes_per_block {} ({})", g.shared_bytes,
                           l.max_shared_bytes_per_block, l.arch);
    const std::int64_t cluster = g.cluster[0] * g.cluster[1] * g.cluster[2];
    if (cluster > 1 && l.max_cluster_size == 0)
        return fmt::format("a {}x{}x{} cluster needs sm_90 or later, not {}", g.cluster[0],
                           g.cluster[1], g.cluster[2], l.arch);
    if (cluster > l.max_cluster_size && cluster > 1)
        return fmt::format("cluster {}x{}x{} = {} blocks > max_cluster_size {}", g.cluster[0],
                           g.cluster[1], g.cluster[2], cluster, l.max_cluster_size);
    for (int i = 0; i < 3; ++i)
        if (g.grid[i] % g.cluster[i] != 0)
            return fmt::format("grid.{} = {} is not a multiple of cluster.{} = {}", axis[i],
                               g.grid[i], axis[i], g.cluster[i]);
    return "";
}

std::string reject_reason(const kernel_spec& s, const config& c, const problem& p,
                          const device_limits& l) {
    const bindings b = bind(s, p, l, c);
    for (const auto& r : s.restrictions)
        if (eval_at(r, b, "restriction") == 0)
            return fmt::format("restriction '{}' ({})", r.e.text(), r.where);
    if (auto why = limit_violation(geometry_from(s, b), l); !why.empty())
        return fmt::format("{} (launch geometry at {})", why, s.launch.where);
    return "";
}

config_space enumerate(const kernel_spec& s, const problem& p, const device_limits& l,
                       bool require_valid) {
    check_problem(s, p);
    config_space out;
    out.counts.rejected_by.assign(s.restrictions.size(), 0);
    std::uint64_t product = 1;
    for (const auto& tp : s.parameters) {
        product *= tp.values.size();
        if (product > max_space_product)
            throw error(error_kind::input,
                        fmt::format("{}: the product of the parameters' values passes {} configs "
                                    "at parameter '{}': restrict the values",
                                    tp.where, max_space_product, tp.name));
    }
    out.counts.product = product;
    for (const auto& tp : s.parameters) {
        out.names.push_back(tp.name);
        out.values.push_back(tp.values);
    }
    slots sl(s, p, l);
    std::vector<std::size_t> idx(s.parameters.size(), 0);
    std::string first_limit, first_eval_error;
    for (std::uint64_t n = 0; n < product; ++n) {
        for (std::size_t i = 0; i < idx.size(); ++i)
            *sl.params[i] = s.parameters[i].values[idx[i]];
        try {
            bool ok = true;
            for (std::size_t r = 0; r < s.restrictions.size() && ok; ++r)
                if (eval_at(s.restrictions[r], sl.b, "restriction") == 0) {
                    ++out.counts.rejected_by[r];
                    ok = false;
                }
            if (ok) {
                if (auto why = limit_violation(geometry_from(s, sl.b), l); !why.empty()) {
                    ++out.counts.rejected_by_limits;
                    if (first_limit.empty())
                        first_limit =
                            fmt::format("{} for {}", why, config_from(s, sl.params).to_string());
                } else {
                    out.valid.push_back(n);
                }
            }
        } catch (const error& e) {
            ++out.counts.failed_to_evaluate;
            if (first_eval_error.empty())
                first_eval_error =
                    fmt::format("{} (config {})", e.what(), config_from(s, sl.params).to_string());
        }
        // Mixed-radix increment, last parameter fastest.
        for (std::size_t i = idx.size(); i-- > 0;) {
            if (++idx[i] < s.parameters[i].values.size()) break;
            idx[i] = 0;
        }
    }
    out.counts.valid = out.valid.size();
    if (!require_valid || out.counts.valid > 0) return out;
    if (out.counts.failed_to_evaluate == product) throw error(error_kind::input, first_eval_error);
    if (out.counts.rejected_by_limits > 0)
        throw error(error_kind::input,
                    fmt::format("{}: the launch geometry exceeds the device limits of {} for every "
                                "config that passes the restrictions ({} of them), e.g. {}",
                                s.launch.where, l.arch, out.counts.rejected_by_limits,
                                first_limit));
    std::uint64_t left = product - out.counts.failed_to_evaluate;
    for (std::size_t r = 0; r < s.restrictions.size(); ++r) {
        const std::uint64_t before = left;
        left -= out.counts.rejected_by[r];
        if (left == 0)
            throw error(error_kind::input,
                        fmt::format("{}: restriction '{}' leaves no valid config at {} (the "
                                    "restrictions before it left {} of the {} in the product)",
                                    s.restrictions[r].where, s.restrictions[r].e.text(),
                                    p.to_string(), before, product));
    }
    throw error(error_kind::input, first_eval_error.empty() ? "no valid config" : first_eval_error);
}

} // namespace ktune::kernel
