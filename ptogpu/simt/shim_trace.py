"""Trace the data kernels themselves: ``cuda_src/mgather.cu`` built for the CPU with
``cuda_src/simt_trace_shim.h``, which logs every element store with the storing thread.

This checks the launch map against the very code the ``native`` and ``cupy`` backends run
(the trace kernels of ``simt_trace.cu`` add the lock-step round, which stores alone do not
show). The build is cached beside the native library, keyed by the sources' hash; it is
single-threaded (no OpenMP), so the log is in the shim's thread order.
"""
from __future__ import annotations

import ctypes
import subprocess
import threading
from pathlib import Path

import numpy as np

from .case import case_from_mgather
from .launch_map import launch_map

REC = 5                                   # u64 words per record: addr, block, warp, lane, seq
_lock = threading.Lock()
_libs: dict[str, ctypes.CDLL] = {}


class ShimTraceUnavailable(RuntimeError):
    """No C++ compiler, or the data kernels do not build with the trace shim (why in message)."""


def library(filename: str = "mgather.cu") -> ctypes.CDLL:
    """Build (once per source hash) and load the traced build of ``cuda_src/filename``."""
    from ..backend import native_backend, sources
    with _lock:
        if filename in _libs:
            return _libs[filename]
        cxx = native_backend.compiler()
        if cxx is None:
            raise ShimTraceUnavailable("no C++ compiler found")
        src = sources.source_dir()
        key = sources.digest(f"simt-trace\0{filename}\0{cxx}")
        out = native_backend.cache_dir() / f"ptogpu_simt_trace_{Path(filename).stem}_{key}.so"
        if not out.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_suffix(".tmp.so")
            cmd = [cxx, "-O1", "-shared", "-fPIC", "-std=c++17", "-include",
                   str(src / "simt_trace_shim.h"), "-I", str(src), "-x", "c++", str(src / filename),
                   "-o", str(tmp)]
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if res.returncode != 0:
                raise ShimTraceUnavailable(" ".join(cmd) + "\n" + res.stderr[-3000:])
            tmp.replace(out)
        lib = ctypes.CDLL(str(out))
        lib.pto_trace_begin.argtypes = [ctypes.c_void_p, ctypes.c_longlong]
        lib.pto_trace_end.restype = ctypes.c_longlong
        _libs[filename] = lib
        return lib


def trace_mgather(core, mode, oob, dst, table, idx):
    """Run ``MGATHER[mode, oob](dst, table, idx)`` on an A5 core through the traced data
    kernel, launched with ``dim3(32, 32)`` (the kernel's own geometry picks the working warps).
    Returns (launch map of the call, per-slot warp, lane, seq, store count)."""
    from ..backend import native_backend
    from ..backend.mgather_kernels import plan_mgather
    plan = plan_mgather(core, mode, oob, dst, table, idx)
    if plan is None or plan.kernel is None:
        raise ShimTraceUnavailable("the kernel backend does not run this call")
    lib = library("mgather.cu")
    fn = getattr(lib, "host_" + plan.kernel)
    fn.argtypes = native_backend._ARGTYPES
    fn.restype = None
    case = case_from_mgather(core, mode, oob, dst, table, idx)
    m = launch_map(case)
    cap = 4 * m.size + 64
    log = np.zeros((cap, REC), np.uint64)
    fault = np.full((1, 4), np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64)
    args = []
    for space in ("gm", "ub", "l1"):
        a = core.arena(space)
        args += [a._buf.ctypes.data, int(a.size), 0]
    prm = np.ascontiguousarray(plan.params, np.int64)
    fn(1, 32, 32, 1, *args, prm.ctypes.data, 0, fault.ctypes.data, 1, 0)      # pass 0: checks
    lib.pto_trace_begin(log.ctypes.data, cap)
    fn(1, 32, 32, 1, *args, prm.ctypes.data, 0, fault.ctypes.data, 1, 1)      # pass 1: stores
    n = int(lib.pto_trace_end())
    if n > cap:
        raise RuntimeError(f"{n} stores for {m.size} elements")
    log = log[:n]
    base = core.arena(dst.space)._buf.ctypes.data
    addr = log[:, 0].astype(np.int64) - base
    order = np.argsort(m.dst_addr)
    pos = np.clip(np.searchsorted(m.dst_addr[order], addr), 0, max(m.size - 1, 0))
    ok = m.dst_addr[order][pos] == addr
    slot = order[pos[ok]]
    out = {k: np.full(m.size, -1, np.int64) for k in ("warp", "lane", "seq")}
    for k, col in (("warp", 2), ("lane", 3), ("seq", 4)):
        out[k][slot] = log[ok, col].astype(np.int64)
    count = np.bincount(slot, minlength=m.size)
    return m, out, count, int(n - ok.sum())
