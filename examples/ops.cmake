# Launching an op with the config `ktune tune` cached (docs/perf/tune.md#tuning-loop).
add_executable(example_tuned_launch ${CMAKE_CURRENT_LIST_DIR}/tuned_launch.cpp)
target_link_libraries(example_tuned_launch PRIVATE ktune::ktune ktune_build_flags)
