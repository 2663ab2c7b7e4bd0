"""Backend "cupy": the kernels of ``cuda_src/`` on an NVIDIA GPU through ``cupy.RawModule``.

Each ``.cu`` file is compiled once (NVRTC, options :data:`NVRTC_OPTIONS`, for the device's
architecture) and kept in ptogpu's cache folder, keyed by source, options, architecture and
NVRTC version; later processes load it. Local ``#include "..."`` lines are expanded before
compiling, so an edited header changes the source text and the key. We call NVRTC
(``cupy.cuda.nvrtc``) and load the result with ``cupy.RawModule(path=)`` rather than compile
through ``cupy.RawModule(code=)``, which appends ``-ftz=true`` after the caller's options (the
last one wins): flushed denormals change what float kernels compute (seen on an H100).

Arenas: the Core's arenas stay NumPy byte arrays (the NumPy backend, the fallbacks and the
inspection API read them directly), so a single instruction on a cupy Core copies GM, UB and
L1 to the device before the launch and the arenas it writes back after it. Batched launches
(:func:`launch_raw` / :func:`launch_device`, used by ``ptogpu.backend.launch.launch_batch``)
take cupy arrays as they are: device-resident arenas, nothing copied.
"""
from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numpy as np

from . import sources

NVRTC_OPTIONS = ("-std=c++17", "-ftz=false", "-prec-div=true", "-prec-sqrt=true", "-fmad=false")
"""Options we pass to NVRTC: the float arithmetic of the host-shim build (``g++ -std=c++17``):
denormals kept, division and square root correctly rounded, no contraction into FMA."""


def nvrtc_command_line(arch: str) -> tuple[str, ...]:
    """The full option list NVRTC receives for ``arch``: ``"sm_90"`` (a cubin) or
    ``"compute_90"`` (PTX); a bare ``"90"`` means ``compute_90``."""
    arch = arch if "_" in arch else f"compute_{arch}"
    return NVRTC_OPTIONS + (f"-arch={arch}", "--device-as-default-execution-space")


def compile_source(code: str, filename: str, arch: str) -> bytes:
    """``code`` compiled by NVRTC for ``arch`` (see :func:`nvrtc_command_line`): the cubin for
    an ``sm_`` architecture, else the PTX. No device is needed (the tests compile every kernel
    file this way); a compile error raises ``RuntimeError`` with NVRTC's log."""
    nvrtc = cupy_module().cuda.nvrtc
    opts = list(nvrtc_command_line(arch))
    prog = nvrtc.createProgram(code, filename, [], [])
    try:
        try:
            nvrtc.compileProgram(prog, opts)
        except Exception as e:
            raise RuntimeError(f"{filename} ({' '.join(opts)}): {e}\n{nvrtc.getProgramLog(prog)}") from None
        out = nvrtc.getCUBIN(prog) if arch.startswith("sm_") else nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    return out.encode() if isinstance(out, str) else bytes(out)


def device_arch() -> str:
    """``sm_XY`` for this device where NVRTC knows it, else the newest ``compute_`` below it
    (PTX, compiled for the device by the driver)."""
    nvrtc = cupy_module().cuda.nvrtc
    cc = int(cupy_module().cuda.Device().compute_capability)
    known = [int(a) for a in nvrtc.getSupportedArchs()]
    return f"sm_{cc}" if cc in known else f"compute_{max([a for a in known if a <= cc] or [min(known)])}"


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


def _cache_dir() -> Path:
    from .native_build import cache_dir
    return cache_dir() / "cupy"


def _compiled(filename: str) -> Path:
    """The cubin (or PTX) of ``cuda_src/filename`` for this device, compiled with
    :data:`NVRTC_OPTIONS` on first use and kept in the cache folder."""
    cupy = cupy_module()
    code = sources.expanded(sources.source_dir() / filename)
    arch = device_arch()
    key = hashlib.sha256(repr((code, nvrtc_command_line(arch), cupy.cuda.nvrtc.getVersion(),
                               cupy.__version__)).encode()).hexdigest()[:24]
    path = _cache_dir() / f"{Path(filename).stem}-{arch}-{key}{'.cubin' if arch.startswith('sm_') else '.ptx'}"
    if not path.is_file():
        obj = compile_source(code, filename, arch)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(obj)
        os.replace(tmp, path)                    # whole or absent, for a process beside this one
    return path


def module(filename: str = "mgather.cu"):
    """The loaded RawModule of ``cuda_src/filename`` (compiled once, loaded once per process)."""
    with _lock:
        mod = _modules.get(filename)
        if mod is None:
            mod = cupy_module().RawModule(path=str(_compiled(filename)))
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
    limit = getattr(fn, "max_threads_per_block", None)
    if limit is not None and block[0] * block[1] * block[2] > limit:      # (not a launch failure)
        raise RuntimeError(f"kernel {kernel}: a block of {tuple(block)} threads is more than the "
                           f"{limit} its registers allow on this device (see __launch_bounds__)")
    for p in range(passes):
        fn((g,), tuple(block), (*args, d_prm, np.int64(prm_stride), d_fault, np.int64(n_inst),
                                np.int32(p)))
    # A faulted instance wrote nothing, so copying back is right whatever the records say.
    for buf, d, span in back:
        buf[:span] = cupy.asnumpy(d[:span])
    return d_fault
