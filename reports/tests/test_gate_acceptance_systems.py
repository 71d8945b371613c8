"""gate_acceptance over a suite of suites: the test-only entry goes into the right
system's CPU sweeps, and a SLOWER row is attributed to the entry its case id names."""
import json

from reports.gate_acceptance import TEST_IMPL, TEST_SOLVER, entry_of, suite_with_test_impl


def test_solver_injection_touches_only_the_scattered_part(tmp_path):
    out = suite_with_test_impl("nightly", TEST_SOLVER, tmp_path / "n.json", slow="solver")
    doc = json.loads(out.read_text())
    assert doc["system"] == "suites"
    parts = {p["name"]: p for p in doc["suites"]}
    cpu = next(s for s in parts["nightly-scattered"]["sweeps"] if s["name"] == "cpu-image")
    gpu = next(s for s in parts["nightly-scattered"]["sweeps"] if s["name"] == "gpu-image")
    assert TEST_SOLVER in cpu["solvers"] and TEST_SOLVER not in gpu["solvers"]
    assert all(TEST_IMPL not in json.dumps(s) for s in parts["nightly-grid"]["sweeps"])


def test_implementation_injection_touches_only_the_grid_part(tmp_path):
    out = suite_with_test_impl("nightly", TEST_IMPL, tmp_path / "n.json", slow="implementation")
    parts = {p["name"]: p for p in json.loads(out.read_text())["suites"]}
    assert any(TEST_IMPL in s.get("impls", []) for s in parts["nightly-grid"]["sweeps"])
    assert TEST_SOLVER not in json.dumps(parts["nightly-scattered"])


def test_entry_of_each_system():
    assert entry_of("cpu_simd/D3/128x128x128/C1/F1/mirror/noise/q131072/uniform/T1") == "cpu_simd"
    assert entry_of("scattered/smooth/129x129/mirror/laplace0.2/lambda2.1/test_slowed_solver") == TEST_SOLVER
    assert entry_of("scattered/smooth/12x12x12/mirror/laplace0.3/lambda0.002/mg2-5-5-5-1-5-3-5-1/cg/blocks2x2x2") == "cg"
    assert entry_of("iir2d/flex_tiles16/1024x1024/M3/gauss/++") == "flex_tiles16"
