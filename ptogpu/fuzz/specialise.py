"""Specialised builds of the executing engine: one per campaign configuration.

A campaign knows its configuration before it runs a tile (tile shape, element size, OOB
policy, index cast, both sides' kernels and parameter blocks, generator). This module writes
a small C++ translation unit holding those as compile-time constant arrays and compiles it
(``cuda_src/fuzz_spec.cuh``: the generic engine's own loop, ``fuzz_engine.cuh``
``exec_range_t``, with the kernels' per-instance bodies called directly), so every shape, size
and rule folds into the loops, as Triton and XLA specialise a kernel on its shapes. The build
is cached by the hash of its source, the cuda_src/ sources, the compiler and its flags (the
native backend's, ``-O3 -march=native`` where the compiler takes it), under a file lock:
concurrent campaigns build a configuration once and never load half a library.

Only the executing engine's native tiles (``pto_fuzz_exec``) are specialised, for campaigns
without shape fuzzing and with lock-step warps (``threads="warps"``). Anything else -- a
configuration outside that, no compiler, a compile error or a refused flag, a build that
refuses its call -- runs the generic engine: said once per reason on stderr, never silently
under the specialised name, and the report is the generic engine's byte for byte
(tests/test_fuzz_specialise.py compares the two on fuzzed configurations).
``PTOGPU_FUZZ_SPECIALISE=0`` turns it off.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
from functools import lru_cache

import numpy as np

from ..backend.kernels import Consts
from ..backend import native_backend, sources

K = Consts("fuzz.cu")
"""The kernels' enum constants (``K.NAME``), read from their source."""

_lock = threading.Lock()
_fns: dict[str, object] = {}          # library path -> its loaded pto_fuzz_spec
_said: set[str] = set()


MODES = ("auto", "1", "0")


def mode() -> str:
    """``$PTOGPU_FUZZ_SPECIALISE``: "auto" (default: a cached build, else a background build
    for a campaign of at least :data:`MIN_TILES` tiles), "1" (build before the first tile),
    "0" (never)."""
    m = os.environ.get("PTOGPU_FUZZ_SPECIALISE", "auto") or "auto"
    if m not in MODES:
        raise ValueError(f"PTOGPU_FUZZ_SPECIALISE={m!r}: one of auto, 1, 0")
    return m


# "auto" builds a configuration in the background only for campaigns this long: a build takes
# about 3 s of one core (2-core Zen 4, -O3: ~1.5 s of a campaign on both) and saves up to
# about a tenth of a tile's time at ~4e6 tiles/s, so it pays from ~15 s, 6e7 tiles; shorter
# campaigns finish sooner without it (the build is cached: the next campaign of the same
# configuration, of any length, loads it).
MIN_TILES = 60_000_000




def say(reason: str) -> None:
    """Why a campaign runs the generic engine, once per reason per process."""
    key = reason.splitlines()[0][:200]
    if key in _said:
        return
    _said.add(key)
    try:
        sys.stderr.write(f"ptogpu: fuzz: generic executing engine ({key})\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _array(name: str, vals) -> str:
    body = ", ".join(f"{int(v)}ll" if int(v) >= -(1 << 62) else f"({int(v) + 1}ll - 1)" for v in vals)
    return f"static constexpr i64 {name}[] = {{{body}}};"


def source(camp, prm: np.ndarray) -> str | None:
    """The translation unit of a prepared campaign (:class:`ptogpu.fuzz.execute.Campaign`), or
    None where it is not specialised (shape fuzzing, per-thread launches, kernels the
    specialised loop does not call)."""
    if camp.shapes or camp.threads != "warps":
        return None
    try:
        kinds = camp.kernel_kinds()
    except LookupError:
        return None
    p = np.array(prm[: K.FZ_WORDS], np.int64)
    p[K.FZ_SEED] = p[K.FZ_INST0] = 0        # read from the call
    return "\n".join([
        f"// ptogpu executing engine specialised for {camp.base_a.label} vs {camp.base_b.label}",
        f"// ({camp.sa.kernel} vs {camp.sb.kernel}); written by ptogpu/fuzz/specialise.py",
        '#include "fuzz_engine.cuh"',
        _array("SP_P", p), _array("SP_X", camp.ex), _array("SP_IPOS", camp.ipos),
        _array("SP_PA", camp.sa.params), _array("SP_PB", camp.sb.params),
        f"#define SP_KIND_A {kinds[0]}", f"#define SP_KIND_B {kinds[1]}",
        f"#define SP_GM_SIZE {int(camp.gm.size)}ll",
        '#include "fuzz_spec.cuh"', ""])


def _flags() -> tuple[str, ...]:
    """The flags the native backend settled on (its -O3 tier, or PTOGPU_NATIVE_OPT)."""
    return native_backend.settled_flags()


@lru_cache(maxsize=None)
def _compiler_id(cxx: str) -> str:
    return native_backend.compiler_id(cxx)            # (a `--version` run: once per process)


@lru_cache(maxsize=None)
def _cpu_features() -> str:
    return native_backend.cpu_features()


def _path(text: str):
    """(compiler, flags, where the build of ``text`` lives): named by a hash of it, the
    cuda_src/ sources, the compiler and its flags (with this CPU's features where the build is
    ``-march=native``)."""
    cxx = native_backend.compiler()
    if cxx is None:
        raise native_backend.NativeUnavailable("no C++ compiler")
    flags = _flags()
    return cxx, flags, _key_path(text, cxx, flags, str(native_backend.cache_dir()))


@lru_cache(maxsize=256)
def _key_path(text: str, cxx: str, flags: tuple[str, ...], cache: str):
    from pathlib import Path
    feats = _cpu_features() if native_backend.NATIVE_ARCH[0] in flags else ""
    key = sources.digest(f"{_compiler_id(cxx)}\0{' '.join(flags)}\0{feats}\0{text}")
    return Path(cache) / "spec" / f"ptogpu_spec_{key}.so"


def _build(text: str, cxx: str, flags: tuple[str, ...], path) -> None:
    """Compile ``text`` into ``path`` (under its lock; another process may have already)."""
    if path.exists():
        return
    src = path.with_suffix(".cu")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = src.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, src)
        err = native_backend.build_locked(cxx, flags, path, src, say=False)
    except OSError as e:                      # an unwritable cache, a full disk
        raise native_backend.NativeUnavailable(f"specialised build failed: {e}") from e
    if err:
        raise native_backend.NativeUnavailable(f"specialised build failed: {err.strip().splitlines()[-1][:300]}")


def _load(path):
    with _lock:
        got = _fns.get(str(path))
        if got is not None:
            return got
        try:
            lib = ctypes.CDLL(str(path))
            f = lib.pto_fuzz_spec
        except (OSError, AttributeError) as e:
            raise native_backend.NativeUnavailable(f"loading {path.name}: {e}") from e
        f.argtypes = [ctypes.c_void_p] * 6 + [ctypes.c_longlong, ctypes.c_void_p, ctypes.c_void_p,
                                              ctypes.c_longlong, ctypes.c_void_p, ctypes.c_int]
        f.restype = ctypes.c_int
        f._lib = lib                          # the library stays loaded with its function
        _fns[str(path)] = f
    _prune(path.parent, keep=path)
    return f


_pool = None


def _background(fn, *args):
    """Run ``fn(*args)`` on the one build thread (a compile is a subprocess: the campaign's
    own threads go on meanwhile)."""
    global _pool
    from concurrent.futures import ThreadPoolExecutor
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(1, thread_name_prefix="ptogpu-spec")
    return _pool.submit(fn, *args)


# Specialised builds kept in the cache (about 150 KiB each); beyond this many, the least
# recently used go.
KEEP = 64


def _prune(d, keep) -> None:
    try:
        os.utime(keep)
        libs = sorted(d.glob("ptogpu_spec_*.so"), key=lambda p: p.stat().st_mtime, reverse=True)
        for p in libs[KEEP:]:
            for q in (p, p.with_suffix(".cu"), p.with_suffix(".lock")):
                q.unlink(missing_ok=True)
    except OSError:
        pass


class Spec:
    """The specialised engine of one campaign, as it becomes available: :meth:`get` is its
    ``pto_fuzz_spec`` once built or loaded, else None (run the generic engine)."""

    def __init__(self, camp, prm: np.ndarray, n_tiles: int):
        self.fn, self.future = None, None
        m = mode()
        text = source(camp, prm) if m != "0" else None
        if text is None:
            return
        try:
            cxx, flags, path = _path(text)
            if path.exists():
                self.fn = _load(path)
            elif m == "1":
                _build(text, cxx, flags, path)
                self.fn = _load(path)
            elif n_tiles >= MIN_TILES:
                self.future = _background(lambda: (_build(text, cxx, flags, path), _load(path))[1])
        except native_backend.NativeUnavailable as e:
            say(str(e))

    def get(self):
        if self.fn is None and self.future is not None and self.future.done():
            try:
                self.fn = self.future.result()
            except native_backend.NativeUnavailable as e:
                say(str(e))
            self.future = None
        return self.fn

    def refused(self) -> None:
        """The build refused the campaign's blocks (they changed since it was made)."""
        say("the specialised build refused this campaign's blocks")
        self.fn = self.future = None
