#include "ktune/metrics/sampling.hpp"

#include "ktune/core/error.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <regex>

namespace ktune::metrics {

struct sampling_policy::regex_holder {
    std::regex re;
};

namespace {

bool contains_ci(std::string_view hay, std::string_view needle) {
    return std::ranges::search(hay, needle, [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) ==
                      std::tolower(static_cast<unsigned char>(b));
           }).begin() != hay.end();
}

} // namespace

std::uint64_t parse_sample_rate(std::string_view s) {
    std::string_view digits = s;
    if (digits.starts_with("1/")) digits.remove_prefix(2);
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc{} || end != digits.data() + digits.size() || n == 0)
        throw error(error_kind::usage, "--sample '" + std::string(s) +
                                           "': expected 1/N with N >= 1 (e.g. 1/10: every tenth "
                                           "launch of each kernel)");
    return n;
}

bool denied_by_default(std::string_view name) noexcept {
    // NCCL kernels spin on peers: serialising one rank's launch deadlocks the collective.
    constexpr std::array<std::string_view, 6> k_tokens{"nccl",          "allreduce",  "allgather",
                                                       "reducescatter", "all_reduce", "persistent"};
    return std::ranges::any_of(k_tokens, [&](std::string_view t) { return contains_ci(name, t); });
}

sampling_policy::sampling_policy(sampling_options options) : options_(std::move(options)) {
    if (options_.sample_every == 0)
        throw error(error_kind::usage, "sample rate 1/0: use 1/N with N >= 1");
    const auto compile = [](const std::string& re, const char* option) {
        if (re.empty()) return std::unique_ptr<regex_holder>{};
        try {
            return std::make_unique<regex_holder>(regex_holder{std::regex(re)});
        } catch (const std::regex_error& e) {
            throw error(error_kind::usage, std::string(option) + " '" + re +
                                               "' is not a valid regular expression: " + e.what());
        }
    };
    regex_ = compile(options_.kernel_regex, "--kernels");
    deny_regex_ = compile(options_.deny_regex, "--deny");
}

sampling_policy::~sampling_policy() = default;
sampling_policy::sampling_policy(sampling_policy&&) noexcept = default;
sampling_policy& sampling_policy::operator=(sampling_policy&&) noexcept = default;

sample_decision sampling_policy::decide(std::string_view name, bool cooperative) {
    const bool user_denied = std::ranges::any_of(
        options_.deny, [&](const std::string& d) { return !d.empty() && contains_ci(name, d); });
    const bool regex_denied =
        deny_regex_ && std::regex_search(name.begin(), name.end(), deny_regex_->re);
    if (cooperative || user_denied || regex_denied || denied_by_default(name)) {
        if (std::ranges::find(denied_, name) == denied_.end()) denied_.emplace_back(name);
        return sample_decision::deny;
    }
    if (regex_ && !std::regex_search(name.begin(), name.end(), regex_->re))
        return sample_decision::skip;
    auto it = launches_.find(name);
    if (it == launches_.end()) it = launches_.emplace(std::string(name), 0).first;
    const std::uint64_t index = it->second++;
    if (index % options_.sample_every != 0) return sample_decision::skip;
    auto done = profiled_.find(name);
    if (done == profiled_.end()) {
        if (profiled_.size() >= options_.max_kernels) return sample_decision::skip;
        done = profiled_.emplace(std::string(name), 0).first;
    }
    if (done->second >= options_.max_per_kernel) return sample_decision::skip;
    ++done->second;
    return sample_decision::profile;
}

} // namespace ktune::metrics
