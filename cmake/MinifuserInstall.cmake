# Installation and the CMake package (find_package(minifuser)). Filled in with the build set-up.
