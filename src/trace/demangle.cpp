// Demangling through the C++ ABI (CUDA kernels use Itanium mangling). The toolkit's libcufilt
// is not shipped in every CUDA install (absent from this one), so the ABI's demangler is used.
#include "ktune/trace/trace_file.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace ktune::trace {

std::string demangle(std::string_view mangled) {
    if (mangled.size() < 2 || mangled[0] != '_' || mangled[1] != 'Z') return std::string(mangled);
    int status = 0;
    const std::string in(mangled);
    std::unique_ptr<char, void (*)(void*)> out(
        abi::__cxa_demangle(in.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : in;
}

} // namespace ktune::trace
