include(GoogleTest)

# Helpers shared by every component's CMakeLists.txt.

# Warnings are errors on project code only (never on third-party headers).
add_library(ksched_warnings INTERFACE)
# Designated initializers that leave defaulted members out are intended.
target_compile_options(ksched_warnings INTERFACE -Wall -Wextra -Werror
  -Wno-missing-field-initializers)
# GCC 12 at -O3 reports overlapping memcpy inside libstdc++'s string
# concatenation where there is none (GCC bug 105329).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(ksched_warnings INTERFACE -Wno-restrict)
endif()
# Clang (the fuzzing build) warns that C++20's reversed comparison makes
# RapidJSON's member iterators' == and != ambiguous; RapidJSON's own
# operators are the ones chosen, as intended.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  target_compile_options(ksched_warnings INTERFACE -Wno-ambiguous-reversed-operator)
endif()

# What the sanitizer builds' runtimes read: suppressions for third-party
# code (test/sanitizers), and a full stack for every report. Every test
# gets it, and so does every ksched the integration tests start.
set(KSCHED_SANITIZER_ENV "")
if(KSCHED_SANITIZE OR KSCHED_TSAN)
  set(supp ${PROJECT_SOURCE_DIR}/test/sanitizers)
  set(KSCHED_SANITIZER_ENV
    "LSAN_OPTIONS=suppressions=${supp}/lsan.supp"
    "UBSAN_OPTIONS=suppressions=${supp}/ubsan.supp:print_stacktrace=1:halt_on_error=1"
    "TSAN_OPTIONS=suppressions=${supp}/tsan.supp:halt_on_error=1:second_deadlock_stack=1")
endif()

# Test sources are compiled for compile speed: what the tests exercise
# (the libraries, ksched, the test API server) keeps the build's own flags,
# and test code is over half of the files compiled. In the sanitizer builds
# test code is still instrumented, at -O0, and carries no fuzzing coverage;
# in the optimized builds it keeps line tables for backtraces. Measured on
# two test files, each compiles in 40-65 % less time than with the
# build's flags.
add_library(ksched_test_code INTERFACE)
if(KSCHED_SANITIZE OR KSCHED_TSAN)
  target_compile_options(ksched_test_code INTERFACE -O0)
elseif(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(ksched_test_code INTERFACE
    $<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-Og -g1>)
endif()
if(KSCHED_FUZZ)
  target_compile_options(ksched_test_code INTERFACE -fno-sanitize=fuzzer-no-link)
endif()

# One precompiled header for every test executable: GoogleTest, GoogleMock,
# RapidJSON and the standard headers most tests include are parsed once,
# not once per test file. Test targets reuse it (ksched_test), so their
# flags are ksched_test_code's. Of the project's own headers only json.h is
# in it (it defines the macros RapidJSON must see first); others may depend
# on definitions that differ from one test target to the next.
if(BUILD_TESTING)
  add_library(ksched_test_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/test_pch.cc)
  target_link_libraries(ksched_test_pch PRIVATE GTest::gmock GTest::gtest
    ksched_warnings ksched_test_code)
  target_precompile_headers(ksched_test_pch PRIVATE
    <gmock/gmock.h> <gtest/gtest.h>
    # RapidJSON through the project's one way in, with its assertion macro.
    ${PROJECT_SOURCE_DIR}/pkg/util/json.h
    <algorithm> <atomic> <chrono> <filesystem> <fstream> <functional> <map>
    <memory> <mutex> <optional> <set> <sstream> <string> <thread>
    <unordered_map> <utility> <vector>)
endif()

# Files per translation unit in unity builds (0: all of a target's).
set(KSCHED_TEST_UNITY_BATCH 8 CACHE STRING "Test files compiled together")
set(KSCHED_LIBRARY_UNITY_BATCH 6 CACHE STRING "Library files compiled together")

# ksched_library(NAME SOURCES a.cc b.cc DEPS other_lib ...)
# Declares library ksched_<NAME>; headers are included as "pkg/<dir>/<file>.h".
function(ksched_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(ksched_${name} STATIC ${ARG_SOURCES})
  # Compiled in batches, as the tests are: a library's files share most of
  # the templates they instantiate. (One file is left as it is: included
  # into a unity file, GCC would take its internal types for a header's.)
  list(LENGTH ARG_SOURCES sources)
  if(sources GREATER 1)
    set_target_properties(ksched_${name} PROPERTIES UNITY_BUILD ON
      UNITY_BUILD_BATCH_SIZE ${KSCHED_LIBRARY_UNITY_BATCH})
  endif()
  target_include_directories(ksched_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(ksched_${name} PUBLIC ${ARG_DEPS} PRIVATE ksched_warnings ${ARG_PRIVATE_DEPS})
endfunction()

# ksched_test(NAME SOURCES a_test.cc DEPS ksched_x ...)
# A GoogleTest executable registered with ctest, test by test.
function(ksched_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT BUILD_TESTING)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main
    ksched_warnings ksched_test_code)
  target_precompile_headers(${name} REUSE_FROM ksched_test_pch)
  # A test executable's files compile in batches: most of a test file's
  # compile time goes to instantiating and generating the same templates
  # (GoogleTest's, the object model's) that its neighbours instantiate too.
  list(LENGTH ARG_SOURCES sources)
  if(sources GREATER 1)
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON
      UNITY_BUILD_BATCH_SIZE ${KSCHED_TEST_UNITY_BATCH})
  endif()
  target_compile_definitions(${name} PRIVATE
    KSCHED_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    KSCHED_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 TEST_LIST ${name}_TESTS
    PROPERTIES LABELS unit)
  # Further labels and the sanitizers' options are set once ctest has read
  # the discovered tests: discovery writes property values unquoted, so a
  # "unit;<label>" list would be split and the properties after it lost.
  set(labels "unit")
  if(ARG_LABELS)
    set(labels "unit;${ARG_LABELS}")
  endif()
  set(props_script ${CMAKE_CURRENT_BINARY_DIR}/${name}_properties.cmake)
  file(WRITE ${props_script}
    "if(${name}_TESTS)\n"
    "  set_tests_properties(\${${name}_TESTS} PROPERTIES\n"
    "    LABELS \"${labels}\"\n"
    "    ENVIRONMENT \"${KSCHED_SANITIZER_ENV}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${props_script})
endfunction()
