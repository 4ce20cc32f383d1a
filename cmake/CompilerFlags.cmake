# Warnings and sanitizers, applied through an interface target that every
# drsim target links, so that third-party code is not affected.
add_library(drsim_flags INTERFACE)
target_compile_features(drsim_flags INTERFACE cxx_std_20)
target_compile_options(drsim_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-missing-field-initializers)
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
