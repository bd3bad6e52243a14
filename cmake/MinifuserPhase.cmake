# mf_add_phase(<name> SOURCES ... DEPENDS ...)
# One static library per csrc/ phase folder. DEPENDS lists the phases it may use, which
# keeps the dependency graph one-way: a phase that includes a header of a phase it does
# not depend on fails to link in the tests of that phase.
function(mf_add_phase name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(mf_${name} STATIC ${ARG_SOURCES})
  add_library(minifuser::mf_${name} ALIAS mf_${name})
  target_include_directories(mf_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/csrc>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/minifuser>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # Our headers need C++20; PUBLIC, so an installed package's user gets it too.
  target_compile_features(mf_${name} PUBLIC cxx_std_20)
  # $<BUILD_INTERFACE:...>: our warning flags never reach (or need exporting to) a user.
  target_link_libraries(mf_${name} PUBLIC ${ARG_DEPENDS} PRIVATE $<BUILD_INTERFACE:mf_warnings>)
  set_property(GLOBAL APPEND PROPERTY MF_PHASES mf_${name})
endfunction()
