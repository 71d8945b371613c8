"""The Python module on CUDA arrays: CuPy and PyTorch arrays are used in place on their
device, on the caller's current stream, and the results come back as the caller's type on
that device. Every implementation with a device-array path (`device_arrays` in
`splinebench.implementations()`) against its own host path on the same data (the same
kernels: equal to the last bit) and so against the oracle; stream semantics: the work
is ordered after a slow kernel that writes the input on a non-default, non-blocking stream
(work on any other stream would read the input before it is written), and calls on two
streams at once keep apart.

Skipped without a CUDA device, and each library without its package."""
import numpy as np
import pytest

MODES = ("mirror", "half", "periodic")
SHAPES = {1: (37,), 2: (9, 4), 3: (7, 2, 5), 4: (5, 3, 4, 3), 5: (4, 3, 1, 3, 2), 6: (3, 2, 3, 2, 2, 3)}


def device_implementations(sb):
    rows = [r for r in sb.implementations() if r["device_arrays"]]
    runnable = [r for r in rows if r["available"]]
    if not runnable:
        reasons = "; ".join(f"{r['name']}: {r['reason']}" for r in rows) or "none built (no CUDA compiler)"
        pytest.skip(f"no implementation with a device-array path can run here ({reasons})")
    return runnable


@pytest.fixture(params=["cupy", "torch"])
def library(request, sb):
    device_implementations(sb)
    if request.param == "cupy":
        cupy = pytest.importorskip("cupy", reason="CuPy is not installed (./run_all.sh installs it with a device)")
        return Library("cupy", cupy.asarray, cupy.asnumpy, cupy.ndarray)
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return Library("torch", lambda a: torch.from_numpy(np.ascontiguousarray(a)).cuda(),
                   lambda t: t.cpu().numpy(), torch.Tensor)


class Library:
    def __init__(self, name, to_device, to_host, array_type):
        self.name, self.to_device, self.to_host, self.array_type = name, to_device, to_host, array_type


def dtype_of(row):
    return np.float64 if row["device_arrays_f64"] else np.float32


def test_device_results_equal_the_host_path(sb, library):
    rng = np.random.default_rng(5)
    for row in device_implementations(sb):
        name, real = row["name"], dtype_of(row)
        for dims, shape in SHAPES.items():
            for mode in MODES:
                f = rng.standard_normal((2,) + shape + (2,)).astype(real)
                x = rng.uniform(-3, max(shape) + 3, (dims, 50)).astype(real)
                x[0, ::7] = np.nan
                host_c = sb.spline_filter(f, mode=mode, impl=name, channels=2, batch=True)
                host_s = sb.map_coordinates(f, x, mode=mode, impl=name, channels=2, batch=True)
                c = sb.spline_filter(library.to_device(f), mode=mode, impl=name, channels=2, batch=True)
                s = sb.map_coordinates(library.to_device(f), library.to_device(x), mode=mode, impl=name, channels=2,
                                       batch=True)
                assert isinstance(c, library.array_type) and isinstance(s, library.array_type)
                assert np.array_equal(library.to_host(c), host_c), (name, dims, mode)
                assert np.array_equal(library.to_host(s), host_s, equal_nan=True), (name, dims, mode)
                s2 = sb.map_coordinates(c, library.to_device(x), mode=mode, prefilter=False, impl=name, channels=2,
                                        batch=True)
                assert np.array_equal(library.to_host(s2), host_s, equal_nan=True), (name, dims, mode)


def test_work_is_on_the_callers_stream(sb, library):
    """A slow kernel on a non-blocking stream writes the input; the module, called right
    after on that stream without synchronising, must see the written values."""
    rng = np.random.default_rng(6)
    for row in device_implementations(sb):
        name, real = row["name"], dtype_of(row)
        f = rng.standard_normal((256, 256)).astype(real)
        want = sb.spline_filter(2 * f, impl=name)
        if library.name == "cupy":
            import cupy
            a = cupy.asarray(f)
            cupy.cuda.Device().synchronize()
            stream = cupy.cuda.Stream(non_blocking=True)
            with stream:
                _spin_cupy(cupy)
                a *= 2
                c = sb.spline_filter(a, impl=name)
            stream.synchronize()
            got = cupy.asnumpy(c)
        else:
            import torch
            a = torch.from_numpy(f).cuda()
            torch.cuda.synchronize()
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                torch.cuda._sleep(200_000_000)
                a.mul_(2)
                c = sb.spline_filter(a, impl=name)
            stream.synchronize()
            got = c.cpu().numpy()
        assert np.array_equal(got, want), f"{name}: the work did not follow the caller's stream"


def test_a_named_stream_waits_for_the_producers_pending_work(sb, library):
    """The input is written by a slow kernel on the producer's current stream; the module,
    told to work on another non-blocking stream (stream=), must order the input's capsule
    after that pending work and so see the written values."""
    rng = np.random.default_rng(7)
    for row in device_implementations(sb):
        name, real = row["name"], dtype_of(row)
        f = rng.standard_normal((256, 256)).astype(real)
        want = sb.spline_filter(2 * f, impl=name)
        if library.name == "cupy":
            import cupy
            a = cupy.asarray(f)
            cupy.cuda.Device().synchronize()
            producer, ours = cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
            with producer:
                _spin_cupy(cupy)
                a *= 2
                c = sb.spline_filter(a, impl=name, stream=ours)
            ours.synchronize()
            got = cupy.asnumpy(c)
            producer.synchronize()
        else:
            import torch
            a = torch.from_numpy(f).cuda()
            torch.cuda.synchronize()
            producer, ours = torch.cuda.Stream(), torch.cuda.Stream()
            with torch.cuda.stream(producer):
                torch.cuda._sleep(200_000_000)
                a.mul_(2)
                c = sb.spline_filter(a, impl=name, stream=ours)
            ours.synchronize()
            got = c.cpu().numpy()
            producer.synchronize()
        assert np.array_equal(got, want), f"{name}: the work on the named stream did not wait for the input"


def test_calls_on_two_streams_at_once_share_nothing(sb, library):
    """Calls enqueued on two non-blocking streams, no synchronisation in between, run on the
    device at the same time; each must give its own field's coefficients to the last bit
    (a device path that kept one ticket counter or temporary buffer for all streams would
    mix them). 3-D fields: gpu_flex's plan has two passes there and needs its buffer."""
    rng = np.random.default_rng(8)
    for row in device_implementations(sb):
        name, real = row["name"], dtype_of(row)
        fields = [rng.standard_normal((48, 40, 36)).astype(real) for _ in range(2)]
        want = [sb.spline_filter(f, impl=name) for f in fields]
        outs = []
        if library.name == "cupy":
            import cupy
            arrays = [cupy.asarray(f) for f in fields]
            streams = [cupy.cuda.Stream(non_blocking=True) for _ in fields]
            cupy.cuda.Device().synchronize()
            for _ in range(8):
                for i, stream in enumerate(streams):
                    with stream:
                        outs.append((i, sb.spline_filter(arrays[i], impl=name)))
            for stream in streams:
                stream.synchronize()
        else:
            import torch
            arrays = [torch.from_numpy(f).cuda() for f in fields]
            streams = [torch.cuda.Stream() for _ in fields]
            torch.cuda.synchronize()
            for _ in range(8):
                for i, stream in enumerate(streams):
                    with torch.cuda.stream(stream):
                        outs.append((i, sb.spline_filter(arrays[i], impl=name)))
            for stream in streams:
                stream.synchronize()
        for i, c in outs:
            assert np.array_equal(library.to_host(c), want[i]), f"{name}: the streams' calls mixed their work"


def _spin_cupy(cupy):
    """About 0.1 s of one thread spinning on the current stream."""
    kernel = cupy.RawKernel(r"""
    extern "C" __global__ void spin(long long cycles) {
      long long start = clock64();
      while (clock64() - start < cycles) {}
    }""", "spin")
    kernel((1,), (1,), (np.int64(200_000_000),))


def test_device_arrays_on_a_host_only_implementation_say_so(sb, library):
    f = library.to_device(np.zeros((5, 4), np.float32))
    with pytest.raises(sb.Error, match="takes host arrays only"):
        sb.spline_filter(f, impl="cpu_scalar")
