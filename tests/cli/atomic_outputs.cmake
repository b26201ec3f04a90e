# Outputs never overwrite an input and a failing command leaves an existing output as it was.
#   cmake -DKTUNE=ktune -DTRACE=x.ktrace -DCACHE=small.json -DWORK=dir -P atomic_outputs.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(COPY_FILE ${TRACE} ${WORK}/r.ktrace)
file(SHA256 ${WORK}/r.ktrace before)

function(run_expect_rc want)
  execute_process(COMMAND ${KTUNE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc STREQUAL want)
    message(FATAL_ERROR "ktune ${ARGN}: exit ${rc}, expected ${want}\n${out}${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

# The trace as its own output, directly and through a symlink: refused, trace intact.
run_expect_rc(2 export ${WORK}/r.ktrace -o ${WORK}/r.ktrace)
if(NOT last_output MATCHES "refusing to write")
  message(FATAL_ERROR "no clear refusal:\n${last_output}")
endif()
file(CREATE_LINK ${WORK}/r.ktrace ${WORK}/link.json SYMBOLIC)
run_expect_rc(2 export ${WORK}/r.ktrace -o ${WORK}/link.json)
file(SHA256 ${WORK}/r.ktrace after)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "export over its own input changed the trace")
endif()

# A failing export leaves the existing output byte-identical: first an input that is not a
# trace, then an export that fails half-way through writing (a 1 KiB file-size limit makes a
# write fail with EFBIG; SIGXFSZ ignored so the command sees the error and cleans up).
file(WRITE ${WORK}/good.json "{\"good\": true}\n")
file(SHA256 ${WORK}/good.json good_before)
run_expect_rc(2 export ${CACHE} -o ${WORK}/good.json)
execute_process(COMMAND sh -c "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\"" ${KTUNE} export
                        ${WORK}/r.ktrace -o ${WORK}/good.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "export past the file-size limit exited 0:\n${out}${err}")
endif()
file(SHA256 ${WORK}/good.json good_after)
if(NOT good_before STREQUAL good_after)
  message(FATAL_ERROR "a failed export changed the existing output")
endif()
file(GLOB left ${WORK}/.*tmp*)
if(left)
  message(FATAL_ERROR "a failed export left temporary files: ${left}")
endif()

# A successful export leaves exactly its output: no temporary beside it.
run_expect_rc(0 export ${WORK}/r.ktrace -o ${WORK}/out.json)
file(GLOB left ${WORK}/.*tmp* ${WORK}/*.tmp)
if(left)
  message(FATAL_ERROR "temporary files left: ${left}")
endif()
