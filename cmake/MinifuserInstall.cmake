# Installation and the CMake package, so that another project can do
#
#   find_package(minifuser REQUIRED)
#   target_link_libraries(app PRIVATE minifuser::minifuser)
#
# and `#include <minifuser/minifuser.h>`. `cmake --install <build> --prefix <p>` installs:
#   <p>/include/minifuser/...          every header of csrc/, folders kept (ir/fusion.h, ...),
#                                      the public testing helpers too (testing/segmentation.h)
#   <p>/lib/libmf_<phase>.a            every phase library (the MF_PHASES global property)
#   <p>/lib/cmake/minifuser/           minifuserConfig.cmake, its version file, the targets
# The phases' include directories are <p>/include/minifuser (the headers include each other
# as "ir/fusion.h") and <p>/include (for <minifuser/minifuser.h>).
#
# Included at the end of the top CMakeLists.txt, once every phase has been added.
# mf_warnings is linked as $<BUILD_INTERFACE:mf_warnings> (cmake/MinifuserPhase.cmake), so
# our -Werror never reaches a user's build and needs no export. The cuda phase compiles the
# generated runtime sources in through $<TARGET_OBJECTS:mf_runtime_sources>: the objects
# land inside libmf_cuda.a, so that OBJECT library is not exported either.

include(CMakePackageConfigHelpers)

set(MF_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/minifuser)

# Headers: csrc/minifuser.h becomes include/minifuser/minifuser.h with the rest, and
# csrc/testing/ (header only, no library) include/minifuser/testing/.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/csrc/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/minifuser
        FILES_MATCHING PATTERN "*.h")

get_property(mf_installed_phases GLOBAL PROPERTY MF_PHASES)
install(TARGETS ${mf_installed_phases} minifuser
        EXPORT minifuserTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT minifuserTargets
        NAMESPACE minifuser::
        DESTINATION ${MF_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/minifuserConfig.cmake.in
  ${PROJECT_BINARY_DIR}/minifuserConfig.cmake
  INSTALL_DESTINATION ${MF_INSTALL_CMAKEDIR})
# Before 1.0 a minor version may break the API, so only the same major.minor matches.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/minifuserConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/minifuserConfig.cmake
              ${PROJECT_BINARY_DIR}/minifuserConfigVersion.cmake
        DESTINATION ${MF_INSTALL_CMAKEDIR})
