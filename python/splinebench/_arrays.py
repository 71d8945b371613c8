"""Arrays as the caller gave them: where they live, the caller's stream, and new arrays of
the caller's type on the caller's device. NumPy arrays (and anything NumPy reads) are host
arrays; an object whose `__dlpack_device__` names a CUDA device is a device array, used in
place. CuPy and PyTorch are known by name; any other DLPack producer works through the
array API (`__array_namespace__`) on the legacy default stream."""
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


def current_stream(a: Any) -> int:
    """The caller's current stream on a's device, as a cudaStream_t value (0: legacy default)."""
    library = _library(a)
    if library == "cupy":
        import cupy
        try:  # the device's current stream without making the device current (a context switch per call)
            return int(cupy.cuda.get_current_stream(a.device.id).ptr)
        except TypeError:  # a CuPy whose get_current_stream takes no device
            with a.device:
                return int(cupy.cuda.get_current_stream().ptr)
    if library == "torch":
        import torch
        return int(torch.cuda.current_stream(a.device).cuda_stream)
    return 0


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
    if not given and _library(a) in ("cupy", "torch"):
        return -1
    return stream if stream else _LEGACY_DEFAULT_STREAM


def empty(a: Any, shape: tuple[int, ...]) -> Any:
    """A new C-order array of a's type, dtype and device."""
    library = _library(a)
    if library == "cupy":
        import cupy
        with a.device:
            return cupy.empty(shape, dtype=a.dtype)
    if library == "torch":
        import torch
        return torch.empty(shape, dtype=a.dtype, device=a.device)
    namespace = a.__array_namespace__()
    return namespace.empty(shape, dtype=a.dtype, device=a.device)


def dtype_name(a: Any) -> str:
    """'float32', 'float64', ... for NumPy, CuPy and PyTorch dtypes alike."""
    return str(a.dtype).rsplit(".", 1)[-1]


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
