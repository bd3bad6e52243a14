# mf_add_phase(<name> SOURCES ... DEPENDS ...)
# One static library per csrc/ phase folder, linked PUBLIC to the phases in DEPENDS. Linking
# does not enforce the order: every phase shares one include directory (csrc/), and the
# tests link the whole umbrella, so an include against the order builds and links. The
# ctest `layering` (tests/layering/check_includes.py) enforces it from these DEPENDS lists.
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
