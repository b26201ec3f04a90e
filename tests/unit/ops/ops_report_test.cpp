// `ktune ops --json` (docs/formats.md#ktuneops) pinned byte for byte on a stand-in op whose
// space is fixed here, so a change to the built-in ops' spaces does not move the golden file.
#include "golden.hpp"

#include "ktune/ops/ops_report.hpp"

#include <array>
#include <string>

using namespace ktune::ops;

namespace {

// Two axes of each value kind the report prints; valid only when block x vec fits a row.
class stand_in_op final : public op {
public:
    std::string_view name() const noexcept override { return "stand_in"; }
    int version() const noexcept override { return 2; }
    std::string_view description() const noexcept override { return "a row op for the test"; }
    std::string_view torch_equivalent() const noexcept override { return "torch.sum(x, -1)"; }
    std::vector<param_axis> axes() const override {
        return {{"block", {std::int64_t{64}, std::int64_t{128}, std::int64_t{256}}, "threads"},
                {"vec", {std::int64_t{1}, std::int64_t{4}}, "elements per load"},
                {"unroll", {true, false}, "unroll the row loop"},
                {"scale", {0.5, 1.0}, "a real-valued axis"},
                {"order", {std::string("row"), std::string("col")}, "a named axis"}};
    }
    bool valid(const ktune::config& c, const problem& p, std::string*) const override {
        const bool bf16_wide = p.type == dtype::bf16 && c.get<std::int64_t>("vec") == 4;
        return c.get<std::int64_t>("block") * c.get<std::int64_t>("vec") <= p.shape.cols &&
               !bf16_wide;
    }
    ktune::config default_config(const problem&) const override { return {}; }
    std::string source(const ktune::config&, const problem&) const override { return {}; }
    std::string reference_source(const problem&) const override { return {}; }
    launch_geometry geometry(const ktune::config&, const problem&) const override { return {}; }
    launch_geometry reference_geometry(const problem&) const override { return {}; }
    std::vector<ktune::kernel::argument_spec> arguments(const problem& p) const override {
        using namespace ktune::kernel;
        const auto arg = [&p](const char* name, argument_kind kind, const char* size) {
            argument_spec a;
            a.name = name;
            a.kind = kind;
            a.type = kind == argument_kind::buffer ? element_of(p.type) : element_type::int32;
            (kind == argument_kind::buffer ? a.size : a.value) = expr::parse(size);
            return a;
        };
        auto x = arg("x", argument_kind::buffer, "rows * cols");
        x.input = input_generator::uniform;
        auto y = arg("y", argument_kind::buffer, "rows");
        y.output = true;
        const auto cols = arg("cols", argument_kind::scalar, "cols");
        return {x, y, cols};
    }
    tolerance tolerance_for(const problem&) const override { return {}; }
    double bytes(const problem&) const override { return 0; }
    double flops(const problem&) const override { return 0; }
    shape2d bucket(const shape2d& s) const override { return s; }
};

} // namespace

TEST_CASE("ktune.ops: each op's axes, its valid configs and its arguments per dtype") {
    const stand_in_op o;
    const std::array<const op*, 1> ops{&o};
    const shape2d shape{1024, 256};
    ktune_test::check_golden(ops_json(ops, shape) + "\n", "reports/ops.json");
    // 256 columns: 4 of the 6 (block, vec) pairs fit (64x1, 64x4, 128x1, 256x1), times the 8
    // (unroll, scale, order) points: 32 for fp32; bf16 drops vec 4: 3 x 8 = 24.
    const std::string text = format_ops(ops, shape);
    CHECK(text.find("stand_in (v2): a row op for the test\n") == 0);
    CHECK(text.find("  block            {64,128,256}  threads\n") != std::string::npos);
    CHECK(text.find("valid configs at 1024x256: fp32 32, bf16 24; PyTorch: torch.sum(x, -1)") !=
          std::string::npos);
    CHECK(text.find("  arguments: x[rows * cols], y[rows] out, int cols\n") != std::string::npos);
}

TEST_CASE("ktune.ops: users' kernel specs listed beside the ops, with why one does not load") {
    const stand_in_op o;
    const std::array<const op*, 1> ops{&o};
    kernel_listing k{"specs", {}};
    k.specs.push_back({"specs/a.json", "tiled", "matmul", 96, ""});
    k.specs.push_back({"specs/b.json", "", "", 0, "b.json:3:5: unknown key 'grd'"});
    const std::string json = ops_json(ops, {1024, 256}, &k);
    CHECK(json.find("\"kernels\": [") != std::string::npos);
    CHECK(json.find("\"valid_configs\": 96,\n      \"error\": null") != std::string::npos);
    CHECK(json.find("\"error\": \"b.json:3:5: unknown key 'grd'\"") != std::string::npos);
    CHECK(ops_json(ops, {1024, 256}).find("kernels") == std::string::npos);
    const std::string text = format_ops(ops, {1024, 256}, &k);
    CHECK(text.find("kernel specs under specs:\n"
                    "  tiled (specs/a.json): matmul, 96 valid configs at its example problem\n"
                    "  specs/b.json: does not load: b.json:3:5: unknown key 'grd'\n") !=
          std::string::npos);
}
