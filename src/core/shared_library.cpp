#include "core/shared_library.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <utility>

namespace ktune::detail {

shared_library::shared_library(void* handle, std::string soname, std::string what) noexcept
    : handle_(handle), soname_(std::move(soname)), what_(std::move(what)) {}

shared_library shared_library::open(std::initializer_list<const char*> sonames,
                                    std::string_view what, std::string_view install_hint) {
    std::string tried, last_error;
    for (const char* soname : sonames) {
        if (void* h = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL))
            return shared_library(h, soname, std::string(what));
        const char* why = ::dlerror();
        last_error = why ? why : "unknown dlopen error";
        tried += tried.empty() ? soname : fmt::format(", {}", soname);
    }
    throw error(error_kind::unsupported,
                fmt::format("{} is not available: could not load {} ({}). {}", what, tried,
                            last_error, install_hint));
}

shared_library::shared_library(shared_library&& o) noexcept
    : handle_(std::exchange(o.handle_, nullptr)), soname_(std::move(o.soname_)),
      what_(std::move(o.what_)) {}

shared_library& shared_library::operator=(shared_library&& o) noexcept {
    if (this != &o) {
        if (handle_) ::dlclose(handle_);
        handle_ = std::exchange(o.handle_, nullptr);
        soname_ = std::move(o.soname_);
        what_ = std::move(o.what_);
    }
    return *this;
}

shared_library::~shared_library() {
    if (handle_) ::dlclose(handle_);
}

void* shared_library::raw_symbol(const char* name) const {
    ::dlerror();
    void* p = handle_ ? ::dlsym(handle_, name) : nullptr;
    if (!p)
        throw error(
            error_kind::unsupported,
            fmt::format("{} ({}) lacks {}: a newer version is needed", what_, soname_, name));
    return p;
}

} // namespace ktune::detail
