"""Arrays as the caller gave them: where they live, the caller's stream, and new arrays of
the caller's type on the caller's device. NumPy arrays (and anything NumPy reads) are host
arrays; an object whose `__dlpack_device__` names a CUDA device is a device array, used in
place. CuPy and PyTorch are known by name; any other DLPack producer works through the
array API (`__array_namespace__`) on the legacy default stream.

A device call's Python is a good part of its time on a small array, so what depends only
on the array's type (its library, that library's functions) is looked up once per type
(`producer`), and the hot path asks the array only for its device."""
from __future__ import annotations

from typing import Any

import numpy as np

# DLPack device types (dlpack.h) of memory a kernel reads: CUDA device and managed memory.
_CUDA_DEVICES = (2, 13)
# DLPack's stream numbers for CUDA: 1 is the legacy default stream (0 is not allowed).
_LEGACY_DEFAULT_STREAM = 1


def cuda_device(a: Any) -> int | None:
    """The CUDA device index of a device array, None for a host array."""
    if isinstance(a, np.ndarray):
        return None
    where = getattr(a, "__dlpack_device__", None)
    if where is None:
        return None
    kind, index = where()
    return int(index) if int(kind) in _CUDA_DEVICES else None


def _library(a: Any) -> str:
    return type(a).__module__.split(".")[0]


# Libraries whose current stream is known (Producer.stream): their capsules need no
# ordering for work on it (capsule_order).
_KNOWN_STREAMS = ("cupy", "torch")


class Producer:
    """What the module does with the device arrays of one type: the caller's current stream,
    a new array of that type, and the address of an array the module made. This one is any
    DLPack producer's (the array API; the legacy default stream)."""
    knows_stream = False

    def stream(self, a: Any, device: int) -> int:
        """The caller's current stream on `device` (a's), as a cudaStream_t value."""
        return 0

    def empty(self, a: Any, shape: tuple[int, ...], device: int) -> Any:
        """A new C-order array of a's type and dtype on `device` (a's)."""
        namespace = a.__array_namespace__()
        return namespace.empty(shape, dtype=a.dtype, device=a.device)

    def address(self, a: Any) -> int | None:
        """The device address of an array `empty` made, or None where the type has no such
        attribute (its capsule is used then)."""
        return None


class _CuPy(Producer):
    knows_stream = True

    def __init__(self) -> None:
        import cupy
        self._cupy = cupy
        self._current_stream = cupy.cuda.get_current_stream
        self._current_device = cupy.cuda.runtime.getDevice

    def stream(self, a: Any, device: int) -> int:
        try:  # the device's current stream without making the device current (a context switch per call)
            return int(self._current_stream(device).ptr)
        except TypeError:  # a CuPy whose get_current_stream takes no device
            with a.device:
                return int(self._current_stream().ptr)

    def empty(self, a: Any, shape: tuple[int, ...], device: int) -> Any:
        if self._current_device() == device:
            return self._cupy.empty(shape, dtype=a.dtype)
        with self._cupy.cuda.Device(device):
            return self._cupy.empty(shape, dtype=a.dtype)

    def address(self, a: Any) -> int | None:
        return int(a.data.ptr)


class _Torch(Producer):
    knows_stream = True

    def __init__(self) -> None:
        import torch
        self._torch = torch

    def stream(self, a: Any, device: int) -> int:
        return int(self._torch.cuda.current_stream(a.device).cuda_stream)

    def empty(self, a: Any, shape: tuple[int, ...], device: int) -> Any:
        return self._torch.empty(shape, dtype=a.dtype, device=a.device)

    def address(self, a: Any) -> int | None:
        return int(a.data_ptr())


_PRODUCERS: dict[type, Producer] = {}


def producer(a: Any) -> Producer:
    """The Producer of a device array's type (made on the type's first call)."""
    found = _PRODUCERS.get(type(a))
    if found is None:
        library = _library(a)
        found = _CuPy() if library == "cupy" else _Torch() if library == "torch" else Producer()
        _PRODUCERS[type(a)] = found
    return found


def current_stream(a: Any) -> int:
    """The caller's current stream on a's device, as a cudaStream_t value (0: legacy default)."""
    return producer(a).stream(a, cuda_device(a))


def stream_value(stream: Any) -> int:
    """A stream given by the caller: a cudaStream_t value, a CuPy stream (.ptr) or a PyTorch
    stream (.cuda_stream)."""
    for attribute in ("ptr", "cuda_stream"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    return int(stream)


def dlpack(a: Any, order: int) -> Any:
    """a's DLPack capsule; `order` is the capsule's stream argument from `capsule_order`."""
    return a.__dlpack__(stream=order)


def capsule_order(a: Any, stream: int, given: bool) -> int:
    """The stream argument of a's capsules for work on `stream`: -1 (no synchronisation) when
    the work goes on the producer's own current stream, where its pending work on a already
    lies before ours; otherwise `stream` (1 for the legacy default), so that the producer
    orders its pending work before that stream. An unknown producer's current stream is not
    known, so it is always asked to order."""
    if not given and _library(a) in _KNOWN_STREAMS:
        return -1
    return stream if stream else _LEGACY_DEFAULT_STREAM


def empty(a: Any, shape: tuple[int, ...]) -> Any:
    """A new C-order array of a's type, dtype and device."""
    return producer(a).empty(a, shape, cuda_device(a))


_DTYPE_NAMES: dict[Any, str] = {}


def dtype_name(a: Any) -> str:
    """'float32', 'float64', ... for NumPy, CuPy and PyTorch dtypes alike (remembered per
    dtype: NumPy forms a dtype's name in Python, microseconds a call)."""
    dtype = a.dtype
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = str(dtype).rsplit(".", 1)[-1]
    return name


def host_array(a: Any, what: str) -> np.ndarray:
    """A C-order float32 or float64 NumPy array of a's values: integers and float16 are
    widened exactly (integers to float64, as the CLI reads them; 64-bit magnitudes above
    2^53 are rounded); complex, bool and other dtypes are refused."""
    array = np.asarray(a)
    kind, size = array.dtype.kind, array.dtype.itemsize
    if kind == "f" and size in (4, 8):
        pass
    elif kind == "f" and size == 2:
        array = array.astype(np.float32)
    elif kind in "iu":
        array = array.astype(np.float64)
    else:
        raise TypeError(f"{what} has dtype {array.dtype}; splinebench takes float32, float64, float16 or "
                        "integer arrays")
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    return array if array.flags.c_contiguous else array.copy(order="C")  # ascontiguousarray makes 0-d 1-d
