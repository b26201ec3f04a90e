// The bundled-PyTorch-script runner behind both --vs-torch paths, with a stand-in interpreter
// ($KTUNE_PYTHON pointed at a shell script): arguments arrive as words, the last marked line is
// the answer, and a missing interpreter or a garbled answer is a message, never a throw.
#include "catch.hpp"

#include "core/torch_script.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

struct fake_python {
    std::filesystem::path path;
    explicit fake_python(const std::string& body) {
        path = std::filesystem::temp_directory_path() /
               ("ktune_fake_python_" + std::to_string(getpid()));
        std::ofstream(path) << "#!/bin/sh\n" << body;
        std::filesystem::permissions(path, std::filesystem::perms::owner_all);
        ::setenv("KTUNE_PYTHON", path.c_str(), 1);
    }
    ~fake_python() {
        ::unsetenv("KTUNE_PYTHON");
        std::filesystem::remove(path);
    }
    fake_python(const fake_python&) = delete;
    fake_python& operator=(const fake_python&) = delete;
};

} // namespace

TEST_CASE("the script's last marked line is its answer, its arguments arrive as words") {
    // $1 is the script file; the rest are ours.
    fake_python py("echo 'KTUNE_TORCH {\"ok\": false}'\n"
                   "shift; echo noise; echo \"KTUNE_TORCH {\\\"ok\\\": true, \\\"args\\\": "
                   "\\\"$1|$2|$3\\\", \\\"n\\\": $#}\"\n");
    const auto a = ktune::detail::run_torch_script("print(1)", {"softmax", "bf16", "4096"});
    INFO(a.message);
    REQUIRE(a.answered);
    CHECK(a.doc.value("ok", false));
    CHECK(a.doc.value("args", "") == "softmax|bf16|4096");
    CHECK(a.doc.value("n", 0) == 3);
}

TEST_CASE("no interpreter, no answer line, or a garbled answer: a message, not a throw") {
    ::setenv("KTUNE_PYTHON", "/nonexistent/python", 1);
    const auto missing = ktune::detail::run_torch_script("print(1)", {});
    CHECK_FALSE(missing.answered);
    CHECK(missing.message.find("/nonexistent/python") != std::string::npos);
    CHECK(missing.message.find("KTUNE_PYTHON") != std::string::npos);
    ::unsetenv("KTUNE_PYTHON");
    {
        fake_python py("echo Traceback: no module named torch\n");
        const auto a = ktune::detail::run_torch_script("print(1)", {});
        CHECK_FALSE(a.answered);
        CHECK(a.message.find("no module named torch") != std::string::npos);
    }
    {
        fake_python py("echo 'KTUNE_TORCH {not json'\n");
        const auto a = ktune::detail::run_torch_script("print(1)", {});
        CHECK_FALSE(a.answered);
        CHECK(a.message.find("unreadable answer") != std::string::npos);
    }
}
