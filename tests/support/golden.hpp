#pragma once
// A report pinned byte for byte against a file under tests/data. After a deliberate change to
// a report: KTUNE_UPDATE_GOLDEN=1 rewrites the file; review the diff before committing it.
#include "catch.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace ktune_test {

/// `relative`: the golden file's path below tests/data.
inline void check_golden(const std::string& text, const std::string& relative) {
    const std::string path = std::string(KTUNE_TEST_DATA_DIR "/") + relative;
    if (std::getenv("KTUNE_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << text;
    std::ifstream in(path, std::ios::binary);
    INFO("golden " << path << " (KTUNE_UPDATE_GOLDEN=1 rewrites it)");
    REQUIRE(in);
    std::stringstream golden;
    golden << in.rdbuf();
    CHECK(text == golden.str());
}

} // namespace ktune_test
