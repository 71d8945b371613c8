"""`splinebench run --shard I/N` and `splinebench merge`: for N = 1 to 5 the shards
of a suite of suites (a grid part and a scattered part) together run exactly the
unsharded run's cases, and their merge is one run folder with the same cases in the same
order, the same verdicts and options, each shard's host and run named in its context,
which reports.compare reads against the unsharded run with no case missing. Merging
refuses an incomplete, repeated, foreign or compacted set, writing nothing. The binary
comes from $SPLINEBENCH_BIN (default: build/bin/splinebench)."""
from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

GRID = {"name": "shard-grid", "sweeps": [{"name": "g", "impls": ["cpu_scalar", "cpu_sse"],
                                          "shapes": [[9], [33], [6, 5], [4, 3, 5]], "queries": [7],
                                          "modes": ["mirror", "half"]}]}
SCATTERED = {"name": "shard-scattered", "system": "scattered",
             "sweeps": [{"name": "s", "data": "smooth", "shapes": [[17, 15]], "fractions": 0.3, "lambdas": 2.1,
                         "solvers": ["cg", "mg_pcg"], "seed_iterations": 5}]}
BOTH = {"name": "shard-all", "system": "suites", "suites": ["shard-grid", "shard-scattered"]}


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    suites = tmp_path_factory.mktemp("suites")
    for doc in (GRID, SCATTERED, BOTH):
        (suites / f"{doc['name']}.json").write_text(json.dumps(doc))
    return {**os.environ, "SPLINEBENCH_SUITES_DIR": str(suites)}


def splinebench(splinebench_bin: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(splinebench_bin), *args], capture_output=True, text=True, timeout=600, env=env)


def run_dir_of(proc: subprocess.CompletedProcess) -> Path:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return Path(proc.stdout.strip().splitlines()[-1].split("run directory: ", 1)[1])


def a_run(splinebench_bin: Path, env: dict, results: Path, *extra: str) -> Path:
    return run_dir_of(splinebench(splinebench_bin, env, "run", "--suite", "shard-all", "--results-dir", str(results),
                                  "--machine", "box", "--repetitions", "2", "--warmups", "0", *extra))


def records(run: Path) -> list[dict]:
    return json.loads((run / "results.json").read_text())["records"]


@pytest.fixture(scope="module")
def unsharded(splinebench_bin, env, tmp_path_factory) -> Path:
    return a_run(splinebench_bin, env, tmp_path_factory.mktemp("whole"))


@pytest.fixture(scope="module")
def two_shards(splinebench_bin, env, tmp_path_factory) -> list[Path]:
    results = tmp_path_factory.mktemp("two")
    return [a_run(splinebench_bin, env, results, "--shard", f"{i}/2") for i in (1, 2)]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5])
def test_shards_merge_into_the_unsharded_run(splinebench_bin, env, unsharded, two_shards, tmp_path, count):
    shards = two_shards if count == 2 else [a_run(splinebench_bin, env, tmp_path / "shards", "--shard", f"{i}/{count}")
                                            for i in range(1, count + 1)]
    whole = records(unsharded)
    parts = [records(s) for s in shards]
    ids = [r["case_id"] for part in parts for r in part]
    assert sorted(ids) == sorted(r["case_id"] for r in whole), "the shards run the unsharded run's cases, once each"
    assert all(parts), "no shard is empty"
    assert {json.loads((s / "run.json").read_text())["options"]["shard"] for s in shards} == \
        {f"{i}/{count}" for i in range(1, count + 1)}

    proc = splinebench(splinebench_bin, env, "merge", *map(str, reversed(shards)), "--results-dir", str(tmp_path / "merged"))
    merged = run_dir_of(proc)
    assert merged.parent.name == "box"
    got = records(merged)
    assert [r["case_id"] for r in got] == [r["case_id"] for r in whole], "the plan's order"
    assert [r["verdict"] for r in got] == [r["verdict"] for r in whole]
    assert all(r["verdict"] == "pass" for r in got)
    manifest = json.loads((merged / "run.json").read_text())
    assert manifest["options"] == json.loads((unsharded / "run.json").read_text())["options"]
    ctx = json.loads((merged / "results.json").read_text())["context"]
    assert ctx["run_id"] == merged.name
    assert [s["shard"] for s in ctx["shards"]] == [f"{i}/{count}" for i in range(1, count + 1)]
    assert [s["run_id"] for s in ctx["shards"]] == [s.name for s in shards]
    assert all(s["hostname"] and s["cases"] >= 1 for s in ctx["shards"])
    assert sum(s["cases"] for s in ctx["shards"]) == len(whole)

    # reports.compare reads the merged run like any: no case of the unsharded run is
    # missing. The threshold is set past any timing change, which between two runs of
    # microsecond cases on a shared CI machine means nothing; the case sets are the check.
    compare = subprocess.run([sys.executable, "-m", "reports.compare", "--min-abs-ms", "1e9", str(unsharded),
                              str(merged)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert compare.returncode == 0, compare.stdout + compare.stderr


def refused(splinebench_bin, env, dirs, results: Path, words: str) -> None:
    proc = splinebench(splinebench_bin, env, "merge", *map(str, dirs), "--results-dir", str(results))
    assert proc.returncode != 0 and words in proc.stderr, proc.stdout + proc.stderr
    assert not results.exists() or not any(results.rglob("*")), "a refused merge writes nothing"


def test_merge_refuses_what_is_not_one_sharded_run(splinebench_bin, env, unsharded, two_shards, tmp_path):
    first, second = two_shards
    refused(splinebench_bin, env, [first], tmp_path / "r1", "1 runs given for 2 shards (missing: 2/2)")
    refused(splinebench_bin, env, [first, first], tmp_path / "r2", "given twice")
    refused(splinebench_bin, env, [unsharded], tmp_path / "r3", "not a shard run")
    refused(splinebench_bin, env, [first, tmp_path / "nothing"], tmp_path / "r4", "is not a folder")
    other = tmp_path / "other"
    shutil.copytree(second, other)
    manifest = json.loads((other / "run.json").read_text())
    manifest["options"]["repetitions"] = 3
    (other / "run.json").write_text(json.dumps(manifest))
    refused(splinebench_bin, env, [first, other], tmp_path / "r5", "ran with other options")
    compacted = tmp_path / "compacted"
    shutil.copytree(second, compacted)
    raw = (compacted / "results.json").read_bytes()
    (compacted / "results.json.gz").write_bytes(gzip.compress(raw))
    (compacted / "results.json").unlink()
    refused(splinebench_bin, env, [first, compacted], tmp_path / "r6", "merge shard runs before `reports.compact`")


def test_a_sharded_run_resumes_as_its_shard(splinebench_bin, env, tmp_path):
    results = tmp_path / "results"
    proc = splinebench(splinebench_bin, env, "run", "--suite", "shard-grid", "--results-dir", str(results), "--machine", "box",
                       "--shard", "2/3", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    listed = [line for line in proc.stdout.splitlines() if not line.startswith("#")]
    assert "# shard 2/3: " in proc.stdout and listed and not results.exists()
    bad = splinebench(splinebench_bin, env, "run", "--suite", "shard-grid", "--results-dir", str(results), "--shard", "4/3")
    assert bad.returncode != 0 and "is not I/N" in bad.stderr and not results.exists()
    run = a_run_grid(splinebench_bin, env, results)
    assert [r["case_id"] for r in records(run)] == listed
    (run / "results.json").unlink()  # as if cut off before the end
    (run / "results.csv").unlink(missing_ok=True)
    resumed = splinebench(splinebench_bin, env, "run", "--resume", str(run))
    assert resumed.returncode == 0, resumed.stderr
    assert [r["case_id"] for r in records(run)] == listed, "the resume keeps to its shard"
    assert "--shard" in splinebench(splinebench_bin, env, "run", "--resume", str(run), "--shard", "1/3").stderr


def a_run_grid(splinebench_bin, env, results: Path) -> Path:
    return run_dir_of(splinebench(splinebench_bin, env, "run", "--suite", "shard-grid", "--results-dir", str(results),
                                  "--machine", "box", "--repetitions", "2", "--warmups", "0", "--shard", "2/3"))


def test_devices_run_one_shard_each_and_merge(splinebench_bin, env, unsharded, tmp_path):
    """`--devices 0,1,2` on this machine: three children at once (CUDA_VISIBLE_DEVICES set,
    no device needed by the CPU entries), merged into one run; the staging folder goes."""
    results = tmp_path / "results"
    merged = a_run(splinebench_bin, env, results, "--devices", "0,1,2")
    assert merged.parent == results / "box"
    assert [r["case_id"] for r in records(merged)] == [r["case_id"] for r in records(unsharded)]
    ctx = json.loads((merged / "results.json").read_text())["context"]
    assert [s["shard"] for s in ctx["shards"]] == ["1/3", "2/3", "3/3"]
    # The wall time the user waited for, and each shard's own, which it cannot be below.
    assert all(s["wall_seconds"] > 0 for s in ctx["shards"]), ctx["shards"]
    assert ctx["wall_seconds"] >= max(s["wall_seconds"] for s in ctx["shards"]) - 1, ctx
    assert ctx["finished"] >= ctx["date"]
    assert [p.name for p in results.iterdir()] == ["box"], "the shards' staging folder is removed"
    assert [p for p in (results / "box").iterdir()] == [merged]
    for extra, words in ((["--devices", "0,0"], "given twice"), (["--devices", "0,a b"], "neither a device"),
                         (["--devices", "0,1", "--shard", "1/2"], "do not combine it with")):
        proc = splinebench(splinebench_bin, env, "run", "--suite", "shard-all", "--results-dir", str(tmp_path / "bad"),
                           *extra)
        assert proc.returncode != 0 and words in proc.stderr, proc.stderr
        assert not (tmp_path / "bad").exists()
