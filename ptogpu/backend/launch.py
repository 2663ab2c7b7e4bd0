"""Batched kernel launches: many independent emulated instances in one launch.

This is the interface batch callers (fuzz campaigns, benchmarks) use; the instruction API
itself launches one instance at a time through the same entry points.

>>> from ptogpu.backend.launch import launch_batch, batch_size
>>> faults = launch_batch("mgather_a5_elem", n, {"gm": (gm, gm.size, 0),       # shared table
...                                             "ub": (ub, 2048, 2048)},       # one UB each
...                       params, prm_stride=0, passes=2, block=(32, 8, 1))

* ``arenas`` maps "gm" / "ub" / "l1" to ``(array, size, stride)``: instance ``k`` sees
  ``array[k*stride : k*stride + size]`` as that arena (stride 0: one arena shared by every
  instance). A missing space is an empty arena (any access to it faults). On ``native`` the
  arrays are NumPy ``uint8`` and the kernels write them in place. On ``cupy`` they may be cupy
  arrays (device-resident: nothing is copied) or NumPy arrays (copied in, and copied back for
  the spaces in ``writes``).
* ``params``: int64 parameter blocks, one per instance at ``k*prm_stride`` (0: shared). The
  layout of each kernel's block is the ``enum`` in its ``.cu`` file
  (:func:`ptogpu.backend.sources.enum_values`); the ``plan_*`` / ``*_params`` helpers of the
  ``*_kernels`` modules build them from tiles.
* ``passes``: SIMT kernels and check-then-write kernels take 2 (pass 0 checks, pass 1 writes a
  clean instance); see the kernel's header comment. ``block``: the kernel's per-instance block
  (default (1, 1, 1), the scalar kernels); ``grid``: blocks (default: on cupy one per
  instance, on native :func:`ptogpu.backend.native_backend.default_grid`); with fewer blocks
  than instances every block grid-strides over them on a GPU, and takes a contiguous range of
  them on native. Same bytes either way.
* Returns the fault records, ``(n, FAULT_WORDS)`` uint64: word 0 is ``FAULT_NONE`` (2^64-1)
  for a clean instance, else ``phase << 56 | position`` of its first fault (phases: 0 index
  read, 1 source/table read, 2 destination write, 3 GM->L1 scratch/burst); word 1 the faulting
  byte address; a faulted instance wrote nothing.

:func:`batch_size` derives how many instances to launch at once from free host memory (and,
on cupy, free device memory via nvidia-ml-py or cupy) and the bytes each instance needs.
"""
from __future__ import annotations

import os

import numpy as np

from . import resolve_backend
from .kernels import backend_module

_EMPTY = np.zeros(1, np.uint8)


def launch_batch(kernel: str, n_instances: int, arenas: dict, params, *, prm_stride: int = 0,
                 passes: int = 1, block=(1, 1, 1), grid: int | None = None,
                 backend: str = "auto", writes=("gm", "ub", "l1"),
                 threads: str | None = None, faults_on_device: bool = False):
    """Run ``kernel`` over ``n_instances`` instances (see the module doc). ``threads`` (native
    only): "warps" (default) runs the A5 SIMT kernels as lock-step warps, every lane of every
    warp-round of the launch; "threads" runs every thread of the block one after another (the
    GPU's per-thread code); same bytes either way.
    ``faults_on_device`` (cupy only): return the fault records as a cupy array (no copy back)."""
    name, _ = resolve_backend(backend)
    if name == "numpy":
        raise ValueError("launch_batch runs kernels: backend 'native' or 'cupy' (auto found "
                         "neither; see `ptogpu info`)")
    full = {s: arenas.get(s, (_EMPTY, 0, 0)) for s in ("gm", "ub", "l1")}
    be = backend_module(name)
    extra = {}
    if name == "native":
        extra["threads"] = threads or os.environ.get("PTOGPU_NATIVE_THREADS", "warps")
    fn = be.launch_device if (faults_on_device and name == "cupy") else be.launch_raw
    return fn(kernel, tuple(block), int(n_instances), full, params,
              prm_stride=int(prm_stride), passes=passes, grid=grid, writes=writes, **extra)


def free_host_bytes() -> int:
    """Available host memory (``MemAvailable``), or a conservative 2 GiB when unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2 << 30


def free_device_bytes() -> int | None:
    """Free memory of the current CUDA device (nvidia-ml-py, else cupy), None without one."""
    try:
        import pynvml
        pynvml.nvmlInit()
        try:
            h = pynvml.nvmlDeviceGetHandleByIndex(int(os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0] or 0))
            return int(pynvml.nvmlDeviceGetMemoryInfo(h).free)
        finally:
            pynvml.nvmlShutdown()
    except Exception:
        pass
    try:
        import cupy
        free, _ = cupy.cuda.runtime.memGetInfo()
        return int(free)
    except Exception:
        return None


def batch_size(bytes_per_instance: int, backend: str = "native", *, fraction: float = 0.25,
               cap: int = 1 << 22, minimum: int = 1) -> int:
    """Instances per launch: ``fraction`` of free memory (device memory on cupy, host memory
    otherwise) divided by ``bytes_per_instance``, clamped to ``[minimum, cap]``."""
    per = max(int(bytes_per_instance), 1)
    free = free_device_bytes() if backend == "cupy" else None
    if free is None:
        free = free_host_bytes()
    n = int(free * fraction) // per
    if backend == "native":
        # The CPU streams each launch's arenas through its caches: past a few tens of MB per
        # launch a 2-core VM turns memory-bound (MGATHER Elem 16x16: 1.5e9 elements/s with
        # 8192 tiles = 16 MiB per launch, 0.5e9 with 100000). Python overhead per launch is
        # ~20 us, so launches of this size still cost under 2 % of the time.
        n = min(n, NATIVE_LAUNCH_BYTES // per)
    return max(minimum, min(cap, n))


NATIVE_LAUNCH_BYTES = int(os.environ.get("PTOGPU_NATIVE_LAUNCH_BYTES", 16 << 20))
"""Bytes of per-instance arenas one native launch should stream (cache-sized)."""
