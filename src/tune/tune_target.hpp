#pragma once
// What a tune searches: a built-in op on a rows x cols problem, or a user's kernel spec on
// named dimensions (docs/perf/kernel.md#tuning-a-user-kernel). The tune loop, the evaluator and
// the report see only this interface: the space, the default, a config's compile request and
// worker request, the reference the worker checks against, the byte model and the cache key.
#include "ktune/cache/key.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/measure/candidate.hpp"
#include "ktune/tune/space.hpp"
#include "ktune/tune/tuner.hpp"

#include <memory>
#include <optional>
#include <string>

namespace ktune::tune::detail {

class tune_target {
public:
    virtual ~tune_target() = default;
    tune_target() = default;
    tune_target(const tune_target&) = delete;
    tune_target& operator=(const tune_target&) = delete;

    /// The GPU's arch, once known (a user kernel's device limits follow it); before, sm_90's.
    virtual void set_arch(const std::string& arch) { (void)arch; }
    /// The valid configs; throws error{unsupported} when there is none.
    [[nodiscard]] virtual space make_space() const = 0;
    [[nodiscard]] virtual config default_config() const = 0;
    /// The NVRTC request of one config for `arch` (a built-in op's broken on purpose by `f`).
    [[nodiscard]] virtual compile::compile_request
    compile_request(const config& c, const std::string& arch, injected_fault f) const = 0;
    /// The worker's request for config c, all but the compile's outputs (cubin, kernel name),
    /// seed and policy.
    virtual void describe(const config& c, measure::candidate_request& out) const = 0;
    /// The prepare request sent ahead of the first candidate; false: none (the worker then sets
    /// the problem up at its first candidate).
    virtual bool prepare_request(measure::candidate_request& out) const = 0;
    /// The reference kernel's compile request. A built-in op's worker compiles its reference
    /// itself (compiled ahead here, so it finds it in the cubin cache); a user kernel's worker
    /// is sent the compiled reference (set_reference) before the first candidate.
    [[nodiscard]] virtual compile::compile_request
    reference_request(const std::string& arch) const = 0;
    [[nodiscard]] virtual bool needs_reference_result() const = 0;
    virtual void set_reference(const compile::compile_result& r) { (void)r; }
    /// The fewest bytes the kernel moves (0: no model).
    [[nodiscard]] virtual double bytes() const = 0;
    [[nodiscard]] virtual cache::cache_key key(const cache::environment& env) const = 0;
    /// What is tuned, for reports and messages.
    [[nodiscard]] virtual tune_labels labels() const = 0;
};

/// The target rq names: rq.kernel_spec when set, else the op rq.op. `arch` picks a user
/// kernel's device limits (kernel::device_limits::for_arch); "" when unknown yet (the key and the
/// labels do not depend on it). Throws error{not_found} for an unknown op, error{input} with the
/// spec's file:line:column for a bad spec or problem.
std::unique_ptr<tune_target> make_target(const tune_request& rq, const std::string& arch);

} // namespace ktune::tune::detail
