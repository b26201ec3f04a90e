# Run paths: every binary ktune builds or installs carries only the absolute directories of the
# shared libraries it links from outside the system's and the project's (the CUDA Toolkit's lib),
# the same in the build tree and installed. CMake's default build run path ends in an empty
# entry (room to edit it in place at install), which the dynamic linker reads as the current
# directory: a folder's own libxgboost.so.0 would then load into ktune run there.
# tests/startup/check_runpaths.sh reads every built and installed ELF file.
#
# No run path into the build tree is needed: libktune is static and libktune_inject.so is
# loaded by absolute path.
set(CMAKE_BUILD_WITH_INSTALL_RPATH ON)
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)
