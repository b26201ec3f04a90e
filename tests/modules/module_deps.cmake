# Which module of src/ may use which: the layers of docs/architecture.md, lowest first. A module
# may include its own headers (public and private), the public headers (ktune/<m>/…) of the
# modules listed for it, and core's private seams (core/*.hpp: the C-API loaders and small
# shared helpers every module builds on). Nothing else: no other module's src-private header,
# and no dependency that would close a cycle (check_modules.cmake rejects a cyclic table).
set(ktune_modules core trace compile kernel ops measure worker metrics analysis cache tune gemm guard
                  store inject)
set(ktune_deps_core)
set(ktune_deps_trace core)
set(ktune_deps_compile core)
set(ktune_deps_ops core kernel) # ktune ops lists users' kernel specs beside the built-in ops
set(ktune_deps_measure core compile ops kernel) # a user kernel's element types (measure/element_codec)
set(ktune_deps_worker core compile measure ops)
set(ktune_deps_metrics core compile measure)
set(ktune_deps_analysis core trace metrics)
set(ktune_deps_cache core)
set(ktune_deps_tune core compile measure worker ops cache kernel) # users' kernel specs as tune targets
set(ktune_deps_gemm core compile measure cache tune) # the padded-K copy kernel (gemm/pad.cpp)
set(ktune_deps_guard core measure worker compile ops trace cache tune)
set(ktune_deps_store core trace analysis guard)
set(ktune_deps_inject core trace metrics measure)
set(ktune_deps_kernel core compile)
# the kernel launcher looks configs up in the config cache (kernel/launcher.cpp)
list(APPEND ktune_deps_kernel cache)
