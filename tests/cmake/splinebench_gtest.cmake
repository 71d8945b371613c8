# How every GoogleTest binary of the project becomes ctest tests. Kept apart from
# tests/CMakeLists.txt so that tests/cmake/ctest_compat (run by `run_all.sh test` with
# CMake 4) exercises this very call.
include(GoogleTest)

# splinebench_discover_gtests(target [WHOLE_SUITES suite...]): one ctest test per
# GoogleTest test, except the suites named in WHOLE_SUITES (e.g. AllShapes/GpuAccuracy),
# each run as one ctest test, "<suite>.all", in one process: a process costs ~30 ms to
# start, and suites of hundreds of small parameterized cases spent more on that than on
# their checks. Every test has SKIP_RETURN_CODE 77, which the project's main
# (tests/common/gtest_main.cpp) returns when all it ran was skipped.
function(splinebench_discover_gtests target)
  cmake_parse_arguments(ARG "" "" "WHOLE_SUITES" ${ARGN})
  # NO_PRETTY_VALUES: ctest names are GoogleTest's own, i.e. the names the suites'
  # name generators give (e.g. Conformance/Registry.MatchesOracleWithinItsTolerance/
  # cpu_simd_3D_mirror_C2_prefilter). Without it CMake appends or substitutes the
  # printed parameter, which for a struct is its bytes.
  # No SKIP_REGULAR_EXPRESSION here: the GoogleTest module of every CMake this project
  # accepts (>= 3.24) already gives each discovered test "\[  SKIPPED \]", so a
  # GTEST_SKIP counts as skipped. Passing it again through PROPERTIES is not only
  # redundant: CMake 4 writes PROPERTIES values as [[...]] bracket arguments, and a
  # value ending in "]" closes its bracket early, so ctest fails to parse the
  # generated *_tests.cmake.
  set(_filter)
  if(ARG_WHOLE_SUITES)
    list(TRANSFORM ARG_WHOLE_SUITES APPEND ".*" OUTPUT_VARIABLE _patterns)
    list(JOIN _patterns ":" _joined)
    set(_filter TEST_FILTER "-${_joined}")
  endif()
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 120 NO_PRETTY_VALUES ${_filter} PROPERTIES SKIP_RETURN_CODE 77)
  foreach(_suite IN LISTS ARG_WHOLE_SUITES)
    add_test(NAME ${_suite}.all COMMAND ${target} --gtest_filter=${_suite}.*)
    set_tests_properties(${_suite}.all PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
endfunction()
