#pragma once
// Which kernel launches the range profiler may see. Auto range serialises every profiled launch
// (a context sync after each) and kernel replay runs it several times, so ktune profiles a few
// sampled launches only, and never kernels that deadlock when serialised: NCCL collectives,
// cooperative launches, persistent kernels and whatever the user lists.
//
//   sampling_policy p({.kernel_regex = "gemm", .sample_every = 10, .max_kernels = 5});
//   if (p.decide(name, cooperative) == sample_decision::profile) ...

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::metrics {

struct sampling_options {
    std::string kernel_regex;         ///< ECMAScript regex searched in the name; "" = all
    std::uint64_t sample_every = 1;   ///< profile launch 0, N, 2N, … of each kernel
    std::uint64_t max_kernels = 10;   ///< distinct kernels that get metrics
    std::uint64_t max_per_kernel = 1; ///< profiled launches per kernel
    std::vector<std::string> deny;    ///< extra name substrings never to serialise
    std::string deny_regex;           ///< `--deny REGEX`: ECMAScript, searched in the name
    bool operator==(const sampling_options&) const = default;
};

/// "1/N" or "N" -> N. Throws error_kind::usage for anything else or N = 0.
std::uint64_t parse_sample_rate(std::string_view s);

/// True for kernels that must never be serialised whatever the user asks: NCCL collectives
/// and kernels whose names say they are persistent.
bool denied_by_default(std::string_view kernel_name) noexcept;

enum class sample_decision { profile, skip, deny };

class sampling_policy {
public:
    /// Throws error_kind::usage for a bad regex or sample_every = 0.
    explicit sampling_policy(sampling_options options);
    ~sampling_policy();
    sampling_policy(sampling_policy&&) noexcept;
    sampling_policy& operator=(sampling_policy&&) noexcept;

    /// Decide for the next launch of `kernel_name`; `cooperative` for cooperative launches.
    sample_decision decide(std::string_view kernel_name, bool cooperative);
    /// Distinct names denied so far, in first-seen order.
    [[nodiscard]] const std::vector<std::string>& denied() const noexcept { return denied_; }

private:
    struct regex_holder;
    sampling_options options_;
    std::unique_ptr<regex_holder> regex_, deny_regex_;
    std::map<std::string, std::uint64_t, std::less<>> launches_, profiled_;
    std::vector<std::string> denied_;
};

} // namespace ktune::metrics
