// Every distinct form of every built-in kernel compiles with NVRTC for sm_90 (NVRTC needs no
// GPU): each op x dtype x the configs its space enumerates at shapes that reach every form
// (short, mid, long and odd rows), the hand-set keys' forms, the defaults and the reference
// kernels. Sources differing only in sizes (threads, rows per block, cluster size, the baked
// row length) are one form: the kernels switch code by #if on flags, the stage and the cluster,
// and by `if constexpr` on the vector width's parity (docs/perf/kernels.md, "Kernel sources"). One
// NVRTC program per batch of forms.
#include "catch.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/ops/op.hpp"

#include <algorithm>
#include <cstdio>
#include <future>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ktune;
using namespace ktune::ops;

namespace {

// Identifiers the source's #if, #elif, #ifdef and #ifndef lines test: the macros that switch
// code.
std::set<std::string> switches(const std::string& src) {
    static const std::regex cond(R"(^\s*#\s*(if|elif|ifdef|ifndef)\b(.*)$)");
    static const std::regex ident(R"([A-Za-z_]\w*)");
    std::set<std::string> s;
    std::istringstream in(src);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (!std::regex_match(line, m, cond)) continue;
        const std::string rest = m[2].str();
        for (auto it = std::sregex_iterator(rest.begin(), rest.end(), ident);
             it != std::sregex_iterator(); ++it)
            s.insert(it->str());
    }
    return s;
}

// The source with its constants reduced to what changes the code: a switch keeps 0, 1 or N
// (over 1), VEC keeps 1 or even (the pair paths' `if constexpr`), other #defines are left out
// and other constants read N.
std::string form_of(const std::string& src) {
    static const std::regex define(R"(^#define (\w+) (\d+)$)");
    static const std::regex constant(R"(^constexpr (int|long long) (\w+) = (\d+);$)");
    const std::set<std::string> sw = switches(src);
    const auto value = [&](const std::string& name, const std::string& v) -> std::string {
        if (name == "VEC") return v == "1" ? "1" : "even";
        if (sw.count(name)) return v == "0" || v == "1" ? v : "N";
        return "N";
    };
    std::istringstream in(src);
    std::string out, line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_match(line, m, define)) {
            // A constant no preprocessor line tests (a size, a hand-set key the host reads)
            // changes no code: its line is left out of the form.
            if (m[1].str() != "VEC" && !sw.count(m[1].str())) continue;
            line = "#define " + m[1].str() + " " + value(m[1].str(), m[2].str());
        } else if (std::regex_match(line, m, constant))
            line = "constexpr " + m[1].str() + " " + m[2].str() + " = " +
                   value(m[2].str(), m[3].str()) + ";";
        out += line;
        out += '\n';
    }
    return out;
}

// Hand-set keys (not axes) that pick other forms: each variant of c that stays valid.
std::vector<config> hand_set_variants(const op& o, const config& c, const problem& p) {
    std::vector<config> v;
    const auto add = [&](const char* key, param_value val) {
        config x = c;
        x.set(key, std::move(val));
        if (o.valid(x, p, nullptr)) v.push_back(std::move(x));
    };
    if (o.name() == "softmax") {
        // The form the stage does not pick (staged rows take exp once, registers twice).
        const param_value* st = c.find("stage");
        add("exp_once", !(st && c.get<std::string>("stage") != "regs"));
    } else if (o.name() == "layernorm") {
        add("gb_prefetch", std::int64_t{0});
        add("packed_cvt", false);
        add("rows_reg_tail", false);
        add("tma_reg_tail", true);
        add("rows_in_turn", true);
        add("ragged_ring", std::int64_t{0}); // odd staged rows without the operands' ring
        add("ragged_ring", std::int64_t{2});
        add("shifted_ops", false); // odd staged rows: the operands shifted in the threads
        add("shifted_ops", true);  // ... or once a launch by the prologue, whatever the length
        add("min_blocks", std::int64_t{2});
    } else if (o.name() == "transpose") {
        // Odd rows: the other load form (bulk copies for bf16, pair loads for fp32), and the
        // micro-rows' offset from the address instead of a constant.
        const param_value* b = c.find("ragged_bulk");
        add("ragged_bulk", !(b && std::get<bool>(*b)) && size_of(p.type) != 4);
        add("shift_runtime", true);
    }
    return v;
}

struct form {
    std::string label;
    std::string source;
};

std::vector<form> every_form() {
    const shape2d shapes[] = {{4096, 64},    {4096, 4096},  {8192, 8192}, {4096, 32768},
                              {1024, 65536}, {512, 131072}, {3000, 777},  {64, 50257},
                              {64, 32001}}; // fp32: a ragged span with its tail in registers
    std::map<std::string, form> forms;
    const auto add = [&](const std::string& label, std::string src) {
        std::string key = form_of(src);
        forms.try_emplace(std::move(key), form{label, std::move(src)});
    };
    for (const op* o : all_ops()) {
        for (const dtype t : {dtype::f32, dtype::bf16}) {
            const std::string name = std::string(o->name()) + " " + std::string(to_string(t));
            for (const shape2d& s : shapes) {
                const problem p{s, t};
                add(name + " reference", o->reference_source(p));
                const config d = o->default_config(p);
                add(name + " " + to_string(s) + " default " + d.to_string(), o->source(d, p));
                for (const config& c : o->enumerate(p)) {
                    add(name + " " + to_string(s) + " " + c.to_string(), o->source(c, p));
                    for (const config& h : hand_set_variants(*o, c, p))
                        add(name + " " + to_string(s) + " " + h.to_string(), o->source(h, p));
                }
            }
        }
    }
    std::vector<form> out;
    out.reserve(forms.size());
    for (auto& [key, f] : forms)
        out.push_back(std::move(f));
    return out;
}

} // namespace

TEST_CASE("every distinct kernel form compiles with NVRTC for sm_90") {
    const std::vector<form> forms = every_form();
    std::printf("nvrtc_forms: %zu distinct forms\n", forms.size());
    REQUIRE(forms.size() > 50);
    std::vector<compile::compile_request> rs;
    for (const form& f : forms)
        rs.push_back({f.source, std::string(kernel_name), "sm_90", {}});
    // Batches of 12 forms (one NVRTC program each: the fixed cost paid once, memory bounded) on
    // two threads (the CI machine's cores).
    constexpr std::size_t batch = 12;
    std::vector<compile::compile_result> results(rs.size());
    const auto work = [&](std::size_t first_batch) {
        for (std::size_t b = first_batch * batch; b < rs.size(); b += 2 * batch) {
            const std::size_t e = std::min(rs.size(), b + batch);
            const std::vector<compile::compile_request> part(rs.begin() + static_cast<long>(b),
                                                             rs.begin() + static_cast<long>(e));
            auto got = compile::compile_batch(part, nullptr);
            for (std::size_t i = 0; i < got.size(); ++i)
                results[b + i] = std::move(got[i]);
        }
    };
    auto other = std::async(std::launch::async, work, std::size_t{1});
    work(0);
    other.get();
    int failed = 0;
    for (std::size_t i = 0; i < forms.size(); ++i) {
        if (results[i].ok) continue;
        ++failed;
        INFO(forms[i].label << "\n" << results[i].log);
        CHECK(results[i].ok);
    }
    CHECK(failed == 0);
}
