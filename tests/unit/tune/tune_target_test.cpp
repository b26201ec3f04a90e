// What the tuner searches (tune/tune_target.hpp), on the CPU: a user kernel's spec resolved
// into the worker's job (buffer sizes, scalars, geometry, reference), its space and key the
// same as the kernel module's, and the built-in op's target unchanged.
#include "catch.hpp"
#include "examples.hpp"

#include "ktune/core/error.hpp"
#include "ktune/kernel/capture.hpp"
#include "ktune/kernel/launcher.hpp"
#include "ktune/kernel/space.hpp"
#include "tune/tune_target.hpp"

#include <filesystem>
#include <fstream>

using namespace ktune;
namespace fs = std::filesystem;

namespace {
fs::path example(const char* name) {
    return ktune_test::example_spec(name);
}
tune::tune_request kernel_request(const char* name, const char* problem) {
    tune::tune_request rq;
    rq.kernel_spec = example(name);
    rq.kernel_problem = kernel::parse_problem(problem);
    return rq;
}
} // namespace

TEST_CASE("a user kernel's target: job, geometry, space, reference and key from its spec") {
    const auto rq = kernel_request("matmul", "M=256,N=128,K=64");
    const auto t = tune::detail::make_target(rq, "sm_90");
    const auto spec = kernel::load_spec(rq.kernel_spec);
    const auto limits = kernel::device_limits::for_arch("sm_90");

    CHECK(t->labels().to_string() == "matmul M=256,N=128,K=64 fp32");
    const config dflt = t->default_config();
    CHECK(dflt == kernel::default_config(spec));

    measure::candidate_request rq_line;
    t->describe(dflt, rq_line);
    const measure::kernel_job& job = rq_line.job;
    REQUIRE(job.args.size() == 6);
    CHECK(job.args[0].elements == 256 * 64); // A: M * K
    CHECK(job.args[0].input == "uniform");
    CHECK(job.args[2].elements == 256 * 128); // C: M * N, written
    CHECK(job.args[2].output);
    CHECK(job.args[2].input == "none");
    CHECK_FALSE(job.args[3].buffer);
    CHECK(job.args[3].value == 256);
    CHECK(job.rtol == spec.correctness.rtol);
    const auto g = kernel::launch_of(spec, dflt, rq.kernel_problem, limits);
    CHECK(job.launch.grid[0] == g.grid[0]);
    CHECK(job.launch.block[1] == g.block[1]);
    CHECK(job.launch.shared_bytes == g.shared_bytes);
    CHECK(job.reference_launch == job.launch); // default_config reference: the default's geometry
    CHECK(job.problem.find("matmul@" + kernel::spec_hash(spec)) == 0);

    // Another config: another geometry, the same buffers.
    const auto cs = kernel::enumerate(spec, rq.kernel_problem, limits);
    const config other = cs.at(cs.size() - 1);
    measure::candidate_request other_line;
    t->describe(other, other_line);
    CHECK(other_line.job.args == job.args);
    CHECK(other_line.job.launch.grid[0] ==
          kernel::launch_of(spec, other, rq.kernel_problem, limits).grid[0]);

    CHECK(t->make_space().valid_count() == cs.size());
    CHECK(t->reference_request("sm_90") ==
          t->compile_request(dflt, "sm_90", tune::injected_fault::none));
    CHECK(t->needs_reference_result());
    measure::candidate_request prep;
    CHECK_FALSE(t->prepare_request(prep));

    cache::environment env;
    env.arch = "sm_90";
    env.toolkit = 13000;
    env.driver_major = 580;
    CHECK(t->key(env) == kernel::kernel_cache_key(spec, rq.kernel_problem, env));
    CHECK(tune::tune_key(rq, env) == t->key(env));
    CHECK(t->bytes() == 4.0 * (256 * 64 + 64 * 128 + 256 * 128));

    compile::compile_result compiled;
    compiled.cubin_path = "/tmp/x.cubin";
    compiled.lowered_name = "_Z6matmul";
    t->set_reference(compiled);
    measure::candidate_request after;
    t->describe(dflt, after);
    CHECK(after.job.reference_cubin == "/tmp/x.cubin");
    CHECK(after.job.reference_kernel == "_Z6matmul");
}

TEST_CASE("a reference kernel of the spec: its own name and launch") {
    const auto rq = kernel_request("stencil", "NX=512,NY=256");
    const auto t = tune::detail::make_target(rq, "sm_90");
    CHECK(t->reference_request("sm_90").name_expression == "stencil2d_naive");
    measure::candidate_request line;
    t->describe(t->default_config(), line);
    CHECK(line.job.reference_launch.grid[0] == 32); // ceil_div(NX, 16)
    CHECK(line.job.reference_launch.grid[1] == 16);
    CHECK(line.job.reference_launch.block[0] == 16);
    // An in-place buffer: the reduction's zeroed output is an input too.
    const auto red = tune::detail::make_target(kernel_request("reduction", "N=4096"), "sm_90");
    measure::candidate_request rl;
    red->describe(red->default_config(), rl);
    CHECK(rl.job.args[1].output);
    CHECK(rl.job.args[1].input == "zeros");
    CHECK(rl.job.args[2].type == "int64");
}

TEST_CASE("a tune refuses what it cannot run: wrong problem, sizes over parameters") {
    CHECK_THROWS_AS(tune::detail::make_target(kernel_request("matmul", "M=4,N=4"), ""),
                    ktune::error);
    // A buffer sized by a parameter: the buffers would change between candidates.
    const fs::path dir = fs::temp_directory_path() / "ktune_tune_target_test";
    fs::create_directories(dir);
    fs::copy_file(example("reduction").parent_path() / "reduction.cu", dir / "reduction.cu",
                  fs::copy_options::overwrite_existing);
    std::ifstream in(example("reduction"));
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const auto at = text.find("\"size\": \"1\"");
    REQUIRE(at != std::string::npos);
    text.replace(at, 11, "\"size\": \"BLOCK\"");
    std::ofstream(dir / "reduction.json") << text;
    tune::tune_request rq;
    rq.kernel_spec = dir / "reduction.json";
    rq.kernel_problem = kernel::parse_problem("N=4096");
    try {
        (void)tune::detail::make_target(rq, "sm_90");
        FAIL("a size over a parameter was accepted");
    } catch (const ktune::error& e) {
        const std::string m = e.what();
        CHECK(m.find((dir / "reduction.json").string() + ":") == 0);
        CHECK(m.find("depends on parameter 'BLOCK'") != std::string::npos);
    }
    fs::remove_all(dir);
}

TEST_CASE("a built-in op's target is the op") {
    tune::tune_request rq;
    rq.op = "softmax";
    rq.prob = {{1024, 4096}, ops::dtype::bf16};
    const auto t = tune::detail::make_target(rq, "");
    CHECK(t->labels().to_string() == "softmax 1024x4096 bf16");
    CHECK(t->default_config() == ops::find_op("softmax").default_config(rq.prob));
    measure::candidate_request prep;
    CHECK(t->prepare_request(prep));
    CHECK(prep.op == "softmax");
    CHECK(prep.job.empty());
    CHECK_FALSE(t->needs_reference_result());
    CHECK(t->make_space().valid_count() == ops::find_op("softmax").enumerate(rq.prob).size());
}

TEST_CASE("a capture's data replace the generators and the reference kernel") {
    const fs::path spec_file = fs::path(KTUNE_TEST_DATA_DIR) / "kernel" / "launcher" / "scale.json";
    const auto spec = kernel::load_spec(spec_file);
    kernel::kernel_capture c;
    c.kernel = spec.name;
    c.spec = spec_file.string();
    c.spec_hash = kernel::spec_hash(spec);
    c.arch = "sm_90";
    c.prob = kernel::parse_problem("N=64");
    c.cfg = kernel::default_config(spec);
    c.arguments = {{"x", kernel::argument_kind::buffer, kernel::element_type::fp32, 256,
                    std::string(256, '\1'), std::nullopt, 0},
                   {"y", kernel::argument_kind::buffer, kernel::element_type::fp32, 256,
                    std::nullopt, std::string(256, '\2'), 0},
                   {"n", kernel::argument_kind::scalar, kernel::element_type::int32, 0,
                    std::nullopt, std::nullopt, 64},
                   {"stride", kernel::argument_kind::scalar, kernel::element_type::int64, 0,
                    std::nullopt, std::nullopt, 1}};
    const fs::path root = fs::temp_directory_path() / "ktune_tune_target_capture";
    fs::remove_all(root);
    const fs::path dir = kernel::write_capture(root, c);
    REQUIRE_FALSE(dir.empty());

    tune::tune_request rq;
    rq.kernel_spec = spec_file;
    rq.kernel_capture = dir;
    const auto t = tune::detail::make_target(rq, "sm_90");
    CHECK(t->labels().problem == "N=64"); // the capture's problem
    CHECK_FALSE(t->needs_reference_result());
    measure::candidate_request line;
    t->describe(t->default_config(), line);
    REQUIRE(line.job.args.size() == 4);
    CHECK(line.job.args[0].input_file == (dir / "0-x.in").string());
    CHECK(line.job.args[0].reference_file.empty());
    CHECK(line.job.args[1].reference_file == (dir / "1-y.out").string());
    CHECK(line.job.args[2].value == 64);
    CHECK(line.job.problem.find(" capture ") != std::string::npos);
    CHECK(measure::decode_request(measure::encode(line)) == line); // the files travel to the worker

    // A capture taken with another version of the spec is refused, naming both hashes.
    c.spec_hash = "0000000000000000";
    c.prob = kernel::parse_problem("N=128");
    c.arguments[0].bytes = c.arguments[1].bytes = 512;
    c.arguments[0].before = std::string(512, '\1');
    c.arguments[1].after = std::string(512, '\2');
    rq.kernel_capture = kernel::write_capture(root, c);
    try {
        (void)tune::detail::make_target(rq, "sm_90");
        FAIL("a stale capture was accepted");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find("captured with spec hash 0000000000000000") !=
              std::string::npos);
    }
    fs::remove_all(root);
}
