// Decoders for the record structs of the CUPTI this ktune is compiled with (CUDA 13.0: API
// 130001). Field names are assigned one by one, never positionally.
#include "decoder.hpp"

namespace ktune::trace::detail {
namespace {

#if CUPTI_API_VERSION >= 130000 && CUPTI_API_VERSION < 130200
void kernel10(const CUpti_Activity* a, kernel_record& r, const char*& name) {
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
    r.start_ns = k->start;
    r.end_ns = k->end;
    r.device = k->deviceId;
    r.context = k->contextId;
    r.stream = k->streamId;
    r.correlation = k->correlationId;
    r.graph_id = k->graphId;
    r.graph_node_id = k->graphNodeId;
    r.grid = {static_cast<std::uint32_t>(k->gridX), static_cast<std::uint32_t>(k->gridY),
              static_cast<std::uint32_t>(k->gridZ)};
    r.block = {static_cast<std::uint32_t>(k->blockX), static_cast<std::uint32_t>(k->blockY),
               static_cast<std::uint32_t>(k->blockZ)};
    r.cluster = {k->clusterX, k->clusterY, k->clusterZ};
    r.registers = k->registersPerThread;
    r.static_smem = static_cast<std::uint32_t>(k->staticSharedMemory);
    r.dynamic_smem = static_cast<std::uint32_t>(k->dynamicSharedMemory);
    r.local_mem = k->localMemoryPerThread;
    r.flags = static_cast<std::uint8_t>(time_flags(k->start, k->end) |
                                        (k->isDeviceLaunched ? flag_device_launched : 0));
    name = k->name;
}

void memcpy6(const CUpti_Activity* a, memcpy_record& r) {
    const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
    r.start_ns = m->start;
    r.end_ns = m->end;
    r.bytes = m->bytes;
    r.device = m->deviceId;
    r.context = m->contextId;
    r.stream = m->streamId;
    r.correlation = m->correlationId;
    r.graph_id = m->graphId;
    r.copy_kind = m->copyKind;
    r.src_kind = m->srcKind;
    r.dst_kind = m->dstKind;
    r.flags = time_flags(m->start, m->end);
}

void memset4(const CUpti_Activity* a, memset_record& r) {
    const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
    r.start_ns = m->start;
    r.end_ns = m->end;
    r.bytes = m->bytes;
    r.device = m->deviceId;
    r.context = m->contextId;
    r.stream = m->streamId;
    r.correlation = m->correlationId;
    r.graph_id = m->graphId;
    r.value = m->value;
    r.flags = time_flags(m->start, m->end);
}

void sync2(const CUpti_Activity* a, sync_record& r) {
    const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(a);
    r.start_ns = s->start;
    r.end_ns = s->end;
    r.context = s->contextId;
    r.stream = s->streamId;
    r.correlation = s->correlationId;
    r.type = static_cast<std::uint8_t>(s->type);
    r.flags = time_flags(s->start, s->end);
}

void marker2(const CUpti_Activity* a, marker_event& e) {
    const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(a);
    e.timestamp = m->timestamp;
    e.id = m->id;
    e.flags = static_cast<std::uint32_t>(m->flags);
    e.name = m->name;
    e.domain = m->domain;
}

void graph_trace2(const CUpti_Activity* a, kernel_record& r) {
    const auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(a);
    r.start_ns = g->start;
    r.end_ns = g->end;
    r.device = g->deviceId;
    r.context = g->contextId;
    r.stream = g->streamId;
    r.correlation = g->correlationId;
    r.graph_id = g->graphId;
    r.grid = r.block = {0, 0, 0};
    r.flags = static_cast<std::uint8_t>(time_flags(g->start, g->end) | flag_graph_launch);
}

constexpr record_decoder cuda_13_0{"CUDA 13.0/13.1 records (Kernel10, Memcpy6, Memset4, "
                                   "Synchronization2, Marker2, GraphTrace2)",
                                   kernel10,
                                   memcpy6,
                                   memset4,
                                   sync2,
                                   marker2,
                                   graph_trace2};
#endif

} // namespace

const record_decoder* find_decoder(std::uint32_t version) noexcept {
#if CUPTI_API_VERSION >= 130000 && CUPTI_API_VERSION < 130200
    // 13.2 replaced Kernel10 by Kernel11: reading its records with Kernel10 would be wrong.
    if (version >= 130000 && version < 130200) return &cuda_13_0;
#else
#error "ktune: no CUPTI record decoder for this toolkit's CUPTI_API_VERSION; add one in decoder.cpp"
#endif
    return nullptr;
}

std::uint32_t compiled_cupti_version() noexcept {
    return CUPTI_API_VERSION;
}

} // namespace ktune::trace::detail
