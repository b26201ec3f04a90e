#pragma once
// The example kernels' specs (examples/kernels/<name>/<name>.json), for the tests that load,
// tune or launch them.
#include <filesystem>
#include <string>

namespace ktune_test {

inline std::filesystem::path example_spec(const char* name) {
    return std::filesystem::path(KTUNE_EXAMPLES_DATA_DIR).parent_path() / "kernels" / name /
           (std::string(name) + ".json");
}

} // namespace ktune_test
