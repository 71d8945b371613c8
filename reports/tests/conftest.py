"""Shared fixtures: the committed fixture runs and reports built from them once
per test session (building plots is the slow part)."""
from __future__ import annotations

from pathlib import Path

import pytest

from reports.build import build_report
from reports.loader import load_run, load_runs

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CPU_RUN = FIXTURES / "cpu_run"
GPU_RUN = FIXTURES / "gpu_run"
MALFORMED = FIXTURES / "malformed"


@pytest.fixture(scope="session")
def cpu_run():
    return load_run(CPU_RUN)


@pytest.fixture(scope="session")
def gpu_run():
    return load_run(GPU_RUN)


@pytest.fixture(scope="session")
def merged_runs():
    return load_runs([CPU_RUN, GPU_RUN])


@pytest.fixture(scope="session")
def cpu_report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cpu_report")
    return build_report(load_runs([CPU_RUN]), out)


@pytest.fixture(scope="session")
def merged_report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("merged_report")
    return build_report(load_runs([CPU_RUN, GPU_RUN]), out)
