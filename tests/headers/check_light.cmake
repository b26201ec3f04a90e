# Fails when the umbrella ktune/ktune.hpp misses a public header, or when a public header includes CUPTI, NVRTC, cuBLASLt, fmt, nlohmann/json, simdjson,
# XGBoost, SQLite, libpq or hiredis (cmake -DINCLUDE_DIR=... -P check_light.cmake).
file(GLOB_RECURSE headers ${INCLUDE_DIR}/*.hpp)
set(bad "")
foreach(h IN LISTS headers)
  file(STRINGS ${h} lines REGEX "^[ \t]*#[ \t]*include")
  foreach(l IN LISTS lines)
    if(l MATCHES "[<\"](cupti|nvrtc|cublasLt|cublas_v2|fmt/|nlohmann/|simdjson|xgboost/|sqlite3|libpq-fe|postgresql/|hiredis/)")
      string(APPEND bad "\n  ${h}: ${l}")
    endif()
  endforeach()
endforeach()
# The umbrella names every other public header.
file(READ ${INCLUDE_DIR}/ktune.hpp umbrella)
foreach(h IN LISTS headers)
  file(RELATIVE_PATH rel ${INCLUDE_DIR}/.. ${h})
  if(NOT rel STREQUAL "ktune/ktune.hpp" AND NOT umbrella MATCHES "#include \"${rel}\"")
    string(APPEND bad "\n  ktune/ktune.hpp does not include ${rel}")
  endif()
endforeach()
list(LENGTH headers n)
if(bad)
  message(FATAL_ERROR "public headers: keep CUPTI, NVRTC, cuBLASLt, fmt, json and database clients "
                      "out (use a pimpl or a forward declaration), and list every header in "
                      "ktune/ktune.hpp:${bad}")
endif()
message(STATUS "${n} public headers checked: none includes a heavy or third-party library")
