# Warnings and sanitizers, applied through an interface target that every
# drsim target links, so that third-party code is not affected.
add_library(drsim_flags INTERFACE)
target_compile_features(drsim_flags INTERFACE cxx_std_20)
target_compile_options(drsim_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-missing-field-initializers)
# GCC 12 reports false -Wrestrict overlaps inside libstdc++'s std::string
# operator+ at -O2 (GCC bug 105329), and a false -Wmaybe-uninitialized on the
# _M_dataplus pointer of a value-initialised std::string member once inlining
# reaches its destructor (GCC bug 105562); both are fixed in GCC 13 and the
# code is correct.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(drsim_flags INTERFACE -Wno-restrict -Wno-maybe-uninitialized)
endif()
if(DRSIM_WERROR)
  target_compile_options(drsim_flags INTERFACE -Werror)
endif()
# Includes are relative to the repository root: #include "sim/time.h".
target_include_directories(drsim_flags INTERFACE ${PROJECT_SOURCE_DIR})

if(DRSIM_SANITIZE)
  set(drsim_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_compile_options(drsim_flags INTERFACE ${drsim_sanitize_flags})
  target_link_options(drsim_flags INTERFACE ${drsim_sanitize_flags})
endif()

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)

# The fuzz build (fuzz/CMakeLists.txt): every library instrumented for
# libFuzzer's coverage feedback and checked by ASan and UBSan; a sanitizer
# report is a crash for libFuzzer (no recovery).
if(DRSIM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "DRSIM_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(drsim_fuzz_flags -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_compile_options(drsim_flags INTERFACE ${drsim_fuzz_flags})
  target_link_options(drsim_flags INTERFACE -fsanitize=address,undefined)
endif()
