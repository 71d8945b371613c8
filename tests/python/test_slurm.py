"""`splinebench slurm` on a real Slurm: the test starts munged, slurmctld and slurmd on
localhost (Debian 12's slurm-wlm and munge, which `./run_all.sh test` installs) with a
configuration it writes into a temporary folder, submits a small CPU suite as a 4-task
array and its merge job, waits, checks the merged run against the suite's plan, and stops
the daemons. It needs root (the daemons run as root, as in CI); elsewhere it skips,
saying so. `--dry-run` is checked everywhere: the scripts it prints and nothing written.
The binary is conftest's splinebench_bin: $SPLINEBENCH_BIN (default: build/bin/splinebench)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

SUITE = {"name": "slurm-tiny", "sweeps": [{"name": "g", "impls": ["cpu_scalar", "cpu_sse"],
                                           "shapes": [[9], [33], [6, 5]], "queries": [7],
                                           "modes": ["mirror", "half"]}]}
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONF = """ClusterName=sbtest
SlurmctldHost=localhost
AuthType=auth/munge
AuthInfo=socket={dir}/munge.sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=localhost NodeHostname=localhost CPUs={cpus} RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("a local Slurm needs root here (munged, slurmctld and slurmd run as root; CI runs as root)")
    absent = [d for d in DAEMONS if shutil.which(d) is None and not Path("/usr/sbin", d).exists()]
    if absent:
        message = f"{', '.join(absent)} missing: ./run_all.sh test installs slurm-wlm and munge"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    d = tmp_path_factory.mktemp("slurm")
    (d / "state").mkdir()
    (d / "spool").mkdir()
    key = d / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    conf = d / "slurm.conf"
    conf.write_text(CONF.format(dir=d, ctld_port=free_port(), d_port=free_port(), cpus=os.cpu_count() or 2))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    started = []
    try:
        subprocess.run(["munged", f"--key-file={key}", f"--socket={d}/munge.sock", f"--pid-file={d}/munged.pid",
                        f"--log-file={d}/munged.log", f"--seed-file={d}/munge.seed", "--force"], check=True,
                       timeout=30)
        started.append(d / "munged.pid")
        subprocess.run(["slurmctld", "-f", str(conf)], check=True, timeout=30, env=env)
        started.append(d / "slurmctld.pid")
        subprocess.run(["slurmd", "-f", str(conf), "-N", "localhost"], check=True, timeout=30, env=env)
        started.append(d / "slurmd.pid")
        deadline = time.monotonic() + 60
        while True:
            state = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=env).stdout
            if state.strip() == "idle":
                break
            if time.monotonic() > deadline:
                logs = "\n".join(p.read_text(errors="replace")[-2000:] for p in d.glob("*.log"))
                pytest.fail(f"the local Slurm node did not become idle (sinfo: {state!r}):\n{logs}")
            time.sleep(0.5)
        yield env
    finally:
        for pid_file in reversed(started):
            try:
                pid = int(pid_file.read_text().split()[0])
                os.kill(pid, signal.SIGTERM)
                for _ in range(100):
                    os.kill(pid, 0)
                    time.sleep(0.1)
                os.kill(pid, signal.SIGKILL)
            except (OSError, ValueError):
                pass


def test_dry_run_prints_the_array_and_the_merge_and_writes_nothing(splinebench_bin, tmp_path):
    suite = tmp_path / "slurm-tiny.json"
    suite.write_text(json.dumps(SUITE))
    results = tmp_path / "results"
    proc = subprocess.run([str(splinebench_bin), "slurm", "--suite-file", str(suite), "--shards", "4", "--results-dir",
                           str(results), "--machine", "box", "--partition", "gpu", "--time", "00:30:00",
                           "--dry-run"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for line in ("#SBATCH --array=1-4", "#SBATCH --gpus-per-task=1", "#SBATCH --partition=gpu",
                 "#SBATCH --time=00:30:00", '--shard "${SLURM_ARRAY_TASK_ID}/4"', "'merge' \"${runs[@]}\""):
        assert line in out, line
    assert not results.exists()
    bad = subprocess.run([str(splinebench_bin), "slurm", "--suite-file", str(suite), "--shards", "0", "--dry-run"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "--shards must be in" in bad.stderr


def test_a_suite_runs_as_a_job_array_and_merges(splinebench_bin, cluster, tmp_path):
    suite = tmp_path / "slurm-tiny.json"
    suite.write_text(json.dumps(SUITE))
    results = tmp_path / "results"
    proc = subprocess.run([str(splinebench_bin), "slurm", "--suite-file", str(suite), "--shards", "4", "--gpus-per-task", "0",
                           "--results-dir", str(results), "--machine", "box", "--repetitions", "2", "--warmups", "0",
                           "--submit"], capture_output=True, text=True, timeout=120, env=cluster)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "submitted: shards job" in proc.stdout
    # Until the merge has written its run; the queue empty for 15 s without it is a failure.
    deadline, empty_since = time.monotonic() + 300, None
    while not any((results / "box").glob("*/results.json")):
        queue = subprocess.run(["squeue", "-h"], capture_output=True, text=True, env=cluster).stdout
        now = time.monotonic()
        empty_since = (empty_since or now) if not queue.strip() else None
        if now > deadline or (empty_since is not None and now - empty_since > 15):
            logs = "\n".join(f"--- {p}\n{p.read_text(errors='replace')[-3000:]}" for p in results.rglob("*.log"))
            pytest.fail(f"no merged run (queue: {queue!r}):\n{logs}")
        time.sleep(0.5)
    merged = next((results / "box").glob("*/results.json")).parent
    doc = json.loads((merged / "results.json").read_text())
    dry = subprocess.run([str(splinebench_bin), "run", "--suite-file", str(suite), "--dry-run"], capture_output=True,
                         text=True, timeout=60)
    planned = [line for line in dry.stdout.splitlines() if line and not line.startswith("#")]
    assert [r["case_id"] for r in doc["records"]] == planned
    assert all(r["verdict"] == "pass" for r in doc["records"])
    assert [s["shard"] for s in doc["context"]["shards"]] == ["1/4", "2/4", "3/4", "4/4"]
    scripts = next(results.glob(".slurm/*"))
    assert (scripts / "shards.sbatch").is_file() and (scripts / "merge.sbatch").is_file()
    assert len(list(scripts.glob("shard-*.log"))) == 4


def test_the_split_check_runs_on_mpi_ranks_that_srun_starts(splinebench_bin, cluster):
    """The split prefilter across processes as a cluster starts them: srun launches 4 MPI
    ranks (Slurm's PMIx plugin, Open MPI from Debian) of `splinebench split check`."""
    if shutil.which("mpirun") is None:
        message = "Open MPI missing: ./run_all.sh installs openmpi-bin and libopenmpi-dev"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    # --overcommit: 4 ranks on a node that may have fewer cores (CI has 2).
    proc = subprocess.run(["srun", "--mpi=pmix", "--overcommit", "-n", "4", str(splinebench_bin), "split", "check",
                           "--comm", "mpi"], capture_output=True, text=True, timeout=120, env=cluster)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "36 of 36 cases pass on 4 mpi ranks" in proc.stdout
