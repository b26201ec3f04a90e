# 16 `ktune cache merge shardNN.json fleet.json -o fleet.json` at once: every shard's entry and
# the fleet's own entry must survive, and the file must stay valid.
#   cmake -DKTUNE=ktune -DWORK=dir -P cache_parallel_merge.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(head "{\n\"schema\": \"ktune.cache\",\n\"version\": \"1.0.0\",\n\"entries\": [\n")
set(tail "\n]\n}\n")
function(entry out n)
  set(${out} "{\"op\":\"gemm\",\"op_version\":\"v3\",\"dtype\":\"fp16\",\"bucket\":[${n}],\
\"arch\":\"sm_90\",\"toolkit\":13000,\"driver_major\":580,\"protocol\":1,\"config\":{\"b\":${n}},\
\"median_us\":10.0,\"ci_us\":[9.5,10.5],\"samples\":20,\"provenance\":{\"gpu\":\"H200\",\"uuid\":\"\",\
\"sm_mhz\":1980,\"memory_mhz\":3201,\"date\":\"2026-11-25T00:00:00Z\",\"ktune\":\"0.1.0\",\
\"host\":\"h\"}}" PARENT_SCOPE)
endfunction()
entry(e 1000)
file(WRITE ${WORK}/fleet.json "${head}${e}${tail}")
set(script "")
foreach(i RANGE 1 16)
  entry(e ${i})
  file(WRITE ${WORK}/shard${i}.json "${head}${e}${tail}")
  string(APPEND script "\"$0\" cache merge ${WORK}/shard${i}.json ${WORK}/fleet.json -o ${WORK}/fleet.json >/dev/null || echo FAILED & ")
endforeach()
execute_process(COMMAND sh -c "${script} wait" ${KTUNE} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR out MATCHES "FAILED")
  message(FATAL_ERROR "a merge failed:\n${out}${err}")
endif()
execute_process(COMMAND ${KTUNE} cache verify ${WORK}/fleet.json RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "valid \\(17 entries\\)")
  message(FATAL_ERROR "after 16 parallel merges: ${out}${err}")
endif()
file(GLOB left ${WORK}/*.lock ${WORK}/.*tmp*)
if(left)
  message(FATAL_ERROR "files left behind: ${left}")
endif()
