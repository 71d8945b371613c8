#!/usr/bin/env bash
# Configures, builds and runs this folder's project with the CMake in CMAKE_BIN_DIR (its
# cmake and ctest), and checks that ctest lists the three discovered tests and the three
# suites registered whole, and reports them passed, skipped and failed, one each of
# each kind. Exit 0 when it does; otherwise 1 with what
# differed and the logs (everything lands in BUILD_DIR).
#   Usage: tests/cmake/ctest_compat/check.sh CMAKE_BIN_DIR BUILD_DIR
set -euo pipefail
cmake_bin=${1:?usage: check.sh CMAKE_BIN_DIR BUILD_DIR}
build=${2:?usage: check.sh CMAKE_BIN_DIR BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "ctest_compat: $*" >&2; exit 1; }

mkdir -p "$build"
build=$(cd "$build" && pwd)
log=$build/check.log
version=$("$cmake_bin/cmake" --version | head -n1)
echo "== $version" >"$log"
"$cmake_bin/cmake" -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >>"$log" 2>&1 ||
  { cat "$log" >&2; fail "configure failed ($version)"; }
"$cmake_bin/cmake" --build "$build" >>"$log" 2>&1 || { cat "$log" >&2; fail "build failed ($version)"; }
# Listing reads every generated *_tests.cmake: a file ctest cannot parse fails here.
"$cmake_bin/ctest" --test-dir "$build" -N >"$build/list.txt" 2>&1 ||
  { cat "$build/list.txt" >&2; fail "ctest -N failed ($version)"; }
grep -q "^Total Tests: 6$" "$build/list.txt" ||
  { cat "$build/list.txt" >&2; fail "ctest -N does not list the 6 tests ($version)"; }
# One test fails on purpose, so ctest's own exit status is not the verdict; its JUnit
# file is.
rm -f "$build/junit.xml"
"$cmake_bin/ctest" --test-dir "$build" --output-junit junit.xml >"$build/ctest.txt" 2>&1 || true
[ -s "$build/junit.xml" ] || { cat "$build/ctest.txt" >&2; fail "ctest wrote no JUnit file ($version)"; }
python3 - "$build/junit.xml" "$version" <<'PY' || { cat "$build/ctest.txt" >&2; exit 1; }
import sys
import xml.etree.ElementTree as ET

def verdict(case):
    if case.find("skipped") is not None:
        return "skipped"
    if case.find("failure") is not None or case.get("status") == "fail":
        return "failed"
    return "passed" if case.get("status") == "run" else case.get("status")

got = {c.get("name").rsplit("/", 1)[-1]: verdict(c) for c in ET.parse(sys.argv[1]).iter("testcase")}
want = {"passed": "passed", "skipped": "skipped", "failed": "failed",
        "WholePassed.all": "passed", "WholeSkipped.all": "skipped", "WholeFailed.all": "failed"}
if got != want:
    sys.exit(f"ctest_compat: ctest's verdicts {got}, expected {want} ({sys.argv[2]})")
print(f"ctest_compat: {sys.argv[2]}: 6 tests listed; passed, skipped and failed as GoogleTest ran them, "
      "one test and one whole suite of each")
PY
