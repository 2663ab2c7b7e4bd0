"""Build and load perf/baseline.cpp (the simple alternatives) once per source and compiler."""
from __future__ import annotations

import ctypes
import hashlib
import os
import resource
import subprocess
from pathlib import Path

import numpy as np

from ptogpu.backend import native_backend

SRC = Path(__file__).with_name("baseline.cpp")
HEADERS = [SRC.parents[1] / "cuda_src" / h for h in ("host_shim.h", "common.cuh", "counter_rng.cuh")]
"""What baseline.cpp includes: the engine's generator (its loops may take ptogpu's own word loops)."""
COMMON = ["-fopenmp", "-shared", "-fPIC", "-std=c++17"]
OPTS = {"O3": ["-O3", "-march=native"], "O2": ["-O2"]}
"""The builds benches time side by side: as a user tuning for this machine would build the
loop, and a plain optimised build."""
LABEL = {"O3": "-O3 -march=native", "O2": "-O2"}
FLAGS = OPTS["O3"] + COMMON


def load(opt: str = "O3") -> ctypes.CDLL:
    cxx = native_backend.compiler()
    if cxx is None:
        raise RuntimeError("no C++ compiler for the baseline")
    flags = OPTS[opt] + COMMON
    text = b"".join(f.read_bytes() for f in (SRC, *HEADERS))
    key = hashlib.sha256(text + " ".join([cxx] + flags).encode()).hexdigest()[:16]
    out = native_backend.cache_dir() / f"ptogpu_bench_baseline_{key}.so"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run([cxx, *flags, str(SRC), "-o", str(tmp)], check=True, capture_output=True, timeout=300)
        tmp.replace(out)
    lib = ctypes.CDLL(str(out))
    P, I, L = ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong
    lib.gather_loop.argtypes = [P, ctypes.c_uint32, P, L, L, I, I, I, I]
    lib.fuzz_loop.argtypes = [P, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64, L, I]
    lib.fuzz_loop.restype = L
    lib.fuzz_loop_sel.argtypes = lib.fuzz_loop.argtypes + [I]
    lib.fuzz_loop_sel.restype = L
    lib.fuzz_tile.argtypes = [ctypes.c_uint32, ctypes.c_uint64, L, I, I, P]
    lib.fuzz_tile.restype = None
    lib.scatter_fuzz_loop.argtypes = [P, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64, L, I, I, I]
    lib.scatter_fuzz_loop.restype = L
    lib.scatter_tile_c.argtypes = [P, ctypes.c_uint32, P, P, I, I, I]
    lib.scatter_tile_c.restype = None
    lib.ew_add_loop.argtypes = [ctypes.c_uint64, L, I]
    lib.ew_add_loop.restype = L
    lib.store_bw.argtypes = [L, I, I]
    lib.store_bw.restype = ctypes.c_double
    lib.copy_bw.argtypes = [L, I, I]
    lib.copy_bw.restype = ctypes.c_double
    return lib


def cpu_seconds() -> float:
    """CPU time of this process so far, every thread, user and system. On a shared VM the time
    neighbours take counts in wall time but not here, so CPU time per tile is the steadier of
    the two figures the benches print (a rate over two threads is wall time; CPU time per tile
    is what one thread spends on one tile)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def copy_roof(nbytes: int, threads: int) -> float:
    """Copy bandwidth (bytes/s) of memcpy of ``nbytes`` on ``threads`` threads."""
    return float(load().copy_bw(int(nbytes), int(threads), 20 if nbytes < 64 << 20 else 4))


def store_roof(nbytes: int, threads: int) -> float:
    """Store bandwidth (bytes/s) of memset over ``nbytes`` on ``threads`` threads."""
    return float(load().store_bw(int(nbytes), int(threads), 20 if nbytes < 64 << 20 else 4))


def as_ptr(a: np.ndarray) -> int:
    return a.ctypes.data
