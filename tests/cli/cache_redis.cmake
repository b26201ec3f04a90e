# ktune cache push|pull|get --redis against a real redis-server on a temp unix socket; prints
# SKIPPED (a skip for CTest) where redis-server or the build's Redis support is missing.
#   cmake -DKTUNE=ktune -DCACHE=small.json -DWORK=dir -P cache_redis.cmake
find_program(REDIS_SERVER redis-server)
if(NOT REDIS_SERVER)
  message("SKIPPED: redis-server is not installed (apt-get install redis-server)")
  return()
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(url unix://${WORK}/redis.sock)
execute_process(COMMAND ${REDIS_SERVER} --port 0 --unixsocket ${WORK}/redis.sock --dir ${WORK}
                        --save "" --appendonly no --daemonize yes --pidfile ${WORK}/redis.pid
                        --logfile ${WORK}/redis.log)
foreach(i RANGE 200)
  if(EXISTS ${WORK}/redis.pid AND EXISTS ${WORK}/redis.sock)
    break()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 0.05)
endforeach()

function(stop_redis)
  if(EXISTS ${WORK}/redis.pid)
    file(READ ${WORK}/redis.pid pid)
    string(STRIP "${pid}" pid)
    execute_process(COMMAND kill ${pid})
  endif()
endfunction()

function(run want expect)
  execute_process(COMMAND ${KTUNE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if("${out}${err}" MATCHES "no Redis support")
    stop_redis()
    message("SKIPPED: this ktune was built without hiredis")
    return()
  endif()
  if(NOT rc STREQUAL want OR NOT "${out}${err}" MATCHES "${expect}")
    stop_redis()
    message(FATAL_ERROR "ktune ${ARGN}: exit ${rc} (want ${want}), missing '${expect}':\n"
                        "${out}${err}")
  endif()
endfunction()

run(0 "pushed 4 of 4 entries" cache push ${CACHE} --redis ${url})
run(0 "pushed 0 of 4 entries" cache push ${CACHE} --redis ${url})
run(0 "pulled 4 entries .* 4 added" cache pull ${WORK}/pulled.json --redis ${url})
run(0 "valid \\(4 entries\\)" cache verify ${WORK}/pulled.json)
# A machine with no local cache reads through Redis and keeps the entry.
run(0 "exact \\(from Redis\\)" cache get gemm --shape 4096x4096 --arch sm_90 --toolkit 13.0
    --driver 580 --op-version v3 --dtype fp16 -f ${WORK}/fresh.json --redis ${url})
run(0 "1 of 1 entries" cache ls ${WORK}/fresh.json)
run(0 "\"from_redis\": false" cache get gemm --shape 4096x4096 --arch sm_90 --toolkit 13.0
    --driver 580 --op-version v3 --dtype fp16 -f ${WORK}/fresh.json --redis ${url} --json)
stop_redis()
# Redis gone: get fails open (the local file answers), push says which server it could not reach.
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 0.2)
run(0 "exact:" cache get gemm --shape 4096x4096 --arch sm_90 --toolkit 13.0 --driver 580
    --op-version v3 --dtype fp16 -f ${WORK}/fresh.json --redis ${url})
run(1 "miss" cache get softmax --shape 64 --arch sm_90 --toolkit 13.0 --driver 580
    --op-version v3 --dtype fp16 -f ${WORK}/fresh.json --redis ${url})
run(2 "redis.sock" cache push ${CACHE} --redis ${url})
