"""ctest: runs tests/peers/scipy_tiny.json through the scipy implementation and checks
that its records pass against the oracle, except the short half-sample line, which fails
naming scipy's known defect (gh-24550) where the installed SciPy has it and passes where it
is fixed; and that the run context carries the library
versions and the adapter's measured cost per request. Exit 77 (skipped) when scipy
cannot run here, with the reason."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SKIP = 77


def main(binary: str) -> int:
    listed = {e["name"]: e for e in json.loads(subprocess.run([binary, "list", "--json"], check=True,
                                                              capture_output=True, text=True).stdout)}
    if not listed["scipy"]["available"]:
        print(f"SKIPPED: scipy cannot run here: {listed['scipy']['reason']}")
        return SKIP
    suite = Path(__file__).with_name("scipy_tiny.json")
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([binary, "run", "--suite-file", str(suite), "--results-dir", tmp, "--machine", "ctest",
                              "--run-dir-file", f"{tmp}/dir"], capture_output=True, text=True)
        print(run.stdout[-3000:], run.stderr[-3000:])
        assert run.returncode == 0, "a known defect must not fail the run; nothing else may fail"
        doc = json.loads((Path(Path(f"{tmp}/dir").read_text().strip()) / "results.json").read_text())
    records = doc["records"]
    defect_seen = False
    assert len(records) == 6 * 2 + 3 + 2 * 3 + 1, len(records)
    for r in records:
        assert r["status"] == "ok", r
        short_half = r["mode"] == "half" and min(r["shape"]) < 16
        if short_half and r["verdict"] == "fail":
            assert "gh-24550" in r["known_defect"] and "known defect" in r["message"], r
            defect_seen = True
        elif short_half:  # a SciPy with gh-24550 fixed: the record passes like any other
            assert "known_defect" not in r, r
            print("the short half-sample line passed: this SciPy has gh-24550 fixed")
        else:
            assert r["verdict"] == "pass", (r["case_id"], r["message"])
            assert "known_defect" not in r
        assert {p for p in r["phases"]} == {"prefilter", "evaluate"}, r["phases"]
    assert sum("known_defect" in r for r in records) == (1 if defect_seen else 0)
    facts = doc["context"]["implementations"]["scipy"]
    assert any(f.startswith("scipy=") for f in facts) and any(f.startswith("numpy=") for f in facts), facts
    assert any(f.startswith("adapter_null_request_us=median ") for f in facts), facts
    print("ok:", len(records), "records;", [f for f in facts if f.startswith("adapter_")][0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
