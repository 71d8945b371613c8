"""A Python client of the adapter protocol (README.md): what the harness's C++ side
does, for tests and for driving a library by hand.

    with AdapterClient("scipy") as a:
        a.prepare(samples, mode="half")          # samples: (fields, *extents, channels)
        values, phases = a.evaluate(coords)      # coords: (D, n); values (fields, n, channels)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).with_name("splinebench_adapter.py")
DTYPE_NAMES = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


class AdapterError(RuntimeError):
    def __init__(self, answer: dict):
        super().__init__(answer.get("error", "no reason given"))
        self.answer = answer


class AdapterClient:
    def __init__(self, library: str, python: str = sys.executable):
        self._dir = tempfile.TemporaryDirectory(prefix="splinebench-client-", dir="/dev/shm"
                                                if os.path.isdir("/dev/shm") else None)
        self._proc = subprocess.Popen([python, str(SCRIPT), "--library", library], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
        self._shape = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        if self._proc.poll() is None:
            self.raw('{"op": "shutdown"}')
            self._proc.wait(timeout=10)
        self._dir.cleanup()

    def raw(self, line: str) -> dict:
        """Sends one line as it is; the answer as a dict."""
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        answer = self._proc.stdout.readline()
        if not answer:
            raise RuntimeError("the adapter ended without answering")
        return json.loads(answer)

    def request(self, request: dict) -> dict:
        answer = self.raw(json.dumps(request))
        if not answer.get("ok"):
            raise AdapterError(answer)
        return answer

    def _path(self, name: str) -> str:
        return os.path.join(self._dir.name, name)

    def prepare(self, samples: np.ndarray, mode: str, prefilter: bool = True) -> dict:
        """samples (fields, *extents, channels) float32 or float64; the phases."""
        samples = np.ascontiguousarray(samples)
        samples.tofile(self._path("input"))
        self._shape = samples.shape
        self._dtype = samples.dtype
        return self.request({"op": "prepare", "shape": list(samples.shape[1:-1]), "fields": samples.shape[0],
                             "channels": samples.shape[-1], "dtype": DTYPE_NAMES[samples.dtype], "mode": mode,
                             "prefilter": prefilter, "input": self._path("input")})["phases"]

    def coefficients(self) -> np.ndarray:
        out = self._path("coefficients")
        np.full(self._shape, np.nan, self._dtype).tofile(out)
        self.request({"op": "read_coefficients", "output": out})
        return np.fromfile(out, self._dtype).reshape(self._shape)

    def evaluate(self, coords: np.ndarray) -> tuple[np.ndarray, dict]:
        """coords (D, n); (values (fields, n, channels), phases)."""
        coords = np.ascontiguousarray(coords, dtype=self._dtype)
        coords.tofile(self._path("coords"))
        fields, channels, n = self._shape[0], self._shape[-1], coords.shape[1]
        out = self._path("values")
        np.full((fields, n, channels), np.nan, self._dtype).tofile(out)
        phases = self.request({"op": "evaluate", "coords": self._path("coords"), "n": n, "output": out})["phases"]
        return np.fromfile(out, self._dtype).reshape(fields, n, channels), phases
