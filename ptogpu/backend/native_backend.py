"""Backend "native": the kernels of ``cuda_src/`` compiled for the CPU through the host shim:
loading the libraries ``native_build`` builds, and launching their kernels.

Build (``native_build``): ``<c++> -O3 -march=native -mprefer-vector-width=512 -fopenmp -shared -fPIC -std=c++17 -include
cuda_src/host_shim.h -I cuda_src -x c++ cuda_src/*.cu`` into ``$XDG_CACHE_HOME/ptogpu`` (or
``~/.cache/ptogpu``, or ``$PTOGPU_CACHE_DIR``), named by a hash of every source file, the
compiler's version, the flags and this CPU's feature flags (a build for one CPU is never
loaded on another): a changed source rebuilds, an unchanged one is loaded from the cache. The
build goes to a temporary file first and is renamed into place, so concurrent processes never
load half a library. A compiler that refuses ``-march=native`` gets the portable build; one
without OpenMP the single-threaded build. ``PTOGPU_NATIVE_MARCH=0`` forces the portable build.
:func:`vector_isa` says which vector ISA the loaded build uses. A family's first use builds it
at ``QUICK_OPT`` in the foreground and at ``-O3`` in a detached background process (see
``QUICK_OPT``); ``PTOGPU_NATIVE_OPT`` builds one level only.

Launch: blocks in parallel (OpenMP), directly on the NumPy byte buffers of the Core's arenas
(no copies). The A5 SIMT kernels run as lock-step warps (``hostw_<kernel>``: the 32 lanes of
each warp step together, each step a SIMD loop); ``threads="threads"`` runs every thread of
the block one after another instead (``hostp_<kernel>``), the per-thread code the GPU runs.
"""
from __future__ import annotations

import ctypes
import os
import re
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import sources
from .native_build import (FLAGS, NATIVE_ARCH, PREBUILD, QUICK_OPT, base_flags, build_locked,  # noqa: F401
                           build_parallel, cache_dir, compiler, compiler_id, cpu_features, flag_sets,
                           forced_opt, lib_path, prune, quick, announce, spawn_optimised)

class NativeUnavailable(RuntimeError):
    """The native backend cannot be built or loaded here (the message says why)."""


def prebuild(families: list[str] | None = None) -> dict:
    """Build the libraries of ``families`` (default: every family) now, in parallel, at the
    level :func:`load` would use (PTOGPU_NATIVE_OPT, else the quick tier): what a test session
    or a long campaign does up front instead of building one family at a time on first use.
    Returns family -> error ("" built or cached). Loads nothing."""
    cxx = compiler()
    if cxx is None:
        return {}
    files = {p.stem: p for p in sources.kernel_files()}
    flags = _flags if _flags is not None else flag_sets()[0]
    use = flags if forced_opt() else quick(flags)
    cid, feats = compiler_id(cxx), cpu_features()
    jobs = [(f, lib_path(cid, use, feats, f), files[f]) for f in (families or sorted(files))
            if f in files and not lib_path(cid, use, feats, f).exists()]
    return build_parallel(cxx, use, jobs) if jobs else {}


def settled_flags() -> tuple[str, ...]:
    """The flags the backend settled on (its -O3 tier, or PTOGPU_NATIVE_OPT)."""
    return _flags or flag_sets()[0]


def build_level(family: str) -> str:
    """The optimisation level of a loaded family's library ("-O3", "-O1", ...; "" if not loaded)."""
    flags = _fam_flags.get(family, ())
    return next((f for f in flags if f.startswith("-O")), "")


_lock = threading.Lock()
_libs: dict[str, ctypes.CDLL] = {}          # family (a .cu stem) -> its loaded library
_paths: dict[str, Path] = {}
_flags: tuple[str, ...] | None = None       # the flag set the first family settled on

_fam_flags: dict[str, tuple[str, ...]] = {}  # family -> the flags of the library it loaded
_spawned: set[str] = set()                   # families whose -O3 build this process started
_error: str | None = None
# Shim-only symbols (pto_vector_isa, ...) are in every family's library: take the smallest.
SHIM_FAMILY = "dma"


def library_path(family: str | None = None) -> Path | None:
    """Path of a loaded family's library (default: the first loaded), after :func:`load`."""
    if family is None:
        return next(iter(_paths.values()), None)
    return _paths.get(family)


def loaded_families() -> list[str]:
    return list(_libs)


@lru_cache(maxsize=None)
def family_of(symbol: str) -> str:
    """The ``cuda_src/<family>.cu`` that defines ``symbol``: a ``PTO_EXPORT*(kernel)`` line for
    ``host*_<kernel>``, an ``extern "C"`` definition for the others; shim symbols anywhere."""
    base = re.sub(r"^host(?:1w|1|w|p)?_", "", symbol)
    for p in sources.kernel_files():
        t = sources.expanded(p)                     # (the translation unit: its headers too)
        if re.search(rf"^PTO_EXPORT\w*\(\s*{re.escape(base)}\s*\)", t, re.M) or \
                re.search(rf'extern "C"[^;{{]*?\b{re.escape(symbol)}\s*\(', t):
            return p.stem
    return SHIM_FAMILY


class _Families:
    """What :func:`load` returns: attribute ``sym`` is that symbol of the library of the family
    that defines it, built on first use (one kernel family at a time, not all of cuda_src/)."""

    def __getattr__(self, sym: str):
        if sym.startswith("__"):
            raise AttributeError(sym)
        return getattr(load(family_of(sym)), sym)


_FAMILIES = _Families()


def load(family: str | None = None):
    """The library of one kernel family (``cuda_src/<family>.cu``), built on its first use (or
    after a source change) and loaded once per process; with no family, a view that loads each
    family when one of its symbols is first asked for."""
    if family is None:
        return _FAMILIES
    global _flags, _error
    with _lock:
        if family in _libs:
            return _libs[family]
        if _error is not None:
            raise NativeUnavailable(_error)
        files = {p.stem: p for p in sources.kernel_files()}
        if not files:
            _error = f"no kernel sources (*.cu) in {sources.source_dir()}"
            raise NativeUnavailable(_error)
        if family not in files:
            raise NativeUnavailable(f"no kernel family {family!r} in {sources.source_dir()}")
        cxx = compiler()
        if cxx is None:
            _error = "no C++ compiler found (tried $CXX, g++, c++, clang++)"
            raise NativeUnavailable(_error)
        cid = compiler_id(cxx)
        problems = []
        feats = cpu_features()
        for flags in ([_flags] if _flags is not None else flag_sets()):
            path = lib_path(cid, flags, feats, family)
            use = flags
            if not path.exists() and not forced_opt():
                # the quick tier now (with the other PREBUILD families, in parallel), -O3 later
                use = quick(flags)
                path = lib_path(cid, use, feats, family)
                if not path.exists():
                    todo = [family] + [f for f in PREBUILD if f != family and f in files and
                                       not lib_path(cid, use, feats, f).exists()]
                    errs = build_parallel(cxx, use, [(f, lib_path(cid, use, feats, f), files[f])
                                                      for f in todo])
                    if errs.get(family):
                        problems.append(errs[family])
                        continue
                    want = [f for f in todo if not errs.get(f)]
                else:
                    want = [family]
                want = [f for f in want if f not in _spawned]
                _spawned.update(want)
                spawn_optimised(want, flags)
            elif not path.exists():
                err = build_locked(cxx, flags, path, files[family], say=True)
                if err:
                    problems.append(err)
                    continue
            try:
                # Idle OpenMP workers sleep instead of spinning between launches: on a small
                # (2-vCPU) machine a spinning worker steals the core the caller needs, and
                # batched runs turned 2-5x slower at random. Read once, when libgomp loads.
                os.environ.setdefault("OMP_WAIT_POLICY", "passive")
                lib = ctypes.CDLL(str(path))
                if lib.pto_host_shim_version() != 2:
                    raise OSError("host shim version mismatch")
                lib.pto_vector_isa.restype = ctypes.c_char_p
            except OSError as e:
                problems.append(f"loading {path}: {e}")
                continue
            _libs[family], _paths[family], _flags = lib, path, flags
            _fam_flags[family] = use
            prune(path)
            return lib
        _error = f"building the native kernels ({family}.cu) failed:\n" + "\n".join(problems)
        raise NativeUnavailable(_error)


def _shim():
    """A loaded library for the shim's own symbols: any family already loaded, else the
    smallest (so asking whether native works builds one small file, not every kernel)."""
    return next(iter(_libs.values()), None) or load(SHIM_FAMILY)


def available() -> tuple[bool, str]:
    """(usable, reason). Builds the smallest family if none is loaded yet."""
    try:
        lib = _shim()
    except NativeUnavailable as e:
        return False, str(e)
    levels = ", ".join(f"{f} {build_level(f)}" for f in loaded_families())
    quick = any(build_level(f) != "-O3" for f in loaded_families()) and not forced_opt()
    return True, (f"native: {library_path().name} (families built on first use; loaded: {levels}"
                  + ("; quick builds until the -O3 ones finish in the background" if quick else "") + "), "
                  f"{lib.pto_host_shim_threads()} OpenMP thread(s), vector ISA {vector_isa()}")


def vector_isa() -> str:
    """The vector ISA the loaded build was compiled for ("avx512", "avx2", "neon", "sse2", ...)."""
    return _shim().pto_vector_isa().decode()


def lockstep_kernels() -> frozenset:
    """Kernels run as lock-step warps (those exported with PTO_EXPORT_WARPS). Read from the
    sources: every build exports ``hostw_`` for them (host_shim.h)."""
    names = set()
    for p in sources.kernel_files():
        names.update(re.findall(r"^PTO_EXPORT_WARPS\((\w+)\)", sources.expanded(p), re.M))
    return frozenset(names)


ARGTYPES = ([ctypes.c_uint] * 4 + [ctypes.c_void_p, ctypes.c_longlong, ctypes.c_longlong] * 3
             + [ctypes.c_void_p, ctypes.c_longlong, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int])
_fns: dict[str, object] = {}


def host_fn(name: str, prefix: str = "host_"):
    f = _fns.get(prefix + name)
    if f is None:
        f = getattr(load(), prefix + name)
        f.argtypes = ARGTYPES if prefix == "host_" else ARGTYPES[:4] + [ctypes.c_int] + ARGTYPES[4:]
        f.restype = None
        _fns[prefix + name] = f
    return f


_lockstep: frozenset | None = None
_blocks: int | None = None
BLOCKS_PER_THREAD = 32      # a launch's default grid: blocks of contiguous instance ranges


def default_grid(n_inst: int) -> int:
    """Blocks of a launch without a ``grid``: ``BLOCKS_PER_THREAD`` per OpenMP thread, each
    block a contiguous range of the instances (common.cuh PTO_FOR_EACH_INSTANCE on the host
    shim), which it runs in one call; one block per instance entered the kernel, thread-local
    lookups included, once an instance (MGATHER 16x16 batches: 1.2x with the ranges)."""
    global _blocks
    if _blocks is None:
        _blocks = BLOCKS_PER_THREAD * max(1, int(_shim().pto_host_shim_threads()))
    return max(1, min(n_inst, _blocks))


def launch_raw(kernel: str, block: tuple[int, int, int], n_inst: int, arenas: dict,
               params: np.ndarray, *, prm_stride: int = 0, passes: int = 1,
               grid: int | None = None, writes=None, threads: str = "warps") -> np.ndarray:
    """Launch over ``n_inst`` instances (in place: ``writes`` is accepted for symmetry with
    the cupy backend and ignored). ``arenas`` maps "gm"/"ub"/"l1" to (uint8 array,
    size, stride): instance k sees ``array[k*stride : k*stride + size]`` (stride 0: shared).
    ``params`` holds one block per instance at ``k*prm_stride`` (0: shared). ``grid`` blocks
    (default :func:`default_grid`; with fewer blocks than instances each block runs a
    contiguous range of them).
    ``threads``: "warps" (default) runs the lock-step kernels (:func:`lockstep_kernels`) one
    warp at a time, its 32 lanes in lock-step; "threads" runs every thread of the block one
    after another, each pass over the whole grid block by block (the GPU's per-thread code).
    Same bytes either way (tests run both). Returns the fault records, shape
    (n_inst, FAULT_WORDS) uint64."""
    global _lockstep
    if threads not in ("warps", "threads"):
        raise ValueError(f"threads must be 'warps' or 'threads', not {threads!r}")
    if _lockstep is None:
        _lockstep = lockstep_kernels()
    prefix = "hostw_" if threads == "warps" and kernel in _lockstep else "hostp_"
    fn = host_fn(kernel, prefix)
    words = sources.enum_values("mgather.cu")["FAULT_WORDS"]
    fault = np.full((n_inst, words), np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64)
    if n_inst == 0:
        return fault
    prm = np.ascontiguousarray(params, np.int64)
    args = []
    for space in ("gm", "ub", "l1"):
        buf, size, stride = arenas[space]
        if buf.dtype != np.uint8 or not buf.flags.c_contiguous:
            raise ValueError(f"{space} arena must be a contiguous uint8 array")
        if n_inst and buf.size < (n_inst - 1) * stride + size:
            raise ValueError(f"{space} arena holds fewer than {n_inst} instances")
        args += [buf.ctypes.data, int(size), int(stride)]
    if n_inst and prm.size < (n_inst - 1) * prm_stride + 1:
        raise ValueError("params hold fewer than n_inst blocks")
    g = default_grid(n_inst) if grid is None else max(1, min(int(grid), n_inst))
    fn(g, *block, int(passes), *args, prm.ctypes.data, int(prm_stride), fault.ctypes.data,
       n_inst, 0)
    return fault
