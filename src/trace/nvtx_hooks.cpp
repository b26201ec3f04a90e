// See nvtx_hooks.hpp. The handlers run on the program's threads: they take the collector's
// staging lock only to intern a name or append a finished range, and never allocate for a
// thread whose stack is already deep enough.
#include "nvtx_hooks.hpp"

#include "collector.hpp"
#include "launch_links.hpp"

#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ktune::trace::detail {
namespace {

std::atomic<collector*> g_target{nullptr};
std::atomic<std::uint32_t> g_next_id{1};

struct frame {
    std::uint64_t start = 0;
    std::uint32_t name = 0; ///< 1 + string id; 0: pushed while nothing was recording
    std::uint32_t path = 0; ///< 1 + string id of "outer/…/inner"
    std::uint32_t domain = 0;
    std::uint32_t id = 0;
    bool external = false; ///< pushed to CUPTI as an external correlation id
};
thread_local std::vector<frame> t_stack;

// link_mode::callback: this thread's ring, and whether it is inside a runtime launch (whose
// nested driver call is then skipped: the kernel carries the runtime call's correlation id).
link_rings g_rings;
thread_local std::shared_ptr<link_ring> t_ring;
thread_local bool t_in_runtime = false;
// link_mode::window: the correlation id CUPTI gave this thread's last marker call.
thread_local std::uint32_t t_marker = 0;
std::atomic<std::uint32_t> g_next_thread{1};
thread_local std::uint32_t t_thread = 0;

void append(collector& c, launch_link l) {
    if (!t_ring) {
        t_ring = g_rings.add();
        t_thread = g_next_thread.fetch_add(1, std::memory_order_relaxed);
    }
    l.thread = t_thread;
    while (!t_ring->push(l)) { // full: this thread hands its links over itself, once per 8 Ki
        if (c.mode() == link_mode::window)
            c.spill_boundaries(*t_ring);
        else
            t_ring->drain([&c](const launch_link& x) { c.take_link(x); });
    }
}

// link_mode::window: from here on, this thread's launches run in (range, path) (0: none).
void mark_boundary(collector& c, std::uint32_t range, std::uint32_t path) {
    // After the fall-back, launches carry their own links: boundaries would only cost.
    if (c.mode() != link_mode::window || c.fell_back()) return;
    t_marker = 0;
    c.call_marker();
    if (t_marker) append(c, {t_marker, range, path, 0, true});
}

// link_mode::window is exact while one thread at a time has ranges open. Threads with a
// recorded range open: when a second one opens a range, the session falls back to launch
// callbacks (each launch then carries its own thread's range) for the rest of its life.
std::atomic<int> g_ranged_threads{0};
struct named_frames { ///< recorded frames open on this thread
    int n = 0;
    // A thread that exits inside a range no longer has it open.
    ~named_frames() {
        if (n > 0) g_ranged_threads.fetch_sub(1, std::memory_order_relaxed);
    }
};
thread_local named_frames t_named;

void fall_back_if_shared(collector& c) {
    if (c.mode() != link_mode::window || c.fell_back()) return;
    if (g_ranged_threads.load(std::memory_order_relaxed) < 2) return;
    if (!c.fall_back_to_callbacks()) return;
    // Every launch after this marker has its callback: window boundaries end here.
    t_marker = 0;
    c.call_marker();
    c.set_fallback_from(t_marker ? t_marker : 1);
}

// Start/end ranges are not scoped to a thread: they are kept by id.
std::mutex g_started_mutex;
std::unordered_map<std::uint64_t, frame> g_started;

// Domain and registered-string handles point at strings kept until the process exits (NVTX
// treats them as opaque, and a program may use them until then); a deque never moves them.
const std::string* keep(const char* s) {
    static std::mutex m;
    static auto* kept = new std::deque<std::string>; // reachable, never destroyed
    std::lock_guard lock(m);
    return &kept->emplace_back(s ? s : "");
}

const char* handle_text(const void* h) {
    return h ? static_cast<const std::string*>(h)->c_str() : "";
}

const char* message_of(const nvtxEventAttributes_t* a) {
    if (!a) return "";
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return handle_text(a->message.registered);
    case NVTX_MESSAGE_TYPE_UNICODE:
        return "<unicode NVTX message>";
    default:
        return "";
    }
}

// Names already interned by this thread: a push then takes no lock (the collector's staging
// lock can be held for a whole CUPTI buffer by the completion thread).
// A push of a message seen before at the same pointer (a literal, a registered string) costs
// one hash lookup and a strcmp, no allocation; the pointer's text is checked because a caller
// may reuse a buffer for another message (Python's range_push does).
struct fast_key {
    const char* message;
    const char* domain; ///< "" or a kept domain string: stable pointers
    std::uint32_t parent;
    bool operator==(const fast_key&) const = default;
};
struct fast_hash {
    std::size_t operator()(const fast_key& k) const noexcept {
        const auto h = std::hash<const void*>{};
        return h(k.message) ^ (h(k.domain) * 31) ^ (std::size_t{k.parent} * 0x9e3779b97f4a7c15u);
    }
};
struct fast_entry {
    std::string text;
    collector::nvtx_ids ids;
};
struct name_cache {
    std::uint64_t owner = 0; ///< collector serial
    std::unordered_map<std::string, collector::nvtx_ids> ids;
    std::unordered_map<fast_key, fast_entry, fast_hash> by_pointer;
};
thread_local name_cache t_names;

collector::nvtx_ids names_by_text(collector& c, const char* message, const char* domain,
                                  std::uint32_t parent) {
    std::string key = std::to_string(parent);
    key += '\x1f';
    key += domain;
    key += '\x1f';
    key += message;
    if (const auto it = t_names.ids.find(key); it != t_names.ids.end()) return it->second;
    const auto ids = c.nvtx_intern(message, parent, domain);
    t_names.ids.emplace(std::move(key), ids);
    return ids;
}

collector::nvtx_ids names_of(collector& c, const char* message, const char* domain,
                             std::uint32_t parent) {
    if (t_names.owner != c.serial()) { // a new session: ids of the old one mean nothing
        t_names.ids.clear();
        t_names.by_pointer.clear();
        t_names.owner = c.serial();
    }
    const fast_key fk{message, domain, parent};
    if (const auto it = t_names.by_pointer.find(fk);
        it != t_names.by_pointer.end() && it->second.text == message)
        return it->second.ids;
    const auto ids = names_by_text(c, message, domain, parent);
    if (t_names.by_pointer.size() < 4096) t_names.by_pointer[fk] = {message, ids};
    return ids;
}

frame open_frame(collector& c, const char* message, const char* domain, std::uint32_t parent) {
    frame f;
    const auto names = names_of(c, message ? message : "", domain ? domain : "", parent);
    f.name = names.name + 1;
    f.path = names.path + 1;
    f.domain = names.domain;
    f.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
    f.start = c.now();
    return f;
}

void close_frame(collector& c, const frame& f) {
    if (!f.name) return;
    nvtx_record r;
    r.start_ns = f.start;
    r.end_ns = c.now();
    r.name_id = f.name - 1;
    r.domain_id = f.domain;
    r.id = f.id;
    r.flags = time_flags(r.start_ns, r.end_ns);
    c.add_nvtx(r);
}

void push(const char* message, const char* domain) noexcept {
    try {
        collector* c = g_target.load(std::memory_order_acquire);
        if (!c) {
            t_stack.emplace_back(); // keeps pops balanced for ranges opened before recording
            return;
        }
        const std::uint32_t parent = t_stack.empty() ? 0 : t_stack.back().path;
        frame f = open_frame(*c, message, domain, parent);
        f.external = c->open_range(f.name, f.path);
        t_stack.push_back(f);
        if (t_named.n++ == 0) g_ranged_threads.fetch_add(1, std::memory_order_relaxed);
        fall_back_if_shared(*c);
        mark_boundary(*c, f.name, f.path);
    } catch (...) {
    }
}

void pop() noexcept {
    if (t_stack.empty()) return;
    const frame f = t_stack.back();
    t_stack.pop_back();
    if (f.name && --t_named.n == 0) g_ranged_threads.fetch_sub(1, std::memory_order_relaxed);
    if (collector* c = g_target.load(std::memory_order_acquire)) {
        if (f.external) c->close_range();
        try {
            if (f.name)
                mark_boundary(*c, t_stack.empty() ? 0 : t_stack.back().name,
                              t_stack.empty() ? 0 : t_stack.back().path);
        } catch (...) {
        }
        close_frame(*c, f);
    }
}

void mark(const char* message, const char* domain) noexcept {
    try {
        collector* c = g_target.load(std::memory_order_acquire);
        if (!c) return;
        const frame f = open_frame(*c, message, domain, 0);
        nvtx_record r;
        r.start_ns = r.end_ns = f.start;
        r.name_id = f.name - 1;
        r.domain_id = f.domain;
        r.id = f.id;
        r.flags = time_flags(r.start_ns, r.end_ns);
        c->add_nvtx(r);
    } catch (...) {
    }
}

nvtxRangeId_t start(const char* message, const char* domain) noexcept {
    try {
        collector* c = g_target.load(std::memory_order_acquire);
        if (!c) return 0;
        const frame f = open_frame(*c, message, domain, 0);
        std::lock_guard lock(g_started_mutex);
        g_started.emplace(f.id, f);
        return f.id;
    } catch (...) {
        return 0;
    }
}

void end(nvtxRangeId_t id) noexcept {
    frame f;
    {
        std::lock_guard lock(g_started_mutex);
        const auto it = g_started.find(id);
        if (it == g_started.end()) return;
        f = it->second;
        g_started.erase(it);
    }
    if (collector* c = g_target.load(std::memory_order_acquire)) close_frame(*c, f);
}

// The NVTX entry points, with NVTX's signatures.
int NVTX_API push_a(const char* m) {
    push(m, nullptr);
    return static_cast<int>(t_stack.size()) - 1;
}
int NVTX_API push_ex(const nvtxEventAttributes_t* a) {
    push(message_of(a), nullptr);
    return static_cast<int>(t_stack.size()) - 1;
}
int NVTX_API pop_core() {
    const int depth = static_cast<int>(t_stack.size()) - 1;
    pop();
    return depth;
}
void NVTX_API mark_a(const char* m) {
    mark(m, nullptr);
}
void NVTX_API mark_ex(const nvtxEventAttributes_t* a) {
    mark(message_of(a), nullptr);
}
nvtxRangeId_t NVTX_API start_a(const char* m) {
    return start(m, nullptr);
}
nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t* a) {
    return start(message_of(a), nullptr);
}
void NVTX_API end_core(nvtxRangeId_t id) {
    end(id);
}
int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    push(message_of(a), handle_text(d));
    return static_cast<int>(t_stack.size()) - 1;
}
int NVTX_API domain_pop(nvtxDomainHandle_t) {
    return pop_core();
}
void NVTX_API domain_mark(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    mark(message_of(a), handle_text(d));
}
nvtxRangeId_t NVTX_API domain_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    return start(message_of(a), handle_text(d));
}
void NVTX_API domain_end(nvtxDomainHandle_t, nvtxRangeId_t id) {
    end(id);
}
nvtxDomainHandle_t NVTX_API domain_create(const char* name) {
    try {
        return reinterpret_cast<nvtxDomainHandle_t>(const_cast<std::string*>(keep(name)));
    } catch (...) {
        return nullptr;
    }
}
nvtxStringHandle_t NVTX_API register_string(nvtxDomainHandle_t, const char* s) {
    try {
        return reinterpret_cast<nvtxStringHandle_t>(const_cast<std::string*>(keep(s)));
    } catch (...) {
        return nullptr;
    }
}

template <class F>
void set(NvtxFunctionTable table, unsigned count, unsigned id, F fn) {
    if (id < count && table[id]) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

} // namespace

void set_nvtx_target(collector* c) noexcept {
    g_target.store(c, std::memory_order_release);
}

int install_nvtx_hooks(const void* get_export_table) noexcept {
    if (!get_export_table) return 0;
    const auto get = reinterpret_cast<NvtxGetExportTableFunc_t>(get_export_table);
    const auto* etc = static_cast<const NvtxExportTableCallbacks*>(get(NVTX_ETID_CALLBACKS));
    if (!etc || !etc->GetModuleFunctionTable) return 0;
    // out_size is the number of callback ids of the module (its table has one more entry, a
    // null guard), not a byte count.
    NvtxFunctionTable core = nullptr, core2 = nullptr;
    unsigned n = 0, n2 = 0;
    if (!etc->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &n) || !core) return 0;
    set(core, n, NVTX_CBID_CORE_RangePushA, push_a);
    set(core, n, NVTX_CBID_CORE_RangePushEx, push_ex);
    set(core, n, NVTX_CBID_CORE_RangePop, pop_core);
    set(core, n, NVTX_CBID_CORE_MarkA, mark_a);
    set(core, n, NVTX_CBID_CORE_MarkEx, mark_ex);
    set(core, n, NVTX_CBID_CORE_RangeStartA, start_a);
    set(core, n, NVTX_CBID_CORE_RangeStartEx, start_ex);
    set(core, n, NVTX_CBID_CORE_RangeEnd, end_core);
    // Domains (nvtx3::scoped_range and most C++ users) live in the CORE2 module.
    if (etc->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &n2) && core2) {
        set(core2, n2, NVTX_CBID_CORE2_DomainRangePushEx, domain_push);
        set(core2, n2, NVTX_CBID_CORE2_DomainRangePop, domain_pop);
        set(core2, n2, NVTX_CBID_CORE2_DomainMarkEx, domain_mark);
        set(core2, n2, NVTX_CBID_CORE2_DomainRangeStartEx, domain_start);
        set(core2, n2, NVTX_CBID_CORE2_DomainRangeEnd, domain_end);
        set(core2, n2, NVTX_CBID_CORE2_DomainCreateA, domain_create);
        set(core2, n2, NVTX_CBID_CORE2_DomainRegisterStringA, register_string);
    }
    return 1;
}

void nvtx_push(const char* message) noexcept {
    push(message, nullptr);
}
void nvtx_pop() noexcept {
    pop();
}
void nvtx_mark(const char* message) noexcept {
    mark(message, nullptr);
}

void drain_launch_links(const std::function<void(const launch_link&)>& f) {
    g_rings.drain(f);
}

void CUPTIAPI launch_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                              const void* data) {
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && id == CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion) {
        const auto* d = static_cast<const CUpti_CallbackData*>(data);
        if (d->callbackSite == CUPTI_API_ENTER) t_marker = d->correlationId;
        return;
    }
    if (t_stack.empty() || !t_stack.back().name) return;
    collector* c = g_target.load(std::memory_order_acquire);
    if (!c) return;
    const auto* d = static_cast<const CUpti_CallbackData*>(data);
    const launch_link l{d->correlationId, t_stack.back().name, t_stack.back().path, 0};
    if (c->mode() == link_mode::locked_map) {
        if (d->callbackSite == CUPTI_API_ENTER) c->link_launch(l.correlation, l.range, l.path);
        return;
    }
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        t_in_runtime = d->callbackSite == CUPTI_API_ENTER;
        if (!t_in_runtime) return;
    } else if (d->callbackSite != CUPTI_API_ENTER || t_in_runtime) {
        return; // a driver exit, or the driver call inside a runtime launch
    }
    try {
        append(*c, l);
    } catch (...) {
    }
}

} // namespace ktune::trace::detail
