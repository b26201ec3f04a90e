ktune_add_unit_test(unit_tune
  ${CMAKE_CURRENT_LIST_DIR}/tune/space_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tune/searcher_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tune/replay_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tune/tpe_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tune/tuner_loop_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tune/tuner_gpus_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tune/tuner_json_test.cpp)
