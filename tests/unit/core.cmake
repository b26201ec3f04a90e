ktune_add_unit_test(unit_core
  ${CMAKE_CURRENT_LIST_DIR}/core/error_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/gpu_peaks_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/device_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/handle_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/config_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/shared_library_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/atomic_file_test.cpp)
