"""A DLPack producer that claims CUDA device 0 for host memory: with the cudart stub
(libcudart.so.13 that does nothing), the module's device path runs its host code."""
import ctypes
import numpy as np

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]

class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]

class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]

class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]

_new = ctypes.pythonapi.PyCapsule_New
_new.restype = ctypes.py_object
_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

class _Namespace:
    @staticmethod
    def empty(shape, dtype=None, device=None):
        return FakeCuda(np.empty(shape, dtype=dtype))

class FakeCuda:
    def __init__(self, host):
        self.host = np.ascontiguousarray(host)
        self.shape = self.host.shape
        self.dtype = self.host.dtype
        self.device = 0
        n = self.host.ndim
        self._shape = (ctypes.c_int64 * max(n, 1))(*self.host.shape)
        m = DLManagedTensor()
        m.dl_tensor.data = self.host.ctypes.data
        m.dl_tensor.device = DLDevice(2, 0)
        m.dl_tensor.ndim = n
        m.dl_tensor.dtype = DLDataType(2, self.host.dtype.itemsize * 8, 1)
        m.dl_tensor.shape = self._shape
        m.dl_tensor.strides = None
        m.deleter = None
        self._managed = [m]

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None, **kw):
        m = DLManagedTensor()
        ctypes.pointer(m)[0] = self._managed[0]
        self._managed.append(m)  # kept alive with the array
        return _new(ctypes.addressof(m), b"dltensor", None)

    def __array_namespace__(self):
        return _Namespace
