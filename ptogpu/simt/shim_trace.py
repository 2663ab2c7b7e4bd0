"""Trace the data kernels themselves: ``cuda_src/mgather.cu`` built for the CPU with
``cuda_src/simt_trace_shim.h``, which logs every element store with the storing thread.

This checks the launch map against the very code the ``native`` and ``cupy`` backends run
(the trace kernels of ``simt_trace.cu`` add the lock-step round, which stores alone do not
show). The build is cached beside the native library, keyed by the sources' hash; it is
single-threaded (no OpenMP), so the log is in the shim's thread order.
"""
from __future__ import annotations

import ctypes
import re
import subprocess
import threading
from pathlib import Path

import numpy as np

from ..semantics.simt_case import case_from_mgather
from ..semantics.launch_map import launch_map

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
            mine = re.compile(rf"ptogpu_simt_trace_{re.escape(Path(filename).stem)}_[0-9a-f]+\.so")
            for old in out.parent.glob("ptogpu_simt_trace_*.so"):
                if old != out and mine.fullmatch(old.name):       # builds of older sources
                    try:
                        old.unlink()
                    except OSError:
                        pass
        lib = ctypes.CDLL(str(out))
        lib.pto_trace_begin.argtypes = [ctypes.c_void_p, ctypes.c_longlong]
        lib.pto_trace_end.restype = ctypes.c_longlong
        _libs[filename] = lib
        return lib


def _run_traced(core, filename: str, kernel: str, params: np.ndarray, cap: int) -> np.ndarray:
    """Pass 0 (checks), then pass 1 with the store log on; returns the log (n, REC) uint64."""
    from ..backend import native_backend
    lib = library(filename)
    fn = getattr(lib, "host_" + kernel)
    fn.argtypes = native_backend.ARGTYPES
    fn.restype = None
    log = np.zeros((cap, REC), np.uint64)
    fault = np.full((1, 4), np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64)
    args = []
    for space in ("gm", "ub", "l1"):
        a = core.arena(space)
        args += [a._buf.ctypes.data, int(a.size), 0]
    prm = np.ascontiguousarray(params, np.int64)
    fn(1, 32, 32, 1, *args, prm.ctypes.data, 0, fault.ctypes.data, 1, 0)
    lib.pto_trace_begin(log.ctypes.data, cap)
    fn(1, 32, 32, 1, *args, prm.ctypes.data, 0, fault.ctypes.data, 1, 1)
    n = int(lib.pto_trace_end())
    if n > cap:
        raise RuntimeError(f"{n} stores, more than the {cap} expected")
    return log[:n]


def _per_slot(m, log: np.ndarray, addr: np.ndarray, want: np.ndarray):
    """Match logged store addresses to the map's slots (``want``: each slot's address);
    ``seq`` is re-ranked among the matched stores of each thread (its order of these stores)."""
    order = np.argsort(want)
    pos = np.clip(np.searchsorted(want[order], addr), 0, max(m.size - 1, 0))
    ok = want[order][pos] == addr if m.size else np.zeros(addr.size, bool)
    slot = order[pos[ok]]
    lg = log[ok].astype(np.int64)
    thread = lg[:, 2] * 32 + lg[:, 3]
    rank = np.empty(slot.size, np.int64)
    srt = np.lexsort((lg[:, 4], thread))
    t_sorted = thread[srt]
    starts = np.r_[0, np.flatnonzero(t_sorted[1:] != t_sorted[:-1]) + 1] if slot.size else np.zeros(0, int)
    first = np.repeat(starts, np.diff(np.r_[starts, slot.size]))
    rank[srt] = np.arange(slot.size) - first
    out = {k: np.full(m.size, -1, np.int64) for k in ("warp", "lane", "seq")}
    out["warp"][slot], out["lane"][slot], out["seq"][slot] = lg[:, 2], lg[:, 3], rank
    return out, np.bincount(slot, minlength=m.size), int(addr.size - ok.sum())


def trace_mgather(core, mode, oob, dst, table, idx):
    """Run ``MGATHER[mode, oob](dst, table, idx)`` (A5, UB) through the traced data kernel,
    launched with ``dim3(32, 32)`` (the kernel's own geometry picks the working warps).
    Returns (launch map, per-slot {warp, lane, seq} of its store, stores per slot, stray
    stores outside the destination)."""
    from ..isa.mgather.kernels import plan_mgather
    plan = plan_mgather(core, mode, oob, dst, table, idx)
    if plan is None or plan.kernel is None:
        raise ShimTraceUnavailable("the kernel backend does not run this call")
    m = launch_map(case_from_mgather(core, mode, oob, dst, table, idx))
    log = _run_traced(core, "mgather.cu", plan.kernel, plan.params, 4 * m.size + 64)
    addr = log[:, 0].astype(np.int64) - core.arena(dst.space)._buf.ctypes.data
    return (m, *_per_slot(m, log, addr, m.dst_addr))


def trace_mgather_l1(core, oob, dst, table, idx, scratch):
    """The same for ``MGATHER[Elem, oob, GatherExec::Simt](dst, table, idx, scratch)``: the
    stores into the GM scratch (one per padded NZ slot) of ``mgather_l1_elem_simt``."""
    from ..isa.mgather.kernels_l1 import plan
    from ..enums import Coalesce
    pl = plan(core, oob, dst, table, idx, scratch, simt=True)
    if pl is None:
        raise ShimTraceUnavailable("the kernel backend does not run this call")
    kernel, _, params = pl
    m = launch_map(case_from_mgather(core, Coalesce.Elem, oob, dst, table, idx, scratch))
    log = _run_traced(core, "mgather_l1.cu", kernel, params, 4 * m.size + 64)
    addr = log[:, 0].astype(np.int64) - core.gm._buf.ctypes.data
    in_gm = (addr >= 0) & (addr < core.gm.size)
    m_out = _per_slot(m, log[in_gm], addr[in_gm], m.dst_addr)
    return (m, *m_out)
