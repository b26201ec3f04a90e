#pragma once
// A tunable op: everything the tuner needs to compile, run, check and rank one candidate
// configuration of a memory-bound kernel for one problem (shape + dtype).
//
//   const ktune::ops::op& sm = ktune::ops::find_op("softmax");
//   ktune::ops::problem p{ktune::ops::parse_shape("8192x8192"), ktune::ops::dtype::bf16};
//   std::string cu = sm.source(sm.default_config(p), p);   // NVRTC source, shape baked in

#include "ktune/core/config.hpp"
#include "ktune/kernel/problem.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::ops {

enum class dtype { f32, bf16 };

/// "fp32" / "bf16".
std::string_view to_string(dtype d) noexcept;
/// Accepts fp32|f32|float32|float and bf16|bfloat16; throws error{input} otherwise.
dtype parse_dtype(std::string_view s);
std::size_t size_of(dtype d) noexcept;

/// Row-major rows x cols. All built-ins work on 2-D tensors (row ops reduce along cols).
struct shape2d {
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    bool operator==(const shape2d&) const = default;
};
/// "8192x8192" (also "8192,8192"); throws error{input} naming the text and the expected form.
shape2d parse_shape(std::string_view s);
std::string to_string(const shape2d& s);

struct problem {
    shape2d shape;
    dtype type = dtype::f32;
    bool operator==(const problem&) const = default;
};

/// The element type of the general problem model (kernel/problem.hpp).
kernel::element_type element_of(dtype d) noexcept;
/// The problem in the general model of users' kernels: dimensions "rows" and "cols".
kernel::problem dimensions(const problem& p);

/// One axis of an op's space, values in the order strategies see them.
struct param_axis {
    std::string name;
    std::vector<param_value> values;
    std::string doc; ///< one line for `ktune ops`
    bool operator==(const param_axis&) const = default;
};

/// A device buffer the kernel takes, in kernel-argument order (ints rows, cols follow).
struct buffer_spec {
    std::string name;
    std::size_t elements = 0;
    bool output = false;
    /// Read and written by the kernel (an output that aliases an input): the runtime fills it
    /// like an input, keeps a pristine copy and restores it before every checked or timed launch.
    /// The reference kernel takes two arguments for it: the pristine input, then its fp32 output.
    bool in_place = false;
    bool operator==(const buffer_spec&) const = default;
};

struct launch_geometry {
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned shared_bytes = 0; ///< dynamic shared memory
    /// Thread-block cluster shape (sm_90). The kernel declares it (__cluster_dims__), so a plain
    /// cuLaunchKernel launches it; grid[i] is a multiple of cluster[i]. Informational here.
    unsigned cluster[3] = {1, 1, 1};
    bool operator==(const launch_geometry&) const = default;
};

/// |out - ref| <= atol + rtol * |ref| element-wise; non-finite output never passes.
struct tolerance {
    double rtol = 0;
    double atol = 0;
    bool operator==(const tolerance&) const = default;
};

/// The op interface. Implementations are stateless; the registry owns one of each.
class op {
public:
    virtual ~op() = default;
    [[nodiscard]] virtual std::string_view name() const noexcept = 0;
    /// Bumped whenever the generated source changes meaning: part of the cache key.
    [[nodiscard]] virtual int version() const noexcept = 0;
    [[nodiscard]] virtual std::string_view description() const noexcept = 0;
    /// PyTorch's equivalent, for the benchmarks ("" where none).
    [[nodiscard]] virtual std::string_view torch_equivalent() const noexcept = 0;

    [[nodiscard]] virtual std::vector<param_axis> axes() const = 0;
    /// Constraints: false prunes a config before compiling (the reason goes to `why`).
    [[nodiscard]] virtual bool valid(const config& c, const problem& p,
                                     std::string* why = nullptr) const = 0;
    /// A sensible hand-picked config: the baseline of the speed-up and the cache's last tier.
    [[nodiscard]] virtual config default_config(const problem& p) const = 0;

    /// CUDA source for NVRTC; the kernel is `extern "C" __global__` named kernel_name().
    [[nodiscard]] virtual std::string source(const config& c, const problem& p) const = 0;
    /// A trusted simple kernel (double accumulation) writing fp32 outputs, same arguments.
    [[nodiscard]] virtual std::string reference_source(const problem& p) const = 0;
    [[nodiscard]] virtual launch_geometry geometry(const config& c, const problem& p) const = 0;
    [[nodiscard]] virtual launch_geometry reference_geometry(const problem& p) const = 0;
    /// The kernel's arguments in kernel-argument order, in the model of users' kernels
    /// (docs/formats.md#ktunekernel): buffers of the problem's element type sized by
    /// expressions of rows and cols, then the int32 scalars rows and cols. The runner allocates,
    /// fills and launches from it.
    [[nodiscard]] virtual std::vector<kernel::argument_spec> arguments(const problem& p) const = 0;
    /// The buffers of arguments(), their sizes evaluated at p (an output that is also filled
    /// as an input is in place).
    [[nodiscard]] std::vector<buffer_spec> buffers(const problem& p) const;
    /// The scalars of arguments(), evaluated at p, in order (each fits an int32).
    [[nodiscard]] std::vector<std::int32_t> scalars(const problem& p) const;
    /// Scratch device memory (elements of the problem's type) a candidate may take as one more
    /// pointer after the scalars; 0: none. A candidate's module that also holds an
    /// `extern "C"` kernel `ktune_op_prologue` (same arguments) has it run before each launch,
    /// in blocks of 256 threads, one thread an element of the workspace: work done once a
    /// launch and shared by all its rows (docs/perf/kernels.md#layernorm-shifted-operands). The
    /// launch's time includes it.
    [[nodiscard]] virtual std::size_t workspace_elements(const problem&) const { return 0; }
    /// Depends on the problem: a sum's rounding error grows with the row length.
    [[nodiscard]] virtual tolerance tolerance_for(const problem& p) const = 0;

    /// The fewest bytes the op must move (each input read once, each output written once).
    [[nodiscard]] virtual double bytes(const problem& p) const = 0;
    [[nodiscard]] virtual double flops(const problem& p) const = 0;
    /// Shape-bucket policy: the shape a cache entry is filed under.
    [[nodiscard]] virtual shape2d bucket(const shape2d& s) const = 0;

    /// Every valid config of the space (the cartesian product, pruned), axis order kept.
    [[nodiscard]] std::vector<config> enumerate(const problem& p) const;
};

/// Name of every generated kernel (candidates and references alike).
inline constexpr std::string_view kernel_name = "ktune_op_kernel";

/// The built-in ops, registered once: softmax, layernorm, rowsum, transpose.
std::span<const op* const> all_ops();
/// Throws error{not_found} listing the registered names.
const op& find_op(std::string_view name);

} // namespace ktune::ops
