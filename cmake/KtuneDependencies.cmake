# Dependency discovery. Each failure says what to install, because a new user's first build
# is where a vague "package not found" costs the most.
set(_ktune_apt "libfmt-dev nlohmann-json3-dev libcli11-dev catch2 libzstd-dev libxgboost-dev zlib1g-dev libsimdjson-dev")

macro(ktune_require pkg hint)
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR
      "ktune: ${pkg} not found. ${hint}\n"
      "  On Debian/Ubuntu: apt-get install ${_ktune_apt}  (or run scripts/setup.sh)\n"
      "  Elsewhere: set CMAKE_PREFIX_PATH to its install prefix.")
  endif()
endmacro()

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND)
  message(FATAL_ERROR
    "ktune: the CUDA Toolkit (>= 12.6) was not found. Install it (nvcc, CUPTI, NVRTC) and pass "
    "-DCUDAToolkit_ROOT=/usr/local/cuda, or put nvcc on PATH.")
endif()
foreach(_t cudart cupti nvrtc)
  if(NOT TARGET CUDA::${_t})
    message(FATAL_ERROR "ktune: CUDA::${_t} is missing from the CUDA Toolkit at "
                        "${CUDAToolkit_LIBRARY_DIR}; install the toolkit's ${_t} component.")
  endif()
endforeach()
# libcuda.so.1 exists only where a driver is installed. ktune resolves driver entry points at
# run time through cudart (cudaGetDriverEntryPointByVersion), so a machine without a GPU can
# still load every ktune binary; CUDA::cuda_driver is used for its headers only.
find_library(KTUNE_NVPERF_HOST nvperf_host HINTS ${CUDAToolkit_LIBRARY_DIR}
             ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/lib64)

find_package(fmt QUIET)
ktune_require(fmt "fmt >= 9 is needed for formatting.")
find_package(nlohmann_json 3.10 QUIET)
ktune_require(nlohmann_json "nlohmann/json >= 3.10 is needed for every ktune file format.")

find_package(PkgConfig QUIET)
find_package(zstd CONFIG QUIET)
if(TARGET zstd::libzstd_shared)
  set(KTUNE_ZSTD_TARGET zstd::libzstd_shared)
elseif(TARGET zstd::libzstd_static)
  set(KTUNE_ZSTD_TARGET zstd::libzstd_static)
else()
  find_path(KTUNE_ZSTD_INCLUDE zstd.h)
  find_library(KTUNE_ZSTD_LIB zstd)
  if(NOT KTUNE_ZSTD_INCLUDE OR NOT KTUNE_ZSTD_LIB)
    set(zstd_FOUND FALSE)
    ktune_require(zstd "libzstd compresses trace blocks.")
  endif()
  add_library(ktune_zstd INTERFACE IMPORTED)
  set_target_properties(ktune_zstd PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${KTUNE_ZSTD_INCLUDE}"
                                              INTERFACE_LINK_LIBRARIES "${KTUNE_ZSTD_LIB}")
  set(KTUNE_ZSTD_TARGET ktune_zstd)
endif()

find_package(ZLIB QUIET)
ktune_require(ZLIB "zlib reads gzip-compressed recorded tuning spaces.")

if(KTUNE_WITH_XGBOOST)
  find_path(KTUNE_XGBOOST_INCLUDE xgboost/c_api.h)
  find_library(KTUNE_XGBOOST_LIB xgboost)
  if(NOT KTUNE_XGBOOST_INCLUDE OR NOT KTUNE_XGBOOST_LIB)
    message(WARNING "ktune: XGBoost (libxgboost-dev) not found: the model-guided search "
                    "strategy 'model' is disabled. Install it or pass -DKTUNE_WITH_XGBOOST=OFF.")
    set(KTUNE_WITH_XGBOOST OFF)
  endif()
endif()

if(KTUNE_BUILD_CLI OR KTUNE_BUILD_TESTS OR KTUNE_BUILD_BENCH)
  find_package(CLI11 QUIET)
  ktune_require(CLI11 "CLI11 >= 2.1 parses the ktune command line.")
endif()

if(KTUNE_BUILD_TESTS)
  # Catch2 v3 where installed (the GPU machines), v2 as Debian 12 ships it; tests/support/
  # catch.hpp hides the difference.
  find_package(Catch2 3 QUIET)
  if(Catch2_FOUND)
    set(KTUNE_CATCH_MAJOR 3)
  else()
    find_package(Catch2 2 QUIET)
    ktune_require(Catch2 "Catch2 (v2 or v3) runs the tests.")
    set(KTUNE_CATCH_MAJOR 2)
  endif()
endif()
