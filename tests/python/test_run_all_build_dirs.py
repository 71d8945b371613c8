"""run_all.sh configures the tests' build (test-only implementations on) in a folder of
its own: one folder whose SPLINEBENCH_TEST_IMPLS flips with the action rebuilt the whole
tree at every change between `test` and `nightly`, and the gate must never run a
test-only implementation.

The build step (section 3 of the script) runs as written, with `cmake` replaced by a
shell function that records its arguments."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def build_step() -> str:
    text = (REPO / "run_all.sh").read_text()
    match = re.search(r"^# --- 3\. .*?$(.*?)^bin=.*?$", text, re.MULTILINE | re.DOTALL)
    assert match, "run_all.sh has no section 3 ending in bin=..."
    return match.group(0)


def configured(action: str, build_dir: str = "build") -> tuple[str, str, list[str]]:
    script = ("set -euo pipefail\nlog() { :; }\ncmake() { echo \"cmake $*\" >&2; }\n"
              f"root=/r\nvenv=/r/.venv\njobs=2\naction={action}\nbuild_dir={build_dir}\n" + build_step() +
              '\necho "$build_dir"\necho "$bin"\n')
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=10, check=True)
    folder, binary = out.stdout.split()
    return folder, binary, out.stderr.splitlines()


def test_the_tests_build_has_its_own_folder_and_the_gate_a_build_without_test_implementations():
    test_dir, test_bin, test_calls = configured("test")
    for action in ("nightly", "quick"):
        dir_, bin_, calls = configured(action)
        assert dir_ == "build" and bin_ == "/r/build/bin/splinebench", (action, dir_, bin_)
        assert dir_ != test_dir
        assert any("-DSPLINEBENCH_TEST_IMPLS=OFF" in c and "-B build " in c for c in calls), calls
    assert test_dir == "build-test" and test_bin == "/r/build-test/bin/splinebench"
    assert any("-DSPLINEBENCH_TEST_IMPLS=ON" in c and "-B build-test " in c for c in test_calls), test_calls
    assert configured("test", "mine")[0] == "mine-test"
    # Both builds make the Python module for the venv's Python (python/README.md).
    for calls in (test_calls, configured("quick")[2]):
        assert any("-DPython_EXECUTABLE=/r/.venv/bin/python" in c for c in calls), calls
