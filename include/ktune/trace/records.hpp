#pragma once
// The records of a ktune trace: plain fixed-width value types, one per activity kind. They are
// what CUPTI's records are reduced to on the profiled process's hot path, what a .ktrace file
// stores (column by column) and what the streaming reader hands back.
//
//   ktune::trace::kernel_record k;  k.start_ns = 100; k.end_ns = 150;  k.duration_ns() == 50

#include <cstdint>
#include <string>

namespace ktune::trace {

/// Bits of a record's `flags`.
enum record_flag : std::uint8_t {
    /// CUPTI delivered start == end == 0: the time was not collected. Such a record is counted,
    /// never treated as 0 ns.
    flag_no_timestamp = 1,
    flag_device_launched = 2, ///< launched from the device (CUDA dynamic parallelism)
    /// A whole CUDA graph launch (graph-level tracing, the default): one record from the first
    /// node's start to the last node's end, named "CUDA graph <id>", grid and block 0.
    /// docs/formats.md#ktrace says how readers treat it.
    flag_graph_launch = 4,
};

struct dim3_u {
    std::uint32_t x = 1, y = 1, z = 1;
    bool operator==(const dim3_u&) const = default;
};

/// One kernel execution (CUPTI CONCURRENT_KERNEL).
struct kernel_record {
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    std::uint32_t name_id = 0; ///< index into the trace's string table (mangled + demangled)
    std::uint32_t device = 0;
    std::uint32_t context = 0;
    std::uint32_t stream = 0;
    std::uint32_t correlation = 0; ///< joins the launching API call
    std::uint32_t graph_id = 0;    ///< 0 unless launched as part of a CUDA graph
    std::uint64_t graph_node_id = 0;
    dim3_u grid, block;
    dim3_u cluster{0, 0, 0};        ///< 0 when launched without clusters
    std::uint32_t registers = 0;    ///< per thread
    std::uint32_t static_smem = 0;  ///< bytes per block
    std::uint32_t dynamic_smem = 0; ///< bytes per block
    std::uint32_t local_mem = 0;    ///< bytes per thread
    std::uint8_t flags = 0;         ///< record_flag bits
    /// The NVTX push/pop range open on the launching thread at launch: 1 + string id of its
    /// message (innermost range) and of its path "outer/…/inner"; 0 when none (format 1.1+).
    std::uint32_t nvtx_range = 0;
    std::uint32_t nvtx_path = 0;
    [[nodiscard]] bool timed() const noexcept { return !(flags & flag_no_timestamp); }
    [[nodiscard]] std::uint64_t duration_ns() const noexcept {
        return timed() && end_ns > start_ns ? end_ns - start_ns : 0;
    }
    bool operator==(const kernel_record&) const = default;
};

/// One copy (CUPTI MEMCPY). copy_kind is CUPTI's CUpti_ActivityMemcpyKind (1 HtoD, 2 DtoH, …).
struct memcpy_record {
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    std::uint64_t bytes = 0;
    std::uint32_t device = 0;
    std::uint32_t context = 0;
    std::uint32_t stream = 0;
    std::uint32_t correlation = 0;
    std::uint32_t graph_id = 0;
    std::uint8_t copy_kind = 0;
    std::uint8_t src_kind = 0; ///< CUpti_ActivityMemoryKind
    std::uint8_t dst_kind = 0;
    std::uint8_t flags = 0;
    [[nodiscard]] bool timed() const noexcept { return !(flags & flag_no_timestamp); }
    [[nodiscard]] std::uint64_t duration_ns() const noexcept {
        return timed() && end_ns > start_ns ? end_ns - start_ns : 0;
    }
    bool operator==(const memcpy_record&) const = default;
};

/// One memset (CUPTI MEMSET).
struct memset_record {
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    std::uint64_t bytes = 0;
    std::uint32_t device = 0;
    std::uint32_t context = 0;
    std::uint32_t stream = 0;
    std::uint32_t correlation = 0;
    std::uint32_t graph_id = 0;
    std::uint32_t value = 0;
    std::uint8_t flags = 0;
    [[nodiscard]] bool timed() const noexcept { return !(flags & flag_no_timestamp); }
    [[nodiscard]] std::uint64_t duration_ns() const noexcept {
        return timed() && end_ns > start_ns ? end_ns - start_ns : 0;
    }
    bool operator==(const memset_record&) const = default;
};

/// One host wait on the GPU (CUPTI SYNCHRONIZATION). type is CUpti_ActivitySynchronizationType
/// (1 event sync, 2 stream wait event, 3 stream sync, 4 context sync).
struct sync_record {
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    std::uint32_t context = 0;
    std::uint32_t stream = 0;
    std::uint32_t correlation = 0;
    std::uint8_t type = 0;
    std::uint8_t flags = 0;
    [[nodiscard]] bool timed() const noexcept { return !(flags & flag_no_timestamp); }
    [[nodiscard]] std::uint64_t duration_ns() const noexcept {
        return timed() && end_ns > start_ns ? end_ns - start_ns : 0;
    }
    bool operator==(const sync_record&) const = default;
};

/// One NVTX range (start/end or push/pop) on the host; an instantaneous mark has end == start.
struct nvtx_record {
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    std::uint32_t name_id = 0;   ///< string table index of the range's message
    std::uint32_t domain_id = 0; ///< string table index of the domain ("" = default domain)
    std::uint32_t id = 0;        ///< CUPTI's marker id
    std::uint8_t flags = 0;
    [[nodiscard]] bool timed() const noexcept { return !(flags & flag_no_timestamp); }
    [[nodiscard]] std::uint64_t duration_ns() const noexcept {
        return timed() && end_ns > start_ns ? end_ns - start_ns : 0;
    }
    bool operator==(const nvtx_record&) const = default;
};

/// Totals a trace carries in its footer: what was recorded and what was lost (never silent).
struct trace_counters {
    // Records received from CUPTI; `dropped_by_ktune` of them (all kinds) were not written.
    std::uint64_t kernels = 0;
    std::uint64_t memcpys = 0;
    std::uint64_t memsets = 0;
    std::uint64_t syncs = 0;
    std::uint64_t nvtx_ranges = 0;
    std::uint64_t dropped_by_cupti = 0; ///< cuptiActivityGetNumDroppedRecords
    std::uint64_t dropped_by_ktune = 0; ///< writer queue full: the app was never blocked
    std::uint64_t zero_timestamps = 0;  ///< records with flag_no_timestamp
    std::uint64_t unknown_records = 0;  ///< CUPTI kinds this build does not decode
    std::uint64_t unmatched_nvtx = 0;   ///< NVTX ends without a start, or starts never ended
    [[nodiscard]] std::uint64_t dropped() const noexcept {
        return dropped_by_cupti + dropped_by_ktune;
    }
    bool operator==(const trace_counters&) const = default;
};

} // namespace ktune::trace
