# libktune_inject.so's pure pieces, compiled into the test (the library hides its symbols).
ktune_add_unit_test(unit_inject ${CMAKE_CURRENT_LIST_DIR}/inject/launch_params_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/inject/launch_work_test.cpp
                    ${PROJECT_SOURCE_DIR}/src/inject/launch_params.cpp
                    ${PROJECT_SOURCE_DIR}/src/inject/launch_params_work.cpp)
target_include_directories(unit_inject PRIVATE ${PROJECT_SOURCE_DIR}/src/inject
                                               ${CUDAToolkit_INCLUDE_DIRS}
                                               ${CUDAToolkit_CUPTI_INCLUDE_DIR})
