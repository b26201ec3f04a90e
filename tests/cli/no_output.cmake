# Run CMD with OUT appended and check the exit code RC and that OUT was not created.
#   cmake -DCMD="a;b;-o" -DOUT=file -DRC=2 -P no_output.cmake
file(REMOVE ${OUT})
execute_process(COMMAND ${CMD} ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${RC}\n${out}${err}")
endif()
if(EXISTS ${OUT})
  message(FATAL_ERROR "${OUT} was written although the command failed\n${out}${err}")
endif()
