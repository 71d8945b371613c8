"""splinebench: cubic B-spline prefilter and interpolation in 1 to 6 dimensions, with the
suite's implementations, each checked against the double-precision oracle by the suite.

The functions follow ``scipy.ndimage``: C order, sample ``k`` at coordinate ``k``,
coordinates shaped ``(D, ...)``, SciPy's argument names. Modes: ``'mirror'`` (SciPy
``'mirror'``), ``'half'`` (SciPy ``'reflect'`` = ``'grid-mirror'``, accepted too) and
``'periodic'`` (SciPy ``'grid-wrap'``, accepted too); each exact for every length.

NumPy arrays run on a CPU implementation (or are copied to a GPU one when ``impl`` names
it); CUDA arrays (CuPy, PyTorch, any ``__dlpack__`` producer) are used in place on their
device, on the caller's current stream, and results come back as the caller's array type.

>>> import numpy as np, splinebench
>>> f = np.random.default_rng(0).standard_normal((32, 24))
>>> c = splinebench.spline_filter(f)                      # float64: the f64 oracle
>>> x = np.array([[3.5, 10.25], [7.0, 0.5]])              # (D, n)
>>> splinebench.map_coordinates(c, x, prefilter=False).shape
(2,)
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _arrays, _core
from ._core import Error, Unsupported

__all__ = ["spline_filter", "map_coordinates", "implementations", "tolerance", "Error", "Unsupported"]

# SciPy's names of the modes that are the same extension; splinebench's own pass through.
_SCIPY_MODES = {"reflect": "half", "grid-mirror": "half", "grid-wrap": "periodic"}
# What runs when `impl` is not given, by where the data are and the dtype they arrive in.
_DEFAULT_IMPL = {("host", "float32"): "cpu_simd", ("host", "float64"): "reference",
                 ("cuda", "float32"): "gpu_flex", ("cuda", "float64"): "gpu_f64"}
_F64_PATH: dict[str, bool] = {}


def _check_order(order: int) -> None:
    if order != 3:
        raise ValueError(f"splinebench computes cubic splines: order must be 3, got {order}")


def _computes_in_f64(impl: str) -> bool:
    """Whether `impl` has a double-precision path (reference, gpu_f64); an unknown name
    raises the registry's error, which lists the known ones."""
    f64 = _F64_PATH.get(impl)
    if f64 is None:
        f64 = _F64_PATH[impl] = bool(_core.describe(impl)["f64"])
    return f64


def implementations() -> list[dict]:
    """The registry: every implementation with its capabilities and whether it can run here.

    Each entry is a dict: ``name``, ``device`` ('cpu' or 'gpu'), ``available`` and, when
    not, ``reason``; ``description``, ``arithmetic`` ('f32', 'f64'), ``evaluation``,
    ``dims`` (min, max), ``channels``, ``modes``, ``field_batches``, ``threads`` (honours
    ``threads=``), ``f64`` (float64 in and out), ``device_arrays`` (takes CUDA arrays in
    place; ``device_arrays_f64`` for float64 ones), ``test_only``.

    >>> import splinebench
    >>> [r["name"] for r in splinebench.implementations() if r["available"] and r["device"] == "cpu"][:2]
    ['reference', 'cpu_scalar']
    """
    return _core.implementations()


def tolerance(impl: str, shape: tuple[int, ...], channels: int = 1) -> dict:
    """The documented accuracy of `impl` against the f64 oracle on a grid of `shape`, as the
    suite's records and conformance test judge it: ``prefilter_rel_l2`` (||c - c_ref|| /
    ||c_ref||), ``interp_max_rel_to_maxf`` (max |s - s_ref| / max |f|) and ``basis``.

    >>> import splinebench
    >>> splinebench.tolerance("cpu_scalar", (64, 64))["prefilter_rel_l2"] < 1e-5
    True
    """
    return _core.tolerance(impl, list(shape), channels)


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _where(a: Any) -> int | None:
    return None if type(a) is np.ndarray else _arrays.cuda_device(a)


def _host(a: Any, what: str) -> np.ndarray:
    """a as a C-order float32 or float64 NumPy array; as it is when it already is one."""
    if type(a) is np.ndarray and (a.dtype == _F32 or a.dtype == _F64) and a.flags.c_contiguous:
        return a
    return _arrays.host_array(a, what)


def _device_stream(producer: _arrays.Producer, a: Any, device: int, stream: Any) -> tuple[int, int]:
    """The stream the work goes on and its capsules' stream argument (_arrays.capsule_order:
    -1 on the producer's own current stream, else that stream, 1 for the legacy default)."""
    if stream is None:
        s = producer.stream(a, device)
        return s, -1 if producer.knows_stream else (s or 1)
    s = _arrays.stream_value(stream)
    return s, s or 1


_size = math.prod  # elements of a shape (1 for ()); C, not a Python loop, on the hot path


def _prefilter_device(producer: _arrays.Producer, name: str, input: Any, out: Any, shape: tuple[int, ...], order: int,
                      mode: str, channels: int, batch: bool, threads: int, s: int) -> None:
    """input's coefficients into `out`, which this call made: by its address on the
    producer's current stream (order -1), through its capsule otherwise."""
    at = producer.address(out) if order == -1 else None
    if at is None:
        _core.prefilter(name, input.__dlpack__(stream=order), out.__dlpack__(stream=order), mode, channels, batch,
                        threads, s)
    else:
        _core.prefilter_at(name, input.__dlpack__(stream=-1), at, _size(shape), mode, channels, batch, threads, s)


def spline_filter(input: Any, order: int = 3, *, mode: str = "mirror", impl: str | None = None, threads: int = 0,
                  channels: int = 1, batch: bool = False, stream: Any = None) -> Any:
    """Cubic B-spline coefficients of `input` (the interpolating spline: s(k) = input[k]), as
    ``scipy.ndimage.spline_filter(input, order=3, mode=mode)``.

    input: the samples, C order, 1 to 6 grid axes; with ``channels`` C = 2 or 4 the last
        axis holds the channels, with ``batch=True`` the first axis counts independent fields.
    mode: 'mirror', 'half' ('reflect', 'grid-mirror') or 'periodic' ('grid-wrap').
    impl: an implementation of ``implementations()``; by default 'cpu_simd' for float32
        and 'reference' (the f64 oracle) for float64 NumPy input, 'gpu_flex' for float32
        and 'gpu_f64' for float64 device arrays.
    threads: for implementations that use threads (0: the implementation's default).
    stream: device arrays only: the stream to work on (default: the caller's current one).

    Returns float64 from an implementation with a double path (float32 when the input is
    float32: computed in double, rounded once), float32 from the others; NumPy for NumPy
    input, the input's own type and device for device arrays.

    >>> import numpy as np, splinebench
    >>> c = splinebench.spline_filter(np.arange(5.0), mode="half")
    >>> bool(np.allclose(splinebench.map_coordinates(c, [[1.0, 3.0]], mode="half", prefilter=False), [1.0, 3.0]))
    True
    """
    # Inlined checks: on a small array the call's Python is a good part of its time.
    if order != 3:
        _check_order(order)
    mode = _SCIPY_MODES.get(mode, mode)
    if type(input) is not np.ndarray:
        device = _arrays.cuda_device(input)
        if device is not None:
            producer = _arrays.producer(input)
            name = impl or _DEFAULT_IMPL.get(("cuda", _arrays.dtype_name(input)), "gpu_flex")
            s, order = _device_stream(producer, input, device, stream)
            shape = tuple(input.shape)
            out = producer.empty(input, shape, device)
            _prefilter_device(producer, name, input, out, shape, order, mode, channels, batch, threads, s)
            return out
    a = _host(input, "the input")
    name = impl or _DEFAULT_IMPL["host", a.dtype.name]
    real = _F64 if _computes_in_f64(name) else _F32
    work = a if a.dtype == real else a.astype(real)
    out = np.empty_like(work)
    _core.prefilter(name, work, out, mode, channels, batch, threads, 0)
    return out.astype(_F32) if real is _F64 and a.dtype == _F32 else out


def map_coordinates(input: Any, coordinates: Any, *, order: int = 3, mode: str = "mirror", prefilter: bool = True,
                    impl: str | None = None, threads: int = 0, channels: int = 1, batch: bool = False,
                    stream: Any = None) -> Any:
    """The cubic spline of `input` at `coordinates`, as ``scipy.ndimage.map_coordinates(input,
    coordinates, order=3, mode=mode, prefilter=prefilter)``.

    input: samples (``prefilter=True``) or coefficients (``prefilter=False``, e.g. from
        ``spline_filter``), laid out as for ``spline_filter`` (channels, batch).
    coordinates: shape (D, ...): row d holds the coordinates along grid axis d. Outside
        [0, N-1] the mode's extension is evaluated; a NaN or infinite coordinate gives NaN.
    Other arguments as for ``spline_filter``. Implementations computing in float32 use
    float32 coordinates.

    Returns shape ``coordinates.shape[1:]``, with the field axis first under ``batch=True``
    and the channel axis last when C > 1; dtypes as for ``spline_filter``. Device arrays:
    input and coordinates on one device, the result of their type there.

    >>> import numpy as np, scipy.ndimage, splinebench
    >>> f = np.random.default_rng(0).standard_normal((30, 40))
    >>> x = np.random.default_rng(1).uniform(-5, 45, (2, 1000))
    >>> s = splinebench.map_coordinates(f, x, mode="mirror")
    >>> bool(np.allclose(s, scipy.ndimage.map_coordinates(f, x, order=3, mode="mirror"), atol=1e-12))
    True
    """
    if order != 3:
        _check_order(order)
    mode = _SCIPY_MODES.get(mode, mode)
    if type(input) is not np.ndarray:
        device = _arrays.cuda_device(input)
        if device is not None:
            return _map_device(input, device, coordinates, mode, prefilter, impl, threads, channels, batch, stream)
    a = _host(input, "the samples" if prefilter else "the coefficients")
    name = impl or _DEFAULT_IMPL["host", a.dtype.name]
    real = _F64 if _computes_in_f64(name) else _F32
    work = a if a.dtype == real else a.astype(real)
    x = _host(coordinates, "the coordinates")
    x = x if x.dtype == real else x.astype(real)
    out = np.empty(_values_shape(a.shape, x.shape, channels, batch), dtype=real)
    _core.evaluate(name, work, x, out, mode, prefilter, channels, batch, threads, 0)
    return out.astype(_F32) if real is _F64 and a.dtype == _F32 else out


def _values_shape(field: tuple[int, ...], coords: tuple[int, ...], channels: int, batch: bool) -> tuple[int, ...]:
    """(fields,) + coords.shape[1:] + (channels,), each part only where it applies; shapes
    the C++ side refuses (its message) give any shape here."""
    return ((field[0],) if batch and field else ()) + tuple(coords[1:]) + ((channels,) if channels > 1 else ())


def _map_device(input: Any, device: int, coordinates: Any, mode: str, prefilter: bool, impl: str | None,
                threads: int, channels: int, batch: bool, stream: Any) -> Any:
    producer = _arrays.producer(input)
    name = impl or _DEFAULT_IMPL.get(("cuda", _arrays.dtype_name(input)), "gpu_flex")
    if _where(coordinates) is None:
        raise Error(f"the input is on cuda:{device} but the coordinates on the host; put both on one device")
    s, order = _device_stream(producer, input, device, stream)
    coeffs = input
    if prefilter:
        shape = tuple(input.shape)
        coeffs = producer.empty(input, shape, device)
        _prefilter_device(producer, name, input, coeffs, shape, order, mode, channels, batch, threads, s)
    shape = _values_shape(tuple(input.shape), tuple(coordinates.shape), channels, batch)
    out = producer.empty(input, shape, device)
    at = producer.address(out) if order == -1 else None
    if at is None:
        _core.evaluate(name, coeffs.__dlpack__(stream=order), coordinates.__dlpack__(stream=order),
                       out.__dlpack__(stream=order), mode, False, channels, batch, threads, s)
    else:
        _core.evaluate_at(name, coeffs.__dlpack__(stream=-1), coordinates.__dlpack__(stream=-1), at, _size(shape), mode,
                          channels, batch, threads, s)
    return out
