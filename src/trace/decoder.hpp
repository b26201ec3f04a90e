#pragma once
// CUPTI record decoders. Record structs change almost every CUDA minor release (Kernel9 in 12.x,
// Kernel10 in 13.0/13.1, Kernel11 in 13.2, Kernel12 in 13.3), so a record is only read with the
// struct of the CUPTI version that wrote it: the decoder is picked at run time from
// cuptiGetVersion(), and an unknown version disables profiling with a message instead of
// misreading memory.
#include "ktune/trace/records.hpp"

#include <cupti.h>

#include <cstdint>

namespace ktune::trace::detail {

struct marker_event {
    std::uint64_t timestamp = 0;
    std::uint32_t id = 0;
    std::uint32_t flags = 0; ///< CUpti_ActivityFlag MARKER_* bits
    const char* name = nullptr;
    const char* domain = nullptr;
};

struct record_decoder {
    const char* label; ///< e.g. "CUDA 13.0/13.1 records (Kernel10, Memcpy6, Memset4, ...)"
    void (*kernel)(const CUpti_Activity*, kernel_record&, const char*& name);
    void (*memcpy)(const CUpti_Activity*, memcpy_record&);
    void (*memset)(const CUpti_Activity*, memset_record&);
    void (*sync)(const CUpti_Activity*, sync_record&);
    void (*marker)(const CUpti_Activity*, marker_event&);
    /// A whole graph launch (GRAPH_TRACE) as a kernel record flagged flag_graph_launch; its
    /// name is the collector's to give.
    void (*graph)(const CUpti_Activity*, kernel_record&);
};

/// The decoder for records written by CUPTI API `version`, or nullptr when this build has none.
const record_decoder* find_decoder(std::uint32_t version) noexcept;

/// The CUPTI API version this build's decoders were compiled against.
std::uint32_t compiled_cupti_version() noexcept;

/// Flags a record whose timestamps were not collected (0) or run backwards.
inline std::uint8_t time_flags(std::uint64_t start, std::uint64_t end) noexcept {
    return start == 0 || end == 0 || end < start ? flag_no_timestamp : 0;
}

} // namespace ktune::trace::detail
