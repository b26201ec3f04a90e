# A quick subset of the adversarial corpus (tests/adversarial/run.py --quick, ~50 runs): the
# built `ktune` on damaged traces, results, caches, spaces, suites, plans and bad options must
# not crash, hang, exit with an undocumented code or touch a file it was not told to write.
find_package(Python3 COMPONENTS Interpreter)
find_program(KTUNE_ZSTD_TOOL zstd)
if(TARGET ktune_cli AND Python3_Interpreter_FOUND AND KTUNE_ZSTD_TOOL)
  # ASan reserves terabytes of address space for its shadow: no ulimit -v in that build.
  set(_mem 4096)
  if(KTUNE_SANITIZE)
    set(_mem 0)
  endif()
  add_test(NAME adversarial_quick
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/run.py
                   --ktune $<TARGET_FILE:ktune_cli> --quick --timeout 60 --mem-mb ${_mem})
  set_tests_properties(adversarial_quick PROPERTIES LABELS "unit;cli" TIMEOUT 300)
endif()
