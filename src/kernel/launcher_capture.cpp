// The launcher's capture path (docs/formats.md#ktunekernel_capture): slow by design. It
// synchronises the stream, copies every input buffer to the host, launches, synchronises again
// and copies every output buffer, then writes the capture. Each distinct problem is captured
// once per process (and never over an existing capture). A stream being captured into a CUDA
// graph cannot be synchronised: capture is for a plain run of the application.
#include "kernel/launcher_impl.hpp"

#include "ktune/core/error.hpp"
#include "ktune/kernel/capture.hpp"

#include <cstdio>

namespace ktune::kernel::detail {

void launch_with_capture(launcher_state& st, plan_entry& e, std::span<const kernel_arg> args,
                         const kernel_params& params, CUstream_st* stream) {
    const launch_plan& pl = e.plan;
    kernel_capture c;
    c.kernel = st.spec.name;
    c.spec = st.spec.path.string();
    c.spec_hash = st.hash;
    c.arch = st.env.arch;
    c.toolkit = st.env.toolkit;
    c.driver = st.env.driver_major;
    c.prob = pl.prob;
    c.tier = std::string(cache::to_string(pl.tier));
    c.cfg = pl.cfg;
    c.geo = pl.geo;
    st.driver->synchronize(stream);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const argument_spec& a = st.spec.arguments[i];
        captured_argument x;
        x.name = a.name;
        x.kind = a.kind;
        x.type = a.type;
        if (a.kind == argument_kind::scalar) {
            x.value = args[i].as_int();
        } else {
            x.bytes = pl.buffer_bytes[i];
            // An input buffer: one with a generator, or one the kernel only reads.
            if (a.input != input_generator::none || !a.output) {
                x.before.emplace(static_cast<std::size_t>(x.bytes), '\0');
                st.driver->copy_to_host(x.before->data(), args[i].pointer(), x.before->size(),
                                        stream);
            }
        }
        c.arguments.push_back(std::move(x));
    }
    st.driver->launch(e.kernel.load(std::memory_order_acquire)->function, pl.geo, params, stream);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const argument_spec& a = st.spec.arguments[i];
        if (a.kind != argument_kind::buffer || !a.output) continue;
        auto& x = c.arguments[i];
        x.after.emplace(static_cast<std::size_t>(x.bytes), '\0');
        st.driver->copy_to_host(x.after->data(), args[i].pointer(), x.after->size(), stream);
    }
    try {
        if (!write_capture(st.capture_dir, c).empty()) ++st.n_captures;
    } catch (const error& err) {
        // The launch happened; a capture that cannot be written must not stop the application.
        std::fprintf(stderr, "ktune launcher: capture of %s at %s not written: %s\n",
                     c.kernel.c_str(), c.prob.to_string().c_str(), err.what());
    }
}

} // namespace ktune::kernel::detail
