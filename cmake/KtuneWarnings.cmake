# Warnings and sanitizers as one interface target, so every ktune target gets the same flags
# and consumers of the installed library get none of them.
add_library(ktune_build_flags INTERFACE)
target_compile_options(ktune_build_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
  $<$<AND:$<BOOL:${KTUNE_WERROR}>,$<COMPILE_LANGUAGE:CXX>>:-Werror>)
if(KTUNE_SANITIZE)
  target_compile_options(ktune_build_flags INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(ktune_build_flags INTERFACE -fsanitize=address,undefined)
endif()
# A shared library on a link line that the binary never calls (nvperf_host, reached through
# libktune.a's objects the CLI does not pull) must not become DT_NEEDED, or every process maps it
# at start-up (docs/perf/startup.md). Debian's GCC passes --as-needed by default, but not under
# sanitizers (and other toolchains not at all): say it for every build.
target_link_options(ktune_build_flags INTERFACE LINKER:--as-needed)

# For targets that are installed/exported: the same flags without a link to an unexported target.
function(ktune_apply_build_flags target)
  target_compile_options(${target} PRIVATE
    $<TARGET_PROPERTY:ktune_build_flags,INTERFACE_COMPILE_OPTIONS>)
  target_link_options(${target} PRIVATE $<TARGET_PROPERTY:ktune_build_flags,INTERFACE_LINK_OPTIONS>)
endfunction()
