"""cupyx.scipy.ndimage as the harness sees it: the same calls as backend_scipy
(`spline_filter1d` over the spatial axes, `map_coordinates(order=3, prefilter=False)`
per field and channel) on the current CUDA device. Every phase is timed with CUDA events
recorded on the current stream around the library call (cupy.cuda.Event,
cupy.cuda.get_elapsed_time): upload (host samples -> device), prefilter, query_upload,
evaluate, download, and readback for the coefficients.

CuPy fails with a CUDA error on some 1-D prefilters (a single line of 65,536 samples or
more); such a failure is answered as unsupported with the library's error, so the
harness records the case as skipped with the reason. Any other failure is an error.
"""
from __future__ import annotations

import cupy as cp
import cupyx.scipy.ndimage as cndi
import numpy as np

from adapter_arrays import EvaluateRequest, PrepareRequest, write_array
from adapter_errors import Unsupported

CUDA_ERRORS = (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError)


def hello() -> dict:
    versions = {"cupy": cp.__version__, "numpy": np.__version__}
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except CUDA_ERRORS as e:
        return {"available": False, "reason": f"no CUDA device ({e})", "versions": versions}
    if count == 0:
        return {"available": False, "reason": "no CUDA device", "versions": versions}
    device = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(device.id)
    versions.update({"cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
                     "cuda_driver": cp.cuda.runtime.driverGetVersion()})
    return {"available": True, "library": "cupy", "device": "gpu", "timer": "cupy.cuda.Event",
            "gpu": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
            "versions": versions}


class _Timed:
    """CUDA events around a block on the current stream; .seconds after the block."""

    def __enter__(self):
        self.start, self.end = cp.cuda.Event(), cp.cuda.Event()
        self.start.record()
        return self

    def __exit__(self, *exc):
        self.end.record()
        self.end.synchronize()
        self.seconds = cp.cuda.get_elapsed_time(self.start, self.end) / 1e3
        return False


def prepare(state: dict, req: PrepareRequest) -> dict:
    phases = {}
    host = req.natural(req.data)
    with _Timed() as t:
        device = cp.asarray(host)
    phases["upload"] = t.seconds
    if req.prefilter:
        coeffs = cp.empty_like(device)
        try:
            with _Timed() as t:
                src = device
                for axis in req.spatial_axes:
                    cndi.spline_filter1d(src, order=3, axis=axis, output=coeffs, mode=req.library_mode)
                    src = coeffs
        except CUDA_ERRORS as e:
            if req.dims == 1:
                raise Unsupported(f"cupyx.scipy.ndimage.spline_filter1d fails on this 1-D line "
                                  f"({req.extents[0]} samples): {e}") from e
            raise
        phases["prefilter"] = t.seconds
        del device
    else:
        coeffs = device
    state["prepared"] = req
    state["coeffs"] = coeffs.reshape((req.fields, *req.extents, req.channels))
    return phases


def read_coefficients(state: dict, path: str) -> dict:
    with _Timed() as t:
        host = cp.asnumpy(state["coeffs"])
    write_array(path, host)
    return {"readback": t.seconds}


def evaluate(state: dict, req: EvaluateRequest) -> dict:
    prepared: PrepareRequest = state["prepared"]
    planes = prepared.planes(state["coeffs"])  # contiguous copies made before timing
    values = cp.empty((len(planes), req.n), dtype=prepared.dtype)
    phases = {}
    with _Timed() as t:
        coords = cp.asarray(req.coords)
    phases["query_upload"] = t.seconds
    with _Timed() as t:
        for plane, out in zip(planes, values):
            cndi.map_coordinates(plane, coords, output=out, order=3, mode=prepared.library_mode, prefilter=False)
    phases["evaluate"] = t.seconds
    with _Timed() as t:
        host = cp.asnumpy(values)
    phases["download"] = t.seconds
    by_query = host.reshape(prepared.fields, prepared.channels, req.n).transpose(0, 2, 1)
    write_array(req.output, req.finish(np.ascontiguousarray(by_query)))
    return phases


def release() -> None:
    cp.get_default_memory_pool().free_all_blocks()
