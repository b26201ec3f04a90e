#include "gemm/sm90.hpp"

#include "core/driver_api.hpp"
#include "gemm/kernel_sources.hpp"
#include "gemm/own_module.hpp"
#include "ktune/core/error.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace ktune::gemm::detail {
namespace {

constexpr int slab_row_bytes = 128;       // a slab's row of K: one 128-byte swizzle atom
constexpr std::size_t align_slack = 1024; // the kernel aligns the ring to the swizzle atom

// The wgmma shape and types of an input type, and its operands after the descriptors: the
// 2-byte types take the transpose immediates (0: K-major), fp8 has none (K-major only).
struct wgmma_kind {
    const char* shape_types;
    const char* tail;
};
wgmma_kind wgmma_of(dtype t) noexcept {
    switch (t) {
    case dtype::fp16:
        return {"k16.f32.f16.f16", "p, 1, 1, 0, 0"};
    case dtype::fp8_e4m3:
        return {"k32.f32.e4m3.e4m3", "p, 1, 1"};
    case dtype::bf16:
        break;
    }
    return {"k16.f32.bf16.bf16", "p, 1, 1, 0, 0"};
}

// wgmma.m64nN of type t on N / 2 accumulators: the operand list is as long as N, so it is
// written out per config rather than kept in the .cuh for every N.
std::string wgmma_wrapper(int n, dtype t) {
    const wgmma_kind kind = wgmma_of(t);
    const int regs = n / 2;
    std::string list;
    for (int i = 0; i < regs; ++i)
        list += fmt::format("{}%{}", i ? ", " : "", i);
    std::string outs;
    for (int i = 0; i < regs; ++i)
        outs += fmt::format("{}\"+f\"(d[{}])", i ? ", " : "", i);
    return fmt::format(
        "__device__ __forceinline__ void wgmma_bn(float (&d)[{0}], unsigned long long a,\n"
        "                                         unsigned long long b, bool acc) {{\n"
        "    asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{3}, 0;\\n\"\n"
        "                 \"wgmma.mma_async.sync.aligned.m64n{1}{7} {{{2}}}, \"\n"
        "                 \"%{4}, %{5}, {8};\\n}}\"\n"
        "                 : {6}\n"
        "                 : \"r\"((int)acc), \"l\"(a), \"l\"(b));\n"
        "}}\n",
        regs, n, list, regs, regs + 1, regs + 2, outs, kind.shape_types, kind.tail);
}

template <class Fn>
Fn need(const char* symbol) {
    return ktune::detail::need_driver_fn<Fn>("sm90 GEMM", symbol);
}

void check(CUresult rc, const char* call, std::string_view what) {
    ktune::detail::check_driver(rc, "sm90 GEMM", call, what);
}

} // namespace

std::optional<sm90_device> sm90_device_here() noexcept {
    const std::optional<device_limits> l = device_limits_here();
    if (!l || l->sm != 90) return std::nullopt;
    sm90_device d{l->sms, l->max_shared};
    if (l->memory_khz > 0 && l->bus_bits > 0)
        d.dram_gbs = 2.0 * l->memory_khz * 1e3 * (l->bus_bits / 8.0) * 1e-9;
    return d;
}

int sm90_bk(dtype t) noexcept {
    return slab_row_bytes / static_cast<int>(input_bytes(t));
}

int sm90_bm(const sm90_config& c) noexcept {
    return 64 * c.consumers;
}

std::size_t sm90_shared_bytes(const sm90_config& c) noexcept {
    const auto slabs = static_cast<std::size_t>(c.stages) *
                       static_cast<std::size_t>(sm90_bm(c) + c.bn) * slab_row_bytes;
    const std::size_t bars = static_cast<std::size_t>(2 * c.stages) * 8;
    if (c.tma_store == 0) return slabs + bars + align_slack;
    // The staging area starts on the next 1024-byte boundary: each consumer's 64 x bn of D.
    const std::size_t staging = static_cast<std::size_t>(c.consumers) * 64 * c.bn * 2;
    return ((slabs + bars + 1023) / 1024) * 1024 + staging + align_slack;
}

std::string sm90_name(const sm90_config& c) {
    return fmt::format("bn{} s{} c{} g{} x{}{} e{} t{}{}{}", c.bn, c.stages, c.consumers, c.group,
                       c.cluster, c.cluster_b != 0 ? "b" : "", c.epi_parts, c.tma_store,
                       c.splits != 1 ? fmt::format(" k{}", c.splits) : "",
                       c.swap_ab != 0 ? " ab" : "");
}

namespace {
// Split-K's two buffers on p: an fp32 partial of every (tile, slice), a counter a (tile,
// consumer); none unsplit.
struct split_bytes {
    std::size_t partials = 0, counters = 0;
};
split_bytes split_bytes_of(const sm90_config& c, const problem& p) noexcept {
    // Tiles over B's rows by bm: a split config is never swapped (sm90_rejects).
    if (c.splits <= 1) return {};
    const auto tiles = static_cast<std::size_t>((p.n + sm90_bm(c) - 1) / sm90_bm(c)) *
                       static_cast<std::size_t>((p.m + c.bn - 1) / c.bn);
    return {tiles * static_cast<std::size_t>(sm90_bm(c) * c.bn) *
                static_cast<std::size_t>(c.splits) * sizeof(float),
            tiles * static_cast<std::size_t>(c.consumers) * sizeof(int)};
}
} // namespace

std::size_t sm90_workspace_bytes(const sm90_config& c, const problem& p) noexcept {
    const split_bytes b = split_bytes_of(c, p);
    return b.partials + b.counters;
}

std::string sm90_rejects(const sm90_config& c, const problem& p, std::size_t max_shared) {
    if (c.bn < 8 || c.bn > 256 || c.bn % 8 != 0)
        return fmt::format("bn {} is not a wgmma N (a multiple of 8 from 8 to 256)", c.bn);
    if (c.consumers != 1 && c.consumers != 2)
        return fmt::format("consumers {}: 1 or 2 warpgroups", c.consumers);
    if (c.stages < 2 || c.stages > 24) return fmt::format("stages {}: 2 to 24", c.stages);
    if (c.group < 1) return fmt::format("group {}: at least 1", c.group);
    if (c.cluster != 1 && c.cluster != 2) return fmt::format("cluster {}: 1 or 2", c.cluster);
    if (c.cluster_b != 0 && c.cluster_b != 1)
        return fmt::format("cluster_b {}: 0 (the cluster shares A) or 1 (B)", c.cluster_b);
    if (c.cluster_b != 0 && c.cluster == 1)
        return "cluster_b without a cluster: set cluster 2 for blocks to share B's slab";
    if (c.swap_ab != 0 && c.swap_ab != 1)
        return fmt::format("swap_ab {}: 0 (B's rows are the tile's M side) or 1 (A's)", c.swap_ab);
    if (c.swap_ab && (c.cluster != 1 || c.splits != 1 || c.tma_store != 0 || c.epi_parts != 0))
        return "swap_ab with a cluster, split-K, a TMA-store or deferred epilogue: the swapped "
               "form stores D's transpose directly, one block a tile";
    if (c.swap_ab && p.m > sm90_bm(c))
        return fmt::format("swap_ab with M {} over the tile's {} rows: the swapped form is for "
                           "decode GEMMs, all tokens in one tile",
                           p.m, sm90_bm(c));
    if (c.swap_ab && c.consumers == 2 && p.m <= 64)
        return fmt::format("swap_ab with two consumers and M {}: the second consumer's 64 rows "
                           "would hold no token",
                           p.m);
    if (c.splits < 1 || c.splits > sm90_max_splits)
        return fmt::format("splits {}: 1 to {}", c.splits, sm90_max_splits);
    if (c.splits > 1 && (c.tma_store != 0 || c.epi_parts != 0 || c.cluster != 1))
        return fmt::format("splits {} with a TMA-store, deferred or cluster epilogue: split-K "
                           "sums its slices in the direct-store epilogue of one block",
                           c.splits);
    // The slices' sum beside bn / 2 accumulators (ptxas -v: bn 224 fits, 240 spills).
    if (c.splits > 1 && c.bn > 224)
        return fmt::format("splits {} with bn {}: the split-K epilogue spills a consumer's "
                           "registers over bn 224",
                           c.splits, c.bn);
    if (const int bk = sm90_bk(p.type); c.splits > 1 && c.splits > (p.k + bk - 1) / bk)
        return fmt::format("splits {} over K {}: fewer {}-element slabs than slices", c.splits, p.k,
                           bk);
    if (sm90_workspace_bytes(c, p) > sm90_max_workspace)
        return fmt::format("splits {}: a {} MiB workspace, over the {} MiB the template allows",
                           c.splits, sm90_workspace_bytes(c, p) >> 20, sm90_max_workspace >> 20);
    if (c.epi_parts != 0 && c.epi_parts != 1 && c.epi_parts != 2 && c.epi_parts != 4 &&
        c.epi_parts != 8)
        return fmt::format("epi_parts {}: 0, 1, 2, 4 or 8", c.epi_parts);
    if (c.epi_parts > c.bn / 8)
        return fmt::format("epi_parts {} over bn {}: more parts than 8-column blocks", c.epi_parts,
                           c.bn);
    // Registers of a consumer thread (240 after setmaxnreg, 255 alone): bn / 2 accumulators,
    // bn / 4 packed words of a pending tile, ~60 others (ptxas -v: bn 240 fits, 256 spills).
    if (c.epi_parts > 0 && c.bn / 2 + c.bn / 4 + 60 > 240)
        return fmt::format("bn {} with a deferred epilogue: {} accumulators and {} pending words "
                           "do not fit a consumer's registers (bn <= 240)",
                           c.bn, c.bn / 2, c.bn / 4);
    if (c.tma_store != 0 && c.tma_store != 1)
        return fmt::format("tma_store {}: 0 or 1", c.tma_store);
    if (c.tma_store && c.epi_parts != 0)
        return "tma_store with epi_parts: two forms of one epilogue, pick one";
    if (c.tma_store && c.bn % 64 != 0)
        return fmt::format("tma_store with bn {}: the TMA stores 64-column boxes", c.bn);
    if (c.tma_store && p.m % 8 != 0)
        return fmt::format("tma_store with M {}: D's columns must be 16-byte rows for the TMA",
                           p.m);
    if (c.cluster_b == 0 && (c.bn / c.cluster) % 8 != 0)
        return fmt::format("bn {} over a cluster of {}: each block's part of the Q slab must be "
                           "whole 8-row swizzle atoms",
                           c.bn, c.cluster);
    if (sm90_shared_bytes(c) > max_shared)
        return fmt::format("{} bytes of shared memory, the device allows {}", sm90_shared_bytes(c),
                           max_shared);
    if (p.op != layout::tn)
        return fmt::format("layout {}: tn only (both operands K-major, as the template's wgmma "
                           "reads them)",
                           to_string(p.op));
    if (const auto per_row = 16 / static_cast<std::int64_t>(input_bytes(p.type));
        p.k % per_row != 0)
        return fmt::format("K {} is not a multiple of {} (the TMA's 16-byte rows of {})", p.k,
                           per_row, to_string(p.type));
    if (p.m > 0x7fffffff || p.n > 0x7fffffff || p.k > 0x7fffffff)
        return "a dimension over 2^31 - 1";
    return "";
}

const char* to_string(sm90_fault f) noexcept {
    switch (f) {
    case sm90_fault::skip_slab:
        return "skip_slab";
    case sm90_fault::drop_tile:
        return "drop_tile";
    case sm90_fault::none:
        break;
    }
    return "none";
}

sm90_fault sm90_fault_for(const sm90_config& c, double rate, std::uint64_t seed) noexcept {
    if (rate <= 0) return sm90_fault::none;
    // FNV-1a over the knobs and the seed: the same on every platform and run (cluster_b only
    // where set, so the configs without it draw what they drew before it existed).
    std::uint64_t h = 1469598103934665603ull ^ seed;
    const auto mix = [&h](std::int32_t v) {
        for (int byte = 0; byte < 4; ++byte) {
            h ^= (static_cast<std::uint32_t>(v) >> (8 * byte)) & 0xffu;
            h *= 1099511628211ull;
        }
    };
    for (const std::int32_t v :
         {c.bn, c.stages, c.consumers, c.group, c.cluster, c.epi_parts, c.tma_store, c.splits})
        mix(v);
    if (c.cluster_b != 0) mix(c.cluster_b);
    if (c.swap_ab != 0) mix(c.swap_ab + 2);
    const double u = static_cast<double>(h >> 11) * 0x1.0p-53;
    if (u >= rate) return sm90_fault::none;
    return (h & 1) ? sm90_fault::skip_slab : sm90_fault::drop_tile;
}

std::string sm90_source(const sm90_config& c, kernel_form form, sm90_fault fault) {
    std::string body = std::string(kernels::gemm_epilogue) + kernels::sm90_gemm;
    const std::string marker = "KTUNE_WGMMA_WRAPPER";
    const auto at = body.find(marker);
    if (at == std::string::npos)
        throw error(error_kind::internal, "sm90_gemm.cuh has no KTUNE_WGMMA_WRAPPER line");
    body.replace(at, marker.size(), wgmma_wrapper(c.bn, form.type));
    // The raster group is a kernel argument: configs that differ only in it share a cubin.
    // So are the slices: split configs share one compile, unsplit ones leave its code out.
    return fmt::format("#define BM {}\n#define BN {}\n#define STAGES {}\n#define CONSUMERS {}\n"
                       "#define CLUSTER {}\n#define CLUSTER_B {}\n#define EPI_PARTS {}\n"
                       "#define TMA_STORE {}\n#define SPLIT_K {}\n#define SWAP_AB {}\n"
                       "#define IN_BYTES {}\n#define IN_F16 {}\n#define EPILOGUE {}\n{}{}",
                       sm90_bm(c), c.bn, c.stages, c.consumers, c.cluster, c.cluster_b, c.epi_parts,
                       c.tma_store, c.splits > 1 ? 1 : 0, c.swap_ab, input_bytes(form.type),
                       form.type == dtype::fp16 ? 1 : 0, static_cast<int>(form.epi),
                       fault == sm90_fault::none
                           ? std::string()
                           : fmt::format("#define KTUNE_FAULT {}\n", static_cast<int>(fault)),
                       body);
}

struct sm90_kernel::impl {
    sm90_config cfg;
    kernel_form form;
    std::optional<own_module> loaded;
    CUfunction function = nullptr;
    int sms = 0;
    std::size_t max_shared = 0;
    decltype(&cuTensorMapEncodeTiled) encode =
        need<decltype(&cuTensorMapEncodeTiled)>("cuTensorMapEncodeTiled");
    decltype(&cuLaunchKernelEx) launch = need<decltype(&cuLaunchKernelEx)>("cuLaunchKernelEx");
    int resident_units = 0; // clusters (blocks where cluster = 1) that fit on the GPU at once
    // The last call's problem, operands and tensor maps: a caller that repeats them (an
    // application's layer, the tuner's rotation) pays neither the rules nor the encoding again.
    struct bound {
        problem p;
        const void* a = nullptr;
        const void* b = nullptr;
        void* d = nullptr;
        std::array<CUtensorMap, 3> maps{}; // P, Q, OUT
    };
    std::optional<bound> last;
    // Split-K's device memory: fp32 partials (any contents) and counters (zero between launches:
    // each tile's last slice sets its counter back). Grown, never shrunk or freed before the
    // kernel: a graph captured earlier keeps pointing at the older buffers.
    std::vector<void*> held;
    float* partials = nullptr;
    std::size_t partials_bytes = 0;
    int* arrivals = nullptr;
    std::size_t arrivals_bytes = 0;

    ~impl() {
        for (void* p : held)
            (void)cudaFree(p);
    }

    // Device memory of at least `bytes`, zeroed, kept in `held`. Allowed while the caller's
    // stream is being captured (relaxed capture for this thread; the zeroing on a private
    // non-blocking stream, which joins no capture), so a first call inside a graph works.
    void* grow(std::size_t bytes) {
        cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
        (void)cudaThreadExchangeStreamCaptureMode(&mode);
        void* p = nullptr;
        cudaStream_t zeroing = nullptr;
        cudaError_t rc = cudaMalloc(&p, bytes);
        if (rc == cudaSuccess) rc = cudaStreamCreateWithFlags(&zeroing, cudaStreamNonBlocking);
        if (rc == cudaSuccess) rc = cudaMemsetAsync(p, 0, bytes, zeroing);
        if (rc == cudaSuccess) rc = cudaStreamSynchronize(zeroing);
        if (zeroing) (void)cudaStreamDestroy(zeroing);
        (void)cudaThreadExchangeStreamCaptureMode(&mode);
        if (rc != cudaSuccess) {
            if (p) (void)cudaFree(p);
            throw error(error_kind::cuda,
                        fmt::format("sm90 GEMM {}: a {}-byte split-K workspace: {}", sm90_name(cfg),
                                    bytes, cudaGetErrorString(rc)));
        }
        held.push_back(p);
        return p;
    }

    void reserve_split(const problem& p) {
        const split_bytes need = split_bytes_of(cfg, p);
        if (need.partials > partials_bytes) {
            partials = static_cast<float*>(grow(need.partials));
            partials_bytes = need.partials;
        }
        if (need.counters > arrivals_bytes) {
            arrivals = static_cast<int*>(grow(need.counters));
            arrivals_bytes = need.counters;
        }
    }

    // Rows x K of type t, row-major at `base`, in boxes of box_cols (128 bytes) x box_rows,
    // 128-byte swizzled; rows and K past the ends read as zeros (and are not written by a store).
    CUtensorMap map(const void* base, std::int64_t rows, std::int64_t k, int box_rows, dtype t,
                    int box_cols) const {
        CUtensorMap m{};
        const std::array<cuuint64_t, 2> dims{static_cast<cuuint64_t>(k),
                                             static_cast<cuuint64_t>(rows)};
        const std::array<cuuint64_t, 1> strides{static_cast<cuuint64_t>(k) * input_bytes(t)};
        const std::array<cuuint32_t, 2> box{static_cast<cuuint32_t>(box_cols),
                                            static_cast<cuuint32_t>(box_rows)};
        const std::array<cuuint32_t, 2> steps{1, 1};
        const CUtensorMapDataType type = t == dtype::fp8_e4m3 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                         : t == dtype::fp16   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                              : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
        check(encode(&m, type, 2, const_cast<void*>(base), dims.data(), strides.data(), box.data(),
                     steps.data(), CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
              "cuTensorMapEncodeTiled", fmt::format("{} x {} operand", rows, k));
        return m;
    }

    // One launch of `grid` blocks (whole clusters) of the config on `stream`; `attrs` holds the
    // attributes the config points at: programmatic stream serialization (the kernel's
    // griddepcontrol: it may start while the previous kernel in the stream ends) and the
    // cluster shape.
    CUlaunchConfig launch_config(unsigned grid, CUstream stream,
                                 std::array<CUlaunchAttribute, 2>& attrs) const {
        CUlaunchConfig l{};
        l.gridDimX = grid;
        l.gridDimY = l.gridDimZ = 1;
        l.blockDimX = static_cast<unsigned>(128 * (cfg.consumers + 1));
        l.blockDimY = l.blockDimZ = 1;
        l.sharedMemBytes = static_cast<unsigned>(sm90_shared_bytes(cfg));
        l.hStream = stream;
        attrs = {};
        attrs[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attrs[0].value.programmaticStreamSerializationAllowed = 1;
        l.attrs = attrs.data();
        l.numAttrs = 1;
        if (cfg.cluster > 1) {
            attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attrs[1].value.clusterDim.x = static_cast<unsigned>(cfg.cluster);
            attrs[1].value.clusterDim.y = attrs[1].value.clusterDim.z = 1;
            l.numAttrs = 2;
        }
        return l;
    }
};

sm90_kernel::sm90_kernel(const sm90_config& c, kernel_form form, sm90_fault fault)
    : impl_(std::make_unique<impl>()) {
    impl_->cfg = c;
    impl_->form = form;
    const std::optional<sm90_device> here = sm90_device_here();
    if (!here)
        throw error(error_kind::unsupported,
                    "sm90 GEMM: needs an sm_90 GPU (wgmma, TMA); this device is not one");
    impl_->sms = here->sms;
    impl_->max_shared = here->max_shared;
    impl_->loaded.emplace(sm90_source(c, form, fault), sm90_kernel_name, "sm_90a",
                          sm90_shared_bytes(c), fmt::format("sm90 GEMM {}", sm90_name(c)));
    impl_->function = impl_->loaded->function();
    impl_->resident_units = impl_->sms;
    if (c.cluster > 1) {
        // The grid is persistent: a cluster that cannot be resident with the others would run
        // its whole share of the tiles after them. Not every SM pairs up (a GPC's SMs, and the
        // SMs the driver keeps), so ask the driver how many clusters fit.
        auto occupancy =
            need<decltype(&cuOccupancyMaxActiveClusters)>("cuOccupancyMaxActiveClusters");
        std::array<CUlaunchAttribute, 2> attrs{};
        CUlaunchConfig cfg = impl_->launch_config(
            static_cast<unsigned>(impl_->sms / c.cluster * c.cluster), nullptr, attrs);
        cfg.attrs = &attrs[1]; // the cluster shape alone: what occupancy depends on
        cfg.numAttrs = 1;
        int n = 0;
        check(occupancy(&n, impl_->function, &cfg), "cuOccupancyMaxActiveClusters", sm90_name(c));
        if (n < 1)
            throw error(error_kind::unsupported, fmt::format("sm90 GEMM {}: no cluster of {} fits",
                                                             sm90_name(c), c.cluster));
        impl_->resident_units = n;
    }
}

sm90_kernel::~sm90_kernel() = default;
sm90_kernel::sm90_kernel(sm90_kernel&&) noexcept = default;
sm90_kernel& sm90_kernel::operator=(sm90_kernel&&) noexcept = default;

const sm90_config& sm90_kernel::config() const noexcept {
    return impl_->cfg;
}

int sm90_kernel::resident_units() const noexcept {
    return impl_->resident_units;
}

void sm90_kernel::run(const problem& p, const void* a, const void* b, void* d, CUstream_st* stream,
                      float alpha, const void* bias, b_operand b_is) const {
    const sm90_config& c = impl_->cfg;
    auto& last = impl_->last;
    if (!last || !(last->p == p)) {
        check_problem(fmt::format("sm90 GEMM {}", sm90_name(c)),
                      sm90_rejects(c, p, impl_->max_shared), impl_->form, p);
        impl_->reserve_split(p);
    }
    if (p.epi != epilogue::none && bias == nullptr)
        throw_missing_bias(fmt::format("sm90 GEMM {}", sm90_name(c)), p);
    if (!last || !(last->p == p) || last->a != a || last->b != b || last->d != d) {
        // D (M x N column-major) is OUT (N x M row-major): P = B (N x K), Q = A (M x K), each
        // block of a cluster loading its share of the slab the cluster shares; OUT in 64 x 64
        // boxes for the TMA store (unused without it), of D's type. Swapped (swap_ab), P = A
        // and Q = B, and the kernel stores its tiles transposed.
        const dtype out_type = p.type == dtype::fp16 ? dtype::fp16 : dtype::bf16;
        // Swapped, P's box is the tokens rounded up to 8 rows (the kernel expects those bytes).
        const int p_rows =
            c.cluster_b ? sm90_bm(c) / c.cluster
            : c.swap_ab ? static_cast<int>(std::min<std::int64_t>(sm90_bm(c), (p.m + 7) / 8 * 8))
                        : sm90_bm(c);
        const int q_rows = c.cluster_b ? c.bn : c.bn / c.cluster;
        const void* op_p = c.swap_ab ? a : b;
        const void* op_q = c.swap_ab ? b : a;
        last = impl::bound{
            p,
            a,
            b,
            d,
            {impl_->map(op_p, c.swap_ab ? p.m : p.n, p.k, p_rows, p.type, sm90_bk(p.type)),
             impl_->map(op_q, c.swap_ab ? p.n : p.m, p.k, q_rows, p.type, sm90_bk(p.type)),
             c.tma_store ? impl_->map(d, p.n, p.m, 64, out_type, 64) : CUtensorMap{}}};
    }
    int rows = static_cast<int>(c.swap_ab ? p.m : p.n),
        cols = static_cast<int>(c.swap_ab ? p.n : p.m), k = static_cast<int>(p.k);
    int group = c.group, splits = c.splits;
    void* out = d;
    float* partials = impl_->partials;
    int* arrivals = impl_->arrivals;
    const void* bias_arg = bias;
    int b_early = b_is == b_operand::weights ? 1 : 0;
    std::array<void*, 14> args{
        &last->maps[0], &last->maps[1], &last->maps[2], &out,      &rows,     &cols,     &k,
        &group,         &alpha,         &splits,        &partials, &arrivals, &bias_arg, &b_early};
    // A cluster takes `cluster` neighbouring row tiles of one column tile, or with cluster_b
    // neighbouring column tiles of one row tile (a unit); one block a SM (or the clusters that
    // fit), persistent.
    const std::int64_t row_tiles = (rows + sm90_bm(c) - 1) / sm90_bm(c);
    const std::int64_t col_tiles = (cols + c.bn - 1) / c.bn;
    const std::int64_t units =
        (c.cluster_b ? row_tiles * ((col_tiles + c.cluster - 1) / c.cluster)
                     : ((row_tiles + c.cluster - 1) / c.cluster) * col_tiles) *
        c.splits;
    std::array<CUlaunchAttribute, 2> attrs{};
    const CUlaunchConfig cfg = impl_->launch_config(
        static_cast<unsigned>(std::min<std::int64_t>(units, impl_->resident_units) * c.cluster),
        stream, attrs);
    check(impl_->launch(&cfg, impl_->function, args.data(), nullptr), "cuLaunchKernelEx",
          sm90_name(c));
}

} // namespace ktune::gemm::detail
