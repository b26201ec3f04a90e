#pragma once
// What a kernel's machine code is, read from a cubin (an ELF64 file) without cuobjdump: its
// .text section, its shared and constant-bank sizes, its own .nv.info attributes and the
// per-kernel attributes of the global .nv.info (registers, stack, frame). Symbol indices are
// left out: they depend on what else the cubin holds, not on the code. Used to check that a
// kernel compiled beside others is the kernel compiled alone
// (docs/perf/kernel.md#compile-cost-per-candidate).
//
//   bool same = ktune::bench::kernel_code(a, name) == ktune::bench::kernel_code(b, name);
#include <string>

namespace ktune::bench {

/// The kernel's code and attributes as one comparable string; throws std::runtime_error when
/// the cubin is not an ELF64 file or holds no kernel of that (lowered) name.
std::string kernel_code(const std::string& cubin, const std::string& lowered_name);

} // namespace ktune::bench
