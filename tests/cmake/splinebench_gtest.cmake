# How every GoogleTest binary of the project becomes ctest tests. Kept apart from
# tests/CMakeLists.txt so that tests/cmake/ctest_compat (run by `run_all.sh test` with
# CMake 4) exercises this very call.
include(GoogleTest)

function(splinebench_discover_gtests target)
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
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 120 NO_PRETTY_VALUES)
endfunction()
