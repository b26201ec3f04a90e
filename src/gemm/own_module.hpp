#pragma once
// One of ktune's own GEMM kernels (the Hopper template, its mma.sync form) compiled by NVRTC
// through the cubin cache, loaded into the current context, with the dynamic shared memory its
// launches ask for allowed. Move-only; the module is unloaded with it.

#include "gemm/kernel_form.hpp"

#include <cuda.h>

#include <cstddef>
#include <optional>
#include <string>

namespace ktune::gemm::detail {

class own_module {
public:
    /// `who` names the kernel in errors ("sm90 GEMM bn256 s3 ..."). Throws error{nvrtc} with
    /// the compile log, error{cuda} where the driver refuses the module or the attribute.
    own_module(const std::string& source, const char* kernel_name, const std::string& arch,
               std::size_t shared_bytes, const std::string& who);
    ~own_module();
    own_module(own_module&& o) noexcept;
    own_module& operator=(own_module&& o) noexcept;
    own_module(const own_module&) = delete;
    own_module& operator=(const own_module&) = delete;

    [[nodiscard]] CUfunction function() const noexcept { return function_; }

private:
    CUmodule module_ = nullptr;
    CUfunction function_ = nullptr;
};

/// What the rules of ktune's kernels ask of the current GPU (cudaDeviceGetAttribute); nullopt
/// without one.
struct device_limits {
    int sm = 0;                 ///< compute capability x 10
    int sms = 0;                ///< multiprocessors
    std::size_t max_shared = 0; ///< opt-in shared memory a block
    int memory_khz = 0;         ///< memory clock
    int bus_bits = 0;           ///< memory bus width
};
std::optional<device_limits> device_limits_here() noexcept;

/// The checks a call of one of these kernels makes on a problem it has not seen: throws
/// error{input} naming `who` and p where `why_not` (the rules' reason) is not empty, or where p
/// is not of the `form` the kernel was compiled for.
void check_problem(const std::string& who, const std::string& why_not, const kernel_form& form,
                   const problem& p);
/// Throws error{input}: p has an epilogue and the call gave no bias (the caller tests that on
/// every call, cheaply, and names itself only then).
[[noreturn]] void throw_missing_bias(const std::string& who, const problem& p);

} // namespace ktune::gemm::detail
