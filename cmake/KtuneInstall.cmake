# install + export, so a downstream project's find_package(ktune) gives ktune::ktune.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ktune EXPORT ktuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/ktune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET ktune_inject)
  install(TARGETS ktune_inject LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(TARGET ktune_cli)
  install(TARGETS ktune_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# The worker process the library starts (core/worker_executable.cpp looks for it in the bindir).
install(TARGETS ktune_worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(_cfgdir ${CMAKE_INSTALL_LIBDIR}/cmake/ktune)
install(EXPORT ktuneTargets NAMESPACE ktune:: DESTINATION ${_cfgdir})
export(EXPORT ktuneTargets NAMESPACE ktune:: FILE ${PROJECT_BINARY_DIR}/ktuneTargets.cmake)
configure_package_config_file(cmake/ktuneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ktuneConfig.cmake INSTALL_DESTINATION ${_cfgdir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ktuneConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ktuneConfig.cmake ${PROJECT_BINARY_DIR}/ktuneConfigVersion.cmake
        DESTINATION ${_cfgdir})
