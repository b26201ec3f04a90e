// The two kinds of tune target (tune_target.hpp): a built-in op and a user's kernel spec.
#include "tune/tune_target.hpp"

#include "ktune/core/error.hpp"
#include "ktune/kernel/capture.hpp"
#include "ktune/kernel/check.hpp"
#include "ktune/kernel/launcher.hpp"
#include "ktune/kernel/space.hpp"
#include "ktune/ops/op.hpp"
#include "tune/tuner_faults.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <limits>
#include <optional>

namespace ktune::tune {

std::string tune_labels::to_string() const {
    return fmt::format("{} {} {}", op, problem, dtype);
}

namespace detail {
namespace {

class op_target final : public tune_target {
public:
    op_target(const ops::op& o, ops::problem p) : op_(o), prob_(p) {}

    [[nodiscard]] space make_space() const override {
        std::vector<axis> axes;
        for (const auto& a : op_.axes())
            axes.push_back(axis::list(a.name, a.values));
        space sp(std::move(axes));
        // The op's constraints see the whole config (and the shape): the valid set is
        // enumerated once (hundreds of configs) and the space restricted to it.
        std::vector<point> members;
        for (const config& c : op_.enumerate(prob_))
            members.push_back(sp.from_config(c));
        if (members.empty())
            throw error(error_kind::unsupported,
                        fmt::format("op '{}' has no valid config for shape {} {}", op_.name(),
                                    ops::to_string(prob_.shape), ops::to_string(prob_.type)));
        sp.restrict_to(members);
        return sp;
    }
    [[nodiscard]] config default_config() const override { return op_.default_config(prob_); }
    [[nodiscard]] compile::compile_request compile_request(const config& c, const std::string& arch,
                                                           injected_fault f) const override {
        return {inject(f) + op_.source(c, prob_), std::string(ops::kernel_name), arch, {}};
    }
    void describe(const config& c, measure::candidate_request& out) const override {
        out.op = std::string(op_.name());
        out.rows = prob_.shape.rows;
        out.cols = prob_.shape.cols;
        out.dtype = std::string(ops::to_string(prob_.type));
        out.cfg = c;
    }
    bool prepare_request(measure::candidate_request& out) const override {
        describe({}, out);
        return true;
    }
    [[nodiscard]] compile::compile_request
    reference_request(const std::string& arch) const override {
        // The worker's own request (gpu_runner.cpp, compile_load): the same cache key.
        return {op_.reference_source(prob_), std::string(ops::kernel_name), arch, {}};
    }
    [[nodiscard]] bool needs_reference_result() const override { return false; }
    [[nodiscard]] double bytes() const override { return op_.bytes(prob_); }
    [[nodiscard]] cache::cache_key key(const cache::environment& env) const override {
        const ops::shape2d b = op_.bucket(prob_.shape);
        return {std::string(op_.name()),
                fmt::format("v{}", op_.version()),
                std::string(ops::to_string(prob_.type)),
                {b.rows, b.cols},
                env.arch,
                env.toolkit,
                env.driver_major,
                env.protocol};
    }
    [[nodiscard]] tune_labels labels() const override {
        return {std::string(op_.name()), ops::to_string(prob_.shape),
                std::string(ops::to_string(prob_.type))};
    }

private:
    const ops::op& op_;
    ops::problem prob_;
};

measure::launch_dims dims_of(const kernel::geometry& g, const std::string& where) {
    measure::launch_dims d;
    const auto narrow = [&](std::int64_t v, const char* what) {
        if (v < 0 || v > std::numeric_limits<std::uint32_t>::max())
            throw error(error_kind::input,
                        fmt::format("{}: {} {} does not fit a launch", where, what, v));
        return static_cast<std::uint32_t>(v);
    };
    for (std::size_t i = 0; i < 3; ++i) {
        d.grid[i] = narrow(g.grid[i], "grid");
        d.block[i] = narrow(g.block[i], "block");
    }
    d.shared_bytes = narrow(g.shared_bytes, "shared_bytes");
    return d;
}

/// The largest space a tune enumerates into its search space (the spec check walks up to
/// kernel::max_space_product; a tune holds each valid config as a point).
constexpr std::size_t max_tune_space = 2'000'000;

class kernel_target final : public tune_target {
public:
    kernel_target(const tune_request& rq, const std::string& arch)
        : spec_(kernel::load_spec(rq.kernel_spec)), prob_(rq.kernel_problem),
          hash_(kernel::spec_hash(spec_)) {
        if (!rq.kernel_capture.empty()) {
            capture_dir_ = rq.kernel_capture;
            capture_ = kernel::read_capture(capture_dir_);
            const auto where = (capture_dir_ / "capture.json").string();
            if (capture_->kernel != spec_.name)
                throw error(error_kind::input,
                            fmt::format("{}: a capture of kernel '{}', not of '{}' ({})", where,
                                        capture_->kernel, spec_.name, spec_.path.string()));
            if (capture_->spec_hash != hash_)
                throw error(error_kind::input,
                            fmt::format("{}: captured with spec hash {}, the spec and its sources "
                                        "now hash to {}: capture again with this version, or "
                                        "tune the problem with --problem",
                                        where, capture_->spec_hash, hash_));
            prob_ = capture_->prob;
        }
        kernel::check_problem(spec_, prob_);
        // A size or value that depends on a parameter would change the buffers between
        // candidates, and the reference's outputs would not compare: refused here.
        for (const auto& a : spec_.arguments)
            for (const auto* e : {&a.size, &a.value})
                for (const auto& n : e->names())
                    if (spec_.find_parameter(n))
                        throw error(error_kind::input,
                                    fmt::format("{}: argument '{}' depends on parameter '{}': "
                                                "ktune tune needs buffer sizes and scalar values "
                                                "over the dimensions only",
                                                a.where, a.name, n));
        job_.problem = fmt::format("{}@{} {}{}", spec_.name, hash_, prob_.to_string(),
                                   capture_ ? " capture " + capture_dir_.string() : "");
        job_.rtol = spec_.correctness.rtol;
        job_.atol = spec_.correctness.atol;
        job_.input_seed = rq.seed + 1;
        set_arch(arch);
    }

    void set_arch(const std::string& arch) override {
        limits_ = kernel::device_limits::for_arch(arch.empty() ? "sm_90" : arch);
        const config dflt = kernel::default_config(spec_);
        const kernel::bindings b = kernel::bind(spec_, prob_, limits_, dflt);
        job_.args.clear();
        for (const auto& a : spec_.arguments) {
            measure::kernel_arg_job j;
            j.type = std::string(kernel::to_string(a.type));
            if (a.kind == kernel::argument_kind::buffer) {
                j.elements = a.size.eval(b);
                j.input = std::string(kernel::to_string(a.input));
                j.output = a.output;
            } else {
                j.buffer = false;
                j.value = a.value.eval(b);
            }
            job_.args.push_back(std::move(j));
        }
        const auto& ref = spec_.correctness.reference;
        const kernel::geometry g = ref.launch ? launch_of_reference(*ref.launch, b)
                                              : kernel::launch_of(spec_, dflt, prob_, limits_);
        job_.reference_launch = dims_of(g, ref.where.empty() ? spec_.launch.where : ref.where);
        if (capture_) use_capture();
    }

    [[nodiscard]] space make_space() const override {
        const kernel::config_space cs = kernel::enumerate(spec_, prob_, limits_, true);
        if (cs.size() > max_tune_space)
            throw error(error_kind::input,
                        fmt::format("{}: {} valid configs; ktune tune searches at most {}: add "
                                    "restrictions or fewer values",
                                    spec_.path.string(), cs.size(), max_tune_space));
        std::vector<axis> axes;
        for (std::size_t i = 0; i < cs.names.size(); ++i)
            axes.push_back(axis::list(cs.names[i], cs.values[i]));
        space sp(std::move(axes));
        std::vector<point> members;
        members.reserve(cs.size());
        for (std::size_t i = 0; i < cs.size(); ++i)
            members.push_back(sp.from_config(cs.at(i)));
        sp.restrict_to(members);
        return sp;
    }
    [[nodiscard]] config default_config() const override { return kernel::default_config(spec_); }
    [[nodiscard]] compile::compile_request compile_request(const config& c, const std::string& arch,
                                                           injected_fault f) const override {
        (void)f; // fault injection breaks the built-in templates' epilogue only
        auto rq = kernel::compile_request_for(spec_, c, prob_, limits_);
        rq.arch = arch;
        return rq;
    }
    void describe(const config& c, measure::candidate_request& out) const override {
        out.op = spec_.name;
        out.dtype = kernel::kernel_dtype(spec_);
        out.cfg = c;
        out.job = job_;
        out.job.launch = dims_of(kernel::launch_of(spec_, c, prob_, limits_), spec_.launch.where);
    }
    bool prepare_request(measure::candidate_request& out) const override {
        (void)out;
        return false; // the worker needs the compiled reference first
    }
    [[nodiscard]] compile::compile_request
    reference_request(const std::string& arch) const override {
        const auto& ref = spec_.correctness.reference;
        auto rq = compile_request(default_config(), arch, injected_fault::none);
        if (!ref.default_config) rq.name_expression = ref.kernel;
        return rq;
    }
    [[nodiscard]] bool needs_reference_result() const override { return !capture_; }
    void set_reference(const compile::compile_result& r) override {
        job_.reference_cubin = r.cubin_path.string();
        job_.reference_kernel = r.lowered_name;
    }
    [[nodiscard]] double bytes() const override {
        if (!spec_.bytes) return 0;
        return static_cast<double>(
            spec_.bytes->e.eval(kernel::bind(spec_, prob_, limits_, default_config())));
    }
    [[nodiscard]] cache::cache_key key(const cache::environment& env) const override {
        return kernel::kernel_cache_key(spec_, prob_, env);
    }
    [[nodiscard]] tune_labels labels() const override {
        return {spec_.name, prob_.to_string(), kernel::kernel_dtype(spec_)};
    }

private:
    /// The capture's data in place of the generators and the reference kernel: each buffer
    /// must hold what the spec sizes it at, scalars take the values the application passed.
    void use_capture() {
        const auto where = (capture_dir_ / "capture.json").string();
        if (capture_->arguments.size() != job_.args.size())
            throw error(error_kind::input,
                        fmt::format("{}: {} arguments, the spec has {}", where,
                                    capture_->arguments.size(), job_.args.size()));
        for (std::size_t i = 0; i < job_.args.size(); ++i) {
            const kernel::captured_argument& c = capture_->arguments[i];
            measure::kernel_arg_job& j = job_.args[i];
            if (!j.buffer) {
                j.value = c.value;
                continue;
            }
            const auto want =
                j.elements * static_cast<std::int64_t>(kernel::size_of(spec_.arguments[i].type));
            if (c.bytes != want)
                throw error(error_kind::input,
                            fmt::format("{}: argument '{}' holds {} bytes, the spec sizes it at "
                                        "{} for {}",
                                        where, c.name, c.bytes, want, prob_.to_string()));
            if (c.before)
                j.input_file = (capture_dir_ / kernel::capture_data_file(i, c, true)).string();
            if (c.after)
                j.reference_file = (capture_dir_ / kernel::capture_data_file(i, c, false)).string();
        }
    }

    [[nodiscard]] kernel::geometry launch_of_reference(const kernel::launch_spec& l,
                                                       const kernel::bindings& b) const {
        kernel::geometry g;
        for (std::size_t i = 0; i < 3; ++i) {
            g.grid[i] = l.grid[i].e.eval(b);
            g.block[i] = l.block[i].e.eval(b);
        }
        g.shared_bytes = l.shared_bytes.e.eval(b);
        return g;
    }

    kernel::kernel_spec spec_;
    kernel::problem prob_;
    kernel::device_limits limits_;
    std::string hash_;
    std::filesystem::path capture_dir_;
    std::optional<kernel::kernel_capture> capture_;
    measure::kernel_job job_;
};

} // namespace

std::unique_ptr<tune_target> make_target(const tune_request& rq, const std::string& arch) {
    if (!rq.kernel_spec.empty()) return std::make_unique<kernel_target>(rq, arch);
    return std::make_unique<op_target>(ops::find_op(rq.op), rq.prob);
}

} // namespace detail

tune_labels labels_of(const tune_request& rq) {
    return detail::make_target(rq, "")->labels();
}

} // namespace ktune::tune
