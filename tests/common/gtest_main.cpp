// The main of every GoogleTest binary of the project: GoogleTest's own, plus exit code 77
// when every test that ran was skipped and none failed, which ctest reports as skipped
// (SKIP_RETURN_CODE, tests/cmake/splinebench_gtest.cmake). A ctest test that runs a
// whole suite in one process (a GPU suite without a device) is then listed as skipped,
// as its cases would be one by one, not as passed.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (rc == 0 && unit.skipped_test_count() > 0 && unit.successful_test_count() == 0 && unit.failed_test_count() == 0)
    return 77;
  return rc;
}
