# The one place where drsim finds its dependencies. Every one of them is a
# Debian 12 package listed in scripts/debian-packages.txt.
find_package(Threads REQUIRED)
find_package(yaml-cpp 0.7 REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS graph)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(PkgConfig REQUIRED)
pkg_check_modules(SimGrid REQUIRED IMPORTED_TARGET simgrid>=3.32)

if(DRSIM_BUILD_TESTS)
  find_package(GTest 1.12 REQUIRED)
  include(GoogleTest)
endif()
if(DRSIM_BUILD_BENCH)
  find_package(benchmark 1.7 REQUIRED)
endif()
if(DRSIM_BUILD_PYTHON)
  # The interpreter with Debian's packages; pass -DPython_EXECUTABLE=/usr/bin/python3
  # (the Makefile does) so that a different python3 first on PATH is not picked.
  find_package(Python 3.11 REQUIRED COMPONENTS Interpreter Development.Module)
  find_package(pybind11 2.10 CONFIG REQUIRED)
endif()

# yaml-cpp 0.7's Debian config names its target "yaml-cpp" without a namespace.
if(TARGET yaml-cpp AND NOT TARGET yaml-cpp::yaml-cpp)
  add_library(yaml-cpp::yaml-cpp ALIAS yaml-cpp)
endif()
