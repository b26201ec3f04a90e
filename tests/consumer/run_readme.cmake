# The README's Embedding section, as written: its ```cmake block becomes a project's
# CMakeLists.txt and its ```cpp block that project's app.cpp (saxpy.cu is
# examples/cache_saxpy.cu, as the README says). Configured against the install that
# consumer_find_package made, built, and run with a cache file that has no saxpy entry: it must
# answer the default (tier "op_default", block 256, items 1) with or without a GPU.
file(READ ${README} text)
# The first fenced block of a language, without its fences.
function(readme_block lang out)
  string(FIND "${text}" "\n```${lang}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "README.md has no ```${lang} block")
  endif()
  string(LENGTH "\n```${lang}\n" fence)
  math(EXPR at "${at} + ${fence}")
  string(SUBSTRING "${text}" ${at} -1 rest)
  string(FIND "${rest}" "\n```" end)
  if(end EQUAL -1)
    message(FATAL_ERROR "README.md: the ```${lang} block is not closed")
  endif()
  math(EXPR end "${end} + 1")
  string(SUBSTRING "${rest}" 0 ${end} block)
  set(${out} "${block}" PARENT_SCOPE)
endfunction()
readme_block(cmake cmake_block)
readme_block(cpp cpp_block)

file(REMOVE_RECURSE ${WORK})
file(WRITE ${WORK}/src/CMakeLists.txt "${cmake_block}")
file(WRITE ${WORK}/src/app.cpp "${cpp_block}")
configure_file(${EXAMPLES}/cache_saxpy.cu ${WORK}/src/saxpy.cu COPYONLY)

execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/src -B ${WORK}/build -G ${GENERATOR}
                        -DCMAKE_PREFIX_PATH=${PREFIX} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the README's project failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the README's project failed: ${rc}")
endif()
set(ENV{KTUNE_CACHE} ${CACHE_FILE})
# Twice: as the machine is (a GPU machine also launches the kernel), then with every GPU hidden,
# which must still start and answer the default for arch "unknown".
foreach(visible IN ITEMS "as-is" "")
  # set(ENV{X} "") would unset X (every GPU visible again); cmake -E env sets it empty.
  set(run ${WORK}/build/app)
  if(visible STREQUAL "")
    set(run ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES= ${WORK}/build/app)
    set(expect "unknown: tier op_default, block 256, items 1")
  else()
    set(expect ": tier op_default, block 256, items 1")
  endif()
  execute_process(COMMAND ${run} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "app (GPUs ${visible}): ${out}${err}")
  if(rc)
    message(FATAL_ERROR "the README's app failed: exit ${rc}")
  endif()
  if(NOT out MATCHES "${expect}")
    message(FATAL_ERROR "the README's app did not print '${expect}'")
  endif()
endforeach()
