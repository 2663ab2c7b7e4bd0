"""Backend "cupy": the kernels of ``cuda_src/`` on an NVIDIA GPU through ``cupy.RawModule``.

Each ``.cu`` file is compiled once per process (NVRTC, options :data:`NVRTC_OPTIONS`; CuPy
adds the device's ``-arch``, ``-ftz=true`` and ``--device-as-default-execution-space``, and
keeps its own on-disk cache keyed by source and options). Local ``#include "..."`` lines are
expanded before compiling, so an edited header changes the source text and the cache key.

Arenas: the Core's arenas stay NumPy byte arrays (the NumPy backend and the inspection API read
them directly). For now each launch mirrors them: GM, UB and L1 are copied to the device
before the call and the arenas the instruction writes are copied back after it. Correct, and
cheap for single instructions; batched launches (many instances per launch, per-instance
strides already in the kernel signature) are where device-resident arenas will pay off.
"""
from __future__ import annotations

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


def _cupy():
    try:
        import cupy
    except Exception as e:  # ImportError, or a broken CUDA install raising at import
        raise CupyUnavailable(f"cupy does not import: {type(e).__name__}: {e}") from None
    return cupy


def available() -> tuple[bool, str]:
    """(usable, reason): cupy imports and a CUDA device answers."""
    try:
        cupy = _cupy()
        n = cupy.cuda.runtime.getDeviceCount()
    except CupyUnavailable as e:
        return False, str(e)
    except Exception as e:
        return False, f"no CUDA device answers: {type(e).__name__}: {e}"
    if n < 1:
        return False, "no CUDA device answers: device count is 0"
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
            cupy = _cupy()
            code = sources.expanded(sources.source_dir() / filename)
            mod = cupy.RawModule(code=code, options=NVRTC_OPTIONS, backend="nvrtc")
            _modules[filename] = mod
        return mod


def _fn(kernel: str, filename: str = "mgather.cu"):
    f = _fns.get(kernel)
    if f is None:
        f = module(filename).get_function(kernel)
        _fns[kernel] = f
    return f


def launch(core, kernel: str, block: tuple[int, int, int], params: np.ndarray, *,
           passes: int = 1, n_inst: int = 1, writes: tuple[str, ...] = ("ub", "l1")) -> np.ndarray:
    """Run ``kernel`` once per pass over ``n_inst`` instances; arenas mirrored (see module doc).
    Returns the fault records, shape (n_inst, FAULT_WORDS) uint64."""
    cupy = _cupy()
    fn = _fn(kernel)
    words = sources.enum_values("mgather.cu")["FAULT_WORDS"]
    d_fault = cupy.full((n_inst, words), np.uint64(0xFFFFFFFFFFFFFFFF), dtype=cupy.uint64)
    d_prm = cupy.asarray(np.ascontiguousarray(params, np.int64))
    arenas = {"gm": core.gm, "ub": core.ub, "l1": core.l1}
    dev = {k: cupy.asarray(a._buf[: max(a.size, 1)]) for k, a in arenas.items()}
    args = []
    for k in ("gm", "ub", "l1"):
        args += [dev[k], np.int64(arenas[k].size), np.int64(0)]
    for p in range(passes):
        fn((n_inst,), tuple(block), (*args, d_prm, np.int64(0), d_fault, np.int64(n_inst),
                                     np.int32(p)))
    # A faulted instance wrote nothing, so copying back is right whatever the records say.
    for k in writes:
        a = arenas[k]
        if a.size:
            a._buf[: a.size] = cupy.asnumpy(dev[k][: a.size])
    return cupy.asnumpy(d_fault)
