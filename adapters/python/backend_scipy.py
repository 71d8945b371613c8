"""scipy.ndimage as the harness sees it: `spline_filter1d` over the spatial axes (the
loop `spline_filter` runs over every axis; field and channel axes are left out) and
`map_coordinates(order=3, prefilter=False)` per field and channel. One thread, as
scipy.ndimage runs. Times are host wall clock (time.perf_counter) around the library
calls alone; the adapter's reading, folding and writing are outside them.

Arithmetic: scipy.ndimage filters and interpolates in double whatever the storage, and
rounds to the output dtype once per pass and once per value.
"""
from __future__ import annotations

import time

import numpy as np
import scipy
import scipy.ndimage as ndi

from adapter_arrays import EvaluateRequest, PrepareRequest, write_array


def hello() -> dict:
    return {"available": True, "library": "scipy", "device": "cpu", "timer": "time.perf_counter",
            "versions": {"scipy": scipy.__version__, "numpy": np.__version__}}


def prepare(state: dict, req: PrepareRequest) -> dict:
    phases = {}
    if req.prefilter:
        coeffs = np.empty_like(req.data)
        src, out = req.natural(req.data), req.natural(coeffs)
        start = time.perf_counter()
        for axis in req.spatial_axes:
            ndi.spline_filter1d(src, order=3, axis=axis, output=out, mode=req.library_mode)
            src = out
        phases["prefilter"] = time.perf_counter() - start
    else:
        coeffs = req.data
    state["prepared"] = req
    state["coeffs"] = coeffs
    return phases


def read_coefficients(state: dict, path: str) -> dict:
    write_array(path, state["coeffs"])
    return {}


def evaluate(state: dict, req: EvaluateRequest) -> dict:
    prepared: PrepareRequest = state["prepared"]
    planes = prepared.planes(state["coeffs"])
    # One contiguous output per (field, channel), allocated before timing.
    values = np.empty((len(planes), req.n), dtype=prepared.dtype)
    start = time.perf_counter()
    for plane, out in zip(planes, values):
        ndi.map_coordinates(plane, req.coords, output=out, order=3, mode=prepared.library_mode, prefilter=False)
    seconds = time.perf_counter() - start
    by_query = values.reshape(prepared.fields, prepared.channels, req.n).transpose(0, 2, 1)
    write_array(req.output, req.finish(np.ascontiguousarray(by_query)))
    return {"evaluate": seconds}


def release() -> None:
    pass
