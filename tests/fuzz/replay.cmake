# Every fuzz target's committed corpus (tests/fuzz/corpus/<target>) run once as an ordinary test,
# with the project's compiler and no libFuzzer: CI exercises each reader on its seeds and past
# findings without clang. The fuzzing itself is tests/fuzz/run.sh (clang).
foreach(t cache_reader trace_reader metrics_chunk results suite tune_plan replay_read kernel_spec)
  set(_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/${t})
  if(t STREQUAL "cache_reader")
    set(_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/cache)
  endif()
  add_executable(fuzz_replay_${t} ${CMAKE_CURRENT_LIST_DIR}/${t}_fuzz.cpp
                                  ${CMAKE_CURRENT_LIST_DIR}/replay_main.cpp)
  target_link_libraries(fuzz_replay_${t} PRIVATE ktune_test_support)
  add_test(NAME fuzz_replay_${t} COMMAND fuzz_replay_${t} ${_corpus})
  set_tests_properties(fuzz_replay_${t} PROPERTIES LABELS "unit;fuzz" TIMEOUT 120)
endforeach()
# the launcher's files (misses line, capture.json), replayed the same way
add_executable(fuzz_replay_launch_files ${CMAKE_CURRENT_LIST_DIR}/launch_files_fuzz.cpp
                                        ${CMAKE_CURRENT_LIST_DIR}/replay_main.cpp)
target_link_libraries(fuzz_replay_launch_files PRIVATE ktune_test_support)
add_test(NAME fuzz_replay_launch_files COMMAND fuzz_replay_launch_files
                                               ${CMAKE_CURRENT_LIST_DIR}/corpus/launch_files)
set_tests_properties(fuzz_replay_launch_files PROPERTIES LABELS "unit;fuzz" TIMEOUT 120)
