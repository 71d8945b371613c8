"""Requests as data, arrays from the harness's files, and what the adapter does around a
library call so that its answers keep the harness's contract (README.md, "Contract"):
the mode names, NaN for non-finite coordinates, and huge coordinates folded first.

Arrays travel as raw C-order files (no header) that the harness creates, usually in
/dev/shm; the request gives the path, and shape and dtype follow from the request. The
adapter copies an input into memory it owns before timing anything (the harness
rewrites the file for the next request) and writes outputs into the file the harness
sized for them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from adapter_errors import AdapterError

# The harness's boundary modes and the scipy.ndimage names of the same extensions.
# 'half' (f[-1-k] = f[k]) is SciPy's 'reflect', also spelled 'grid-mirror'; the two
# names run the same code in scipy.ndimage (tests/python/test_peers_scipy.py checks
# both against the exact solve). 'periodic' is 'grid-wrap': SciPy's 'wrap' has period
# N - 1 for interpolation and is not the same extension.
SCIPY_MODES = {"mirror": "mirror", "half": "grid-mirror", "periodic": "grid-wrap"}

DTYPES = {"f32": np.float32, "f64": np.float64}

# Beyond 2^24 every float32 is an integer, so folding such a coordinate into one period
# of the extension is exact; SciPy's index arithmetic overflows near 2^63 and returns
# cval there, and CuPy's kernels convert to integers too. The fold happens outside the
# timed region and only when such a coordinate is present.
FOLD_ABOVE = 2.0**24


def period(mode: str, n: int) -> int:
    """Period of `mode`'s extension of a line of n samples (1 for a single sample)."""
    if n == 1:
        return 1
    return {"mirror": 2 * n - 2, "half": 2 * n, "periodic": n}[mode]


def _require(request: dict, key: str, kind):
    if key not in request:
        raise AdapterError(f"request lacks {key!r}")
    value = request[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise AdapterError(f"{key!r} must be {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def read_array(path: str, dtype, shape: tuple[int, ...]) -> np.ndarray:
    """A private copy of the raw file at `path` (exactly prod(shape) values)."""
    count = math.prod(shape)
    data = np.fromfile(path, dtype=dtype, count=count)
    if data.size != count:
        raise AdapterError(f"{path}: {data.size} values, expected {count}")
    return data.reshape(shape)


def write_array(path: str, values: np.ndarray) -> None:
    """Writes `values` (C order) into the harness's file at `path`, which it sized."""
    out = np.memmap(path, dtype=values.dtype, mode="r+", shape=values.shape)
    out[...] = values
    out.flush()
    del out


def output_path(request: dict) -> str:
    return _require(request, "output", str)


@dataclass
class PrepareRequest:
    extents: tuple[int, ...]
    fields: int
    channels: int
    dtype: type
    mode: str  # the harness's name
    prefilter: bool
    data: np.ndarray  # (fields, *extents, channels)

    @property
    def dims(self) -> int:
        return len(self.extents)

    @property
    def library_mode(self) -> str:
        return SCIPY_MODES[self.mode]

    def natural(self, array):
        """`array` (fields, *extents, channels) as a user would hold it: without the field
        axis when there is one field, without the channel axis when there is one channel
        (a 1-D signal stays a 1-D array; the libraries launch their kernels by shape)."""
        shape = ((self.fields,) if self.fields > 1 else ()) + self.extents + \
                ((self.channels,) if self.channels > 1 else ())
        return array.reshape(shape)

    @property
    def spatial_axes(self) -> range:
        """The axes of natural() that the prefilter runs along."""
        first = 1 if self.fields > 1 else 0
        return range(first, first + self.dims)

    def planes(self, coeffs):
        """coeffs (fields, *extents, channels) as one contiguous grid per (field, channel),
        field-major: what map_coordinates takes."""
        return [coeffs[f, ..., c] if self.channels == 1 else coeffs[f, ..., c].copy()
                for f in range(self.fields) for c in range(self.channels)]

    @classmethod
    def parse(cls, request: dict) -> "PrepareRequest":
        extents = tuple(_require(request, "shape", list))
        if not 1 <= len(extents) <= 6 or not all(isinstance(e, int) and e >= 1 for e in extents):
            raise AdapterError(f"shape must be 1..6 extents >= 1, got {list(extents)}")
        fields = _require(request, "fields", int)
        channels = _require(request, "channels", int)
        if fields < 1 or channels < 1:
            raise AdapterError(f"fields and channels must be >= 1, got {fields}, {channels}")
        dtype = DTYPES.get(_require(request, "dtype", str))
        if dtype is None:
            raise AdapterError(f"dtype must be one of {sorted(DTYPES)}, got {request['dtype']!r}")
        mode = _require(request, "mode", str)
        if mode not in SCIPY_MODES:
            raise AdapterError(f"mode must be one of {sorted(SCIPY_MODES)}, got {mode!r}")
        prefilter = _require(request, "prefilter", bool)
        data = read_array(_require(request, "input", str), dtype, (fields, *extents, channels))
        return cls(extents, fields, channels, dtype, mode, prefilter, data)


@dataclass
class EvaluateRequest:
    coords: np.ndarray       # (D, n), folded where huge
    non_finite: np.ndarray   # (n,) bool: a query with a NaN or infinite coordinate
    output: str

    @property
    def n(self) -> int:
        return self.coords.shape[1]

    @classmethod
    def parse(cls, request: dict, state: dict) -> "EvaluateRequest":
        prepared: PrepareRequest | None = state.get("prepared")
        if prepared is None:
            raise AdapterError("evaluate before prepare")
        n = _require(request, "n", int)
        if n < 0:
            raise AdapterError(f"n must be >= 0, got {n}")
        coords = read_array(_require(request, "coords", str), prepared.dtype, (prepared.dims, n))
        finite = np.isfinite(coords)
        non_finite = ~finite.all(axis=0)
        # Non-finite coordinates are answered NaN afterwards; 0 keeps the library's
        # index arithmetic defined meanwhile.
        if non_finite.any():
            coords[~finite] = 0
        huge = np.abs(coords) >= FOLD_ABOVE
        if huge.any():
            for d in range(prepared.dims):
                rows = huge[d]
                if rows.any():
                    p = period(prepared.mode, prepared.extents[d])
                    coords[d, rows] = np.mod(coords[d, rows].astype(np.float64), p).astype(coords.dtype)
        return cls(coords, non_finite, output_path(request))

    def finish(self, values: np.ndarray) -> np.ndarray:
        """values (fields, n, channels) with NaN at the non-finite queries."""
        if self.non_finite.any():
            values[:, self.non_finite, :] = np.nan
        return values
