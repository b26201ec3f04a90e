#pragma once
// A heavy C library (cuBLASLt, NVRTC, XGBoost) opened where it is used, not at start-up: a
// DT_NEEDED entry would map it into every ktune process, `ktune --version` included
// (docs/perf/startup.md). Each library has one small loader that resolves the symbols it
// needs through this class and names the library when it is absent.
//
//   const auto lib = ktune::detail::shared_library::open({"libnvrtc.so.13"}, "NVRTC", hint);
//   auto* version = lib.symbol<decltype(&nvrtcVersion)>("nvrtcVersion");

#include <initializer_list>
#include <string>
#include <string_view>

namespace ktune::detail {

class shared_library {
public:
    /// Opens the first of `sonames` that loads (RTLD_NOW | RTLD_LOCAL, the dynamic linker's
    /// search: the binary's run path, LD_LIBRARY_PATH, ld.so.cache). Throws
    /// error_kind::unsupported naming `what`, the sonames tried, dlerror() and `install_hint`.
    static shared_library open(std::initializer_list<const char*> sonames, std::string_view what,
                               std::string_view install_hint);

    shared_library(const shared_library&) = delete;
    shared_library& operator=(const shared_library&) = delete;
    shared_library(shared_library&& o) noexcept;
    shared_library& operator=(shared_library&& o) noexcept;
    ~shared_library();

    /// The address of `name`; throws error_kind::unsupported naming the library and the symbol
    /// (an older library that lacks it).
    [[nodiscard]] void* raw_symbol(const char* name) const;
    template <class Fn>
    [[nodiscard]] Fn symbol(const char* name) const {
        return reinterpret_cast<Fn>(raw_symbol(name));
    }
    /// The soname that loaded, e.g. "libcublasLt.so.13".
    [[nodiscard]] const std::string& soname() const noexcept { return soname_; }

private:
    shared_library(void* handle, std::string soname, std::string what) noexcept;
    void* handle_ = nullptr;
    std::string soname_;
    std::string what_;
};

/// The loader every library seam shares: opens the first of `sonames` that loads, once per
/// process and thread-safe, lets `resolve` fill the entry-point table, and keeps the library open
/// for good (closing it at exit would race with threads or teardown still inside it: compile-pool
/// threads in NVRTC, XGBoost's OpenMP workers, CUDA's own cuBLASLt state). A failed open throws
/// and is tried again by the next call.
template <class Api>
const Api& load_once(std::initializer_list<const char*> sonames, std::string_view what,
                     std::string_view install_hint, void (*resolve)(const shared_library&, Api&)) {
    static const Api* const api = [&] {
        auto* lib = new shared_library(shared_library::open(sonames, what, install_hint));
        auto* table = new Api{};
        resolve(*lib, *table);
        return table;
    }();
    return *api;
}

/// Resolves `Fn` by its own name into `slot`: KTUNE_RESOLVE(lib, api, nvrtcVersion) sets
/// api.nvrtcVersion = lib.symbol<decltype(&::nvrtcVersion)>("nvrtcVersion").
#define KTUNE_RESOLVE(lib, api, fn) (api).fn = (lib).symbol<decltype(&::fn)>(#fn)

/// A macro's value as a string literal, for sonames built from a header's version macros:
/// "libcublasLt.so." KTUNE_STRINGIFY(CUBLAS_VER_MAJOR).
#define KTUNE_STRINGIFY(x) KTUNE_STRINGIFY_(x)
#define KTUNE_STRINGIFY_(x) #x

} // namespace ktune::detail
