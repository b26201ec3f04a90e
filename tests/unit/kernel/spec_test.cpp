// Kernel specs: reading, positions in errors, the config space against a hand count, the hash
// over sources and includes, the bucket policy and the check report's golden JSON.
#include "catch.hpp"

#include "ktune/kernel/check.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace ktune::kernel;
namespace fs = std::filesystem;

namespace {

const fs::path data = fs::path(KTUNE_TEST_DATA_DIR) / "kernel";
const fs::path examples = fs::path(KTUNE_EXAMPLES_DATA_DIR).parent_path() / "kernels";

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string load_error(const std::string& text, const fs::path& where) {
    try {
        (void)parse_spec(text, where);
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::input);
        return e.what();
    }
    FAIL("accepted");
    return "";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("the matmul example reads into its parts") {
    const kernel_spec s = load_spec(examples / "matmul" / "matmul.json");
    CHECK(s.name == "matmul");
    CHECK(s.kernel_base == "matmul");
    CHECK(s.template_args.size() == 5);
    CHECK(s.parameters.size() == 8);
    CHECK(s.restrictions.size() == 4);
    CHECK(s.arguments.size() == 6);
    CHECK(s.arguments[2].output);
    CHECK(s.bucket.size() == 3);
    CHECK(default_config(s).to_string() ==
          "TILE_M=32,TILE_N=32,TILE_K=8,WPT_M=2,WPT_N=2,UNROLL=0,PAD=0,DOUBLE_BUFFER=0");
    const auto l = device_limits::for_arch("sm_90");
    const problem p = parse_problem("M=4096,N=4096,K=4096");
    CHECK(name_expression(s, default_config(s), p, l) == "matmul<32, 32, 8, 2, 2>");
    const geometry g = launch_of(s, default_config(s), p, l);
    CHECK(g.grid[0] == 128);
    CHECK(g.block[0] == 16);
    CHECK(g.shared_bytes == 4 * 8 * (32 + 32));
}

TEST_CASE("the space of the matmul example matches a hand count") {
    const kernel_spec s = load_spec(examples / "matmul" / "matmul.json");
    const auto l = device_limits::for_arch("sm_90");
    const problem p = parse_problem("M=4096,N=4096,K=4096");
    std::uint64_t product = 0, valid = 0;
    const std::int64_t tiles[] = {16, 32, 64, 128}, depths[] = {8, 16, 32}, wpts[] = {1, 2, 4, 8};
    for (auto tm : tiles)
        for (auto tn : tiles)
            for (auto tk : depths)
                for (auto wm : wpts)
                    for (auto wn : wpts)
                        for (int unroll = 0; unroll < 2; ++unroll)
                            for (int pad = 0; pad < 2; ++pad)
                                for (int db = 0; db < 2; ++db) {
                                    ++product;
                                    const auto threads = (tm / wm) * (tn / wn);
                                    const auto shared = 4 * (1 + db) * tk * (tm + tn + 2 * pad);
                                    valid += tm % wm == 0 && tn % wn == 0 && threads >= 32 &&
                                             threads <= 1024 && wm * wn <= 64 && tn / wn <= 1024 &&
                                             tm / wm <= 1024 && shared <= 232448;
                                }
    const config_space cs = enumerate(s, p, l);
    CHECK(cs.counts.product == product);
    CHECK(cs.counts.valid == valid);
    CHECK(cs.size() == valid);
    // Each kept index decodes to a config that passes on its own, and they are distinct.
    const auto all = cs.configs();
    std::size_t passing = 0;
    for (const auto& c : all)
        passing += reject_reason(s, c, p, l).empty();
    CHECK(passing == valid);
    CHECK(std::adjacent_find(cs.valid.begin(), cs.valid.end(),
                             [](auto a, auto b) { return a >= b; }) == cs.valid.end());
    ktune::config bad = default_config(s);
    bad.set("WPT_M", std::int64_t{8});
    bad.set("WPT_N", std::int64_t{8});
    CHECK(reject_reason(s, bad, p, l).find("warp_size") != std::string::npos);
    CHECK(reject_reason(s, default_config(s), p, l).empty());
}

TEST_CASE("the problem must give exactly the spec's dimensions") {
    const kernel_spec s = load_spec(examples / "matmul" / "matmul.json");
    CHECK_THROWS_AS(check_problem(s, parse_problem("M=1,N=2")), ktune::error);
    CHECK_THROWS_AS(check_problem(s, parse_problem("M=1,N=2,K=3,Q=4")), ktune::error);
    CHECK_NOTHROW(check_problem(s, parse_problem("K=3,M=1,N=2")));
}

TEST_CASE("errors point at line and column of the offending text") {
    const fs::path spec = data / "good" / "saxpy.json";
    const std::string text = read(spec);
    // Line 7 is  "kernel": "saxpy<BLOCK>",  and BLOCKZ starts at column 20.
    CHECK(load_error(replace(text, "saxpy<BLOCK>", "saxpy<BLOCKZ>"), spec)
              .rfind(spec.string() + ":7:20: unknown name 'BLOCKZ'", 0) == 0);
    // An unknown key is reported at the key.
    CHECK(
        load_error(replace(text, "\"name\": \"saxpy\",", "\"name\": \"saxpy\", \"nmae\": 1,"), spec)
            .rfind(spec.string() + ":4:20: unknown key 'nmae'", 0) == 0);
    // Line 13, inside an expression: the column of the unknown name within the string.
    CHECK(load_error(replace(text, "\"BLOCK * ITEMS <= 4096\"", "\"BLOCK * ITEM <= 4096\""), spec)
              .rfind(spec.string() + ":13:29: unknown name 'ITEM'", 0) == 0);
}

TEST_CASE("the hash covers the spec, the sources and their local includes") {
    const fs::path dir =
        fs::temp_directory_path() / ("ktune_kernel_hash_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* f : {"saxpy.json", "saxpy.cu", "saxpy_math.cuh"})
        fs::copy_file(data / "good" / f, dir / f);
    const kernel_spec s = load_spec(dir / "saxpy.json");
    const auto files = source_files(s);
    REQUIRE(files.size() == 2);
    CHECK(files[1].filename() == "saxpy_math.cuh");
    const std::string h0 = spec_hash(s);
    CHECK(h0 == spec_hash(load_spec(data / "good" / "saxpy.json"))); // a moved copy keys the same
    std::ofstream(dir / "saxpy_math.cuh", std::ios::app) << "// changed\n";
    const std::string h1 = spec_hash(load_spec(dir / "saxpy.json"));
    CHECK(h1 != h0);
    std::ofstream(dir / "saxpy.json", std::ios::app) << "\n";
    CHECK(spec_hash(load_spec(dir / "saxpy.json")) != h1);
    fs::remove_all(dir);
}

TEST_CASE("the NVRTC request carries defines, includes and the name expression") {
    const kernel_spec s = load_spec(data / "good" / "saxpy.json");
    ktune::config c = default_config(s);
    c.set("ITEMS", std::int64_t{4});
    const auto rq =
        compile_request_for(s, c, s.example_problem(), device_limits::for_arch("sm_80"));
    CHECK(rq.arch == "sm_80");
    CHECK(rq.name_expression == "saxpy<256>");
    CHECK(std::find(rq.options.begin(), rq.options.end(), "-DITEMS=4") != rq.options.end());
    CHECK(rq.source.find("#line 1 \"") == 0);
    CHECK(rq.source.find("__global__ void saxpy") != std::string::npos);
}

TEST_CASE("shape buckets follow the spec's rules") {
    const kernel_spec m = load_spec(examples / "matmul" / "matmul.json");
    CHECK(bucket_of(m, parse_problem("M=1000,N=4096,K=4097")).to_string() ==
          "M=1024,N=4096,K=8192");
    const kernel_spec s = load_spec(data / "good" / "saxpy.json");
    CHECK(bucket_of(s, parse_problem("N=4097")).to_string() == "N=8192");
    CHECK(bucket_of(s, parse_problem("N=4096")).to_string() == "N=4096");
}

TEST_CASE("the check report's JSON matches its golden file") {
    const kernel_spec s = load_spec(data / "good" / "saxpy.json");
    check_options o;
    o.compile = false;
    check_report r = check_spec(s, o);
    CHECK(r.counts.valid == 21);
    r.spec = "good/saxpy.json"; // the golden file holds a path that does not depend on the checkout
    CHECK(check_report_json(r) == read(data / "golden" / "check_saxpy.json"));
}

TEST_CASE("ktune ops lists the specs of a directory, a broken one with its error") {
    const auto listed = list_specs(examples, device_limits::for_arch("sm_90"));
    // decode_gemm, decode_gemm_tc, decode_gemm_tc_fp8, matmul, reduction, stencil2d
    REQUIRE(listed.size() == 6);
    CHECK(listed[2].name == "decode_gemm_tc_fp8");
    CHECK(listed[2].error.empty());
    CHECK(listed[3].name == "matmul");
    CHECK(listed[3].valid == 4944);
    CHECK(listed[3].error.empty());
    const auto bad = list_specs(data / "bad", device_limits::for_arch("sm_90"));
    CHECK(bad.size() >= 30);
    int checked = 0;
    for (const auto& b : bad) {
        // One that cannot load says why; one whose fault only NVRTC finds loads.
        if (b.path.find("restriction_unknown_parameter") != std::string::npos) {
            CHECK(b.error.find("unknown name 'BLOCKS'") != std::string::npos);
            ++checked;
        }
        if (b.path.find("/kernel_not_in_source.json") != std::string::npos) {
            CHECK(b.error.empty());
            ++checked;
        }
    }
    CHECK(checked == 2);
}
