"""Backend "cupy": the kernels of ``cuda_src/`` on an NVIDIA GPU through ``cupy.RawModule``.

Each ``.cu`` file is compiled once per process (NVRTC, options :data:`NVRTC_OPTIONS`; CuPy
adds the device's ``-arch``, ``-ftz=true`` and ``--device-as-default-execution-space``, and
keeps its own on-disk cache keyed by source and options). Local ``#include "..."`` lines are
expanded before compiling, so an edited header changes the source text and the cache key.

Arenas: the Core's arenas stay NumPy byte arrays (the NumPy backend, the fallbacks and the
inspection API read them directly), so a single instruction on a cupy Core copies GM, UB and
L1 to the device before the launch and the arenas it writes back after it. Batched launches
(:func:`launch_raw` / :func:`launch_device`, used by ``ptogpu.backend.launch.launch_batch``)
take cupy arrays as they are: device-resident arenas, nothing copied.
"""
from __future__ import annotations

import os
import threading

import numpy as np

from . import sources

NVRTC_OPTIONS = ("-std=c++17",)
"""Options we pass to NVRTC (``cupy.RawModule(options=...)``)."""


def nvrtc_command_line(arch: str) -> tuple[str, ...]:
    """The full option list NVRTC receives at run time for ``arch`` (e.g. ``"90"``): ours plus
    what CuPy's ``_compile_with_cache_cuda`` / ``compile_using_nvrtc`` add without jitify."""
    return NVRTC_OPTIONS + ("-ftz=true", f"-arch=compute_{arch}",
                            "--device-as-default-execution-space")


class CupyUnavailable(RuntimeError):
    """CuPy cannot run kernels here (the message says why)."""


_lock = threading.Lock()
_modules: dict[str, object] = {}
_fns: dict[str, object] = {}


def cupy_module():
    try:
        import cupy
    except Exception as e:  # ImportError, or a broken CUDA install raising at import
        raise CupyUnavailable(f"cupy does not import: {type(e).__name__}: {e}") from None
    return cupy


def _no_device(e: Exception) -> str:
    """Why no device answers, in a user's words: without an NVIDIA driver the CUDA runtime says
    "driver version is insufficient", which reads like an upgrade to do, not a missing GPU."""
    import glob
    text = f"{type(e).__name__}: {e}"
    driver = bool(glob.glob("/dev/nvidia[0-9]*")) or os.path.exists("/proc/driver/nvidia/version")
    if not driver and ("InsufficientDriver" in text or "NoDevice" in text or "cudaErrorInitializationError" in text):
        return f"no GPU (no NVIDIA driver or device on this machine; the CUDA runtime says: {text})"
    return f"no CUDA device answers: {text}"


def available() -> tuple[bool, str]:
    """(usable, reason): cupy imports and a CUDA device answers."""
    try:
        cupy = cupy_module()
        n = cupy.cuda.runtime.getDeviceCount()
    except CupyUnavailable as e:
        return False, str(e)
    except Exception as e:
        return False, _no_device(e)
    if n < 1:
        return False, "no GPU: the CUDA runtime sees no device"
    try:
        name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
        name = name.decode() if isinstance(name, bytes) else name
    except Exception:
        name = "CUDA device"
    return True, f"cupy {cupy.__version__} on {name}"


def module(filename: str = "mgather.cu"):
    """The compiled RawModule of ``cuda_src/filename`` (compiled once per process)."""
    with _lock:
        mod = _modules.get(filename)
        if mod is None:
            cupy = cupy_module()
            code = sources.expanded(sources.source_dir() / filename)
            mod = cupy.RawModule(code=code, options=NVRTC_OPTIONS, backend="nvrtc")
            _modules[filename] = mod
        return mod


def _fn(kernel: str, filename: str | None = None):
    f = _fns.get(kernel)
    if f is None:
        if filename is None:
            from .sources import kernel_file
            filename = kernel_file(kernel)
        f = module(filename).get_function(kernel)
        _fns[kernel] = f
    return f


def _is_host(a) -> bool:
    return isinstance(a, np.ndarray)


def launch_raw(kernel: str, block: tuple[int, int, int], n_inst: int, arenas: dict,
               params, *, prm_stride: int = 0, passes: int = 1, grid: int | None = None,
               writes=("gm", "ub", "l1")):
    """Launch over ``n_inst`` instances, as ``native_backend.launch_raw``. An arena or the
    parameter array given as a cupy array stays on the device (device-resident batches: nothing
    is copied); a NumPy array is copied in before the first pass and, for the spaces named in
    ``writes``, copied back after the last. Returns the fault records as a NumPy array (for
    device-resident callers: :func:`launch_device` keeps them on the device)."""
    cupy = cupy_module()
    d_fault = launch_device(kernel, block, n_inst, arenas, params, prm_stride=prm_stride,
                            passes=passes, grid=grid, writes=writes)
    return cupy.asnumpy(d_fault)


def launch_device(kernel, block, n_inst, arenas, params, *, prm_stride=0, passes=1, grid=None,
                  writes=("gm", "ub", "l1")):
    """:func:`launch_raw` returning the fault records as a cupy array (left on the device)."""
    cupy = cupy_module()
    fn = _fn(kernel)
    words = sources.enum_values("mgather.cu")["FAULT_WORDS"]
    d_fault = cupy.full((max(n_inst, 0), words), np.uint64(0xFFFFFFFFFFFFFFFF), dtype=cupy.uint64)
    if n_inst <= 0:
        return d_fault
    d_prm = cupy.asarray(np.ascontiguousarray(params, np.int64)) if _is_host(params) else params
    args, back = [], []
    for k in ("gm", "ub", "l1"):
        buf, size, stride = arenas[k]
        span = max((n_inst - 1) * int(stride) + int(size), 1)
        if _is_host(buf):
            d = cupy.asarray(buf[:span]) if buf.size else cupy.asarray(np.zeros(1, np.uint8))
            if k in writes and size:
                back.append((buf, d, span))
        else:
            d = buf
        args += [d, np.int64(size), np.int64(stride)]
    g = n_inst if grid is None else max(1, min(int(grid), n_inst))
    for p in range(passes):
        fn((g,), tuple(block), (*args, d_prm, np.int64(prm_stride), d_fault, np.int64(n_inst),
                                np.int32(p)))
    # A faulted instance wrote nothing, so copying back is right whatever the records say.
    for buf, d, span in back:
        buf[:span] = cupy.asnumpy(d[:span])
    return d_fault
