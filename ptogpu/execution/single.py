"""One instance through the public API: the reference the batch paths must match byte for
byte, and the text of a runnable reproducer snippet doing exactly the same."""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from .. import dtypes
from ..errors import F_DST, F_INDEX, F_NONE, F_OTHER, F_TABLE, PtoFault, fault_code, fault_text  # noqa: F401
from .config import FuzzConfig


def layout(cfg: FuzzConfig) -> dict:
    """Addresses and tile geometry of the canonical instance (shared with the batch paths)."""
    d = {"T": cfg.esize, "isz": dtypes.as_dtype(cfg.index_dtype).itemsize,
         "table_bytes": cfg.table_elems * cfg.esize}
    d.update(cfg.instruction.layout(cfg))
    return d


def check_fits(cfg: FuzzConfig) -> None:
    """ValueError when the canonical instance of ``cfg`` cannot be laid out in its target's
    memories (the batch paths and the reproducers assume it can)."""
    from ..memory import GM_LIMIT
    from ..targets import get_target
    t = get_target(cfg.target)
    L = layout(cfg)
    limits = {"ub": t.ub_usable, "l1": t.l1_bytes, "gm": GM_LIMIT}
    need = {**cfg.instruction.needs(cfg, L), "gm": L.get("gm_size", 0)}
    for space, n in need.items():
        if n > limits[space]:
            raise ValueError(f"{cfg.label}: the instance needs {n:,} bytes of {space.upper()}, "
                             f"{cfg.target} has {limits[space]:,}")


def cast_indices(cfg: FuzzConfig, values: np.ndarray) -> np.ndarray:
    """Generator values (int64) as the instance's index (or data) array, wrapping."""
    return cfg.instruction.cast(cfg, values)


def run_single(cfg: FuzzConfig, values, backend: str = "numpy", *, cast: bool = True):
    """Run one instance through the public API. Returns (output bytes, fault message or None).
    ``cast=False``: ``values`` are the index array already (:func:`cast_indices`)."""
    import warnings

    import ptogpu as pto
    L = layout(cfg)
    idx = np.asarray(values).reshape(-1)
    idx = cast_indices(cfg, idx) if cast else idx
    core = pto.Core(cfg.target, backend, quirks=cfg.core_quirks)
    T = dtypes.as_dtype(cfg.dtype)
    with core, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = _run(pto, core, cfg, L, T, idx)
            return out, None
        except PtoFault as e:
            return cfg.instruction.read_out(core, cfg, L), fault_text(e)


BATCH_CORE = 4096
"""Instances per core of N in :func:`run_instances` (on NumPy fewer, see there)."""

STRAY_SLACK = 256
"""Bytes past the program's footprint that :class:`Watch` checks at least in each UB / L1 row
(it checks on to the end of that 4 KiB page: the pages the program touched)."""


class Watch:
    """Which instances' instruction wrote outside its destination (a kernel's stray write):
    :meth:`start` just before the instruction takes each memory's watched bytes (on native a
    64-bit fingerprint per row, computed in the native library; else a copy), :meth:`stray`
    after it compares. ``keep`` maps a space to the byte ranges the instruction writes. A
    memory all instances still share is watched whole (a change marks every instance: it
    cannot be told whose it was); per-instance rows up to the program's footprint plus
    :data:`STRAY_SLACK` bytes, rounded up to a 4 KiB page (a write further out is not seen:
    reading every instance's whole UB would cost more than the launch)."""

    def __init__(self, core, keep: dict[str, list[tuple[int, int]]]) -> None:
        self.core, self.keep, self.saved = core, keep, {}
        # on native, 64-bit fingerprints of the rows instead of copies (a pass, no copy)
        self.prints = core.backend == "native"

    def start(self) -> None:
        for s, b in self.core.banks.items():
            w = window(self.core, self.keep, s)
            if self.prints:
                self.saved[s] = (w, (_prints(b.flat[None, : b.size], self.keep.get(s, ())),
                                     _prints(b.flat[None, :w], self.keep.get(s, ())))
                                 if b.shared else _prints(b.rows()[:, :w], self.keep.get(s, ())))
            else:
                self.saved[s] = (w, b.flat[: b.size].copy() if b.shared else b.rows()[:, :w].copy())

    def stray(self) -> np.ndarray:
        n = self.core.batch
        out = np.zeros(n, bool)
        for s, (w, before) in self.saved.items():
            b = self.core.banks[s]
            keep = self.keep.get(s, ())
            if self.prints:
                if isinstance(before, tuple):           # shared at the start: whole, and its window
                    hit = (_prints(b.flat[None, : b.size], keep) != before[0]) if b.shared else \
                        (_prints(b.rows()[:, :w], keep) != before[1])
                else:
                    hit = _prints(b.rows()[:, :w], keep) != before
            elif b.shared:              # still one row: any change is every instance's
                hit = _changed(b.flat[None, : before.size], before[None], keep)
            else:
                now = b.rows()[:, :w]
                hit = _changed(now, before[None, :w] if before.ndim == 1 else before, keep)
            out |= hit if hit.size == n else hit.any()
        return out


def _prints(rows: np.ndarray, keep) -> np.ndarray:
    """One 64-bit fingerprint per row (``cuda_src/fuzz.cu`` pto_rows_fingerprint), the
    ``keep`` byte ranges left out."""
    from ..backend import native_backend
    f = native_backend.load("fuzz").pto_rows_fingerprint
    f.restype = None
    n, w = rows.shape
    if rows.strides[1] != 1 or (n > 1 and rows.strides[0] < w):
        rows = np.ascontiguousarray(rows)
    mask = np.full(-(-w // 8) * 8, 0xFF, np.uint8)
    for a, e in keep:
        mask[max(a, 0): max(min(e, w), 0)] = 0
    mask = mask.view(np.uint64)
    out = np.empty(n, np.uint64)
    f(ctypes.c_void_p(rows.ctypes.data), ctypes.c_longlong(n), ctypes.c_longlong(rows.strides[0] if n > 1 else w),
      ctypes.c_longlong(w), ctypes.c_void_p(mask.ctypes.data), ctypes.c_void_p(out.ctypes.data))
    return out


def window(core, keep: dict[str, list[tuple[int, int]]], space: str, slack: bool = True) -> int:
    """The bytes ``[0, window)`` of each instance's ``space`` the program's writes (``keep``,
    its inputs below them, GM's allocations) lie in, plus (``slack``) :data:`STRAY_SLACK`,
    to the end of the page."""
    b = core.banks[space]
    ends = [e for _, e in keep.get(space, ())] + [b.top]
    if b.shared:                        # what the row holds counts as footprint
        nz = np.flatnonzero(b.flat[: b.size])
        ends.append(int(nz[-1]) + 1 if nz.size else 0)
    if not slack:
        return min(b.size, max(ends))
    return min(b.size, -(-(max(ends) + STRAY_SLACK) // 4096) * 4096)


def _changed(now: np.ndarray, before: np.ndarray, keep) -> np.ndarray:
    """Rows of ``now`` that differ from ``before`` outside the ``keep`` byte ranges: first
    8 bytes at a time (the words wholly inside a kept range skipped), then byte by byte for
    the rows that word test flags."""
    w8 = now.shape[1] // 8 * 8
    cand = np.zeros(now.shape[0], bool)
    if w8 and now.strides[1] == 1 and (now.strides[0] % 8 == 0 or now.shape[0] == 1) \
            and now.ctypes.data % 8 == 0:
        d = np.ascontiguousarray(now[:, :w8]).view(np.uint64) != \
            np.ascontiguousarray(np.broadcast_to(before, now.shape)[:, :w8]).view(np.uint64)
        for a, e in keep:
            d[:, -(-a // 8): e // 8] = False
        cand = d.any(axis=1)
        cand |= (now[:, w8:] != before[:, w8:]).any(axis=1)
        rows = np.flatnonzero(cand)
    else:
        rows = np.arange(now.shape[0])
    out = np.zeros(now.shape[0], bool)
    if rows.size:
        d = now[rows] != np.broadcast_to(before, now.shape)[rows]
        for a, e in keep:
            d[:, a:e] = False
        out[rows] = d.any(axis=1)
    return out


def core_size(cfg: FuzzConfig, backend: str) -> int:
    """Instances per core of N: :data:`BATCH_CORE` for a kernel launch (many blocks); on NumPy
    ~2^18 index values a step, so each step's temporaries stay in L2 (1.6x faster than cores
    of 4096 x 256)."""
    if backend != "numpy":
        return BATCH_CORE
    return max(16, min(BATCH_CORE, (1 << 18) // max(cfg.n_idx, 1)))


def run_instances(cfg: FuzzConfig, values: np.ndarray | None, backend: str = "numpy", *,
                  raw: np.ndarray | None = None, watch: bool = False, info: dict | None = None):
    """Many instances (one row of generator values each, or ``raw``: their index arrays,
    :func:`cast_indices`) through the public API on cores of N instances: the program of
    :func:`run_single`, run once per core of up to :func:`core_size`. Returns (output bytes,
    one row per instance; fault messages or None), and with ``watch`` the (N,) stray-write
    mask (:class:`Watch`). ``info`` receives the cores' step counts (``Core.steps`` summed)
    and ``fault_elem``: each instance's first faulting destination element (row-major; -1:
    none, or not named by its fault)."""
    import warnings

    import ptogpu as pto
    if raw is None:
        values = np.asarray(values)
        raw = cast_indices(cfg, values.reshape(-1)).reshape(len(values), -1)
    N = len(raw)
    L = layout(cfg)
    T = dtypes.as_dtype(cfg.dtype)
    outs, faults, elems, strays = [], [], [], []
    keep = cfg.instruction.footprint(cfg, L)
    need = cfg.instruction.needs(cfg, L)
    per = core_size(cfg, backend)
    for a in range(0, N, per):
        idx = raw[a: a + per]
        key, core = _take_core(pto, cfg, backend, len(idx))
        w = Watch(core, keep) if watch else None
        with core, warnings.catch_warnings():           # (an exception drops the core)
            warnings.simplefilter("ignore")
            try:                        # (the batch of one is the single core: it raises)
                o = _run(pto, core, cfg, L, T, idx[0] if len(idx) == 1 else idx,
                         before=w.start if w else None)
                f = list(core.faults)
            except PtoFault as e:
                o, f = cfg.instruction.read_out(core, cfg, L), [e]
        outs.append(o.reshape(len(idx), -1))
        if f.count(None) == len(f):         # (a list of N: no Python step per instance)
            faults += f
            elems.append(np.full(len(f), -1, np.int64))
        else:
            faults += [None if e is None else fault_text(e) for e in f]
            elems.append(np.array([_element(cfg, e) for e in f], np.int64))
        if w:
            strays.append(w.stray() if w.saved else np.zeros(len(idx), bool))
        if info is not None:
            for k, c in core.steps.items():
                info[k] = info.get(k, 0) + c
        if not (w and strays[-1].any()):    # a stray write may lie past what clear zeroes
            # (the NumPy semantics write only what the program asks: its footprint; its inputs
            # lie below what it needs)
            core.clear({s: max(window(core, keep, s, slack=bool(w)), need.get(s, 0)) for s in core.banks
                        if not core.banks[s].shared})
            _give_back(key, core)
    if info is not None:
        info["fault_elem"] = np.concatenate(elems) if elems else np.zeros(0, np.int64)
    ob = outs[0].shape[1] if outs else 0
    out = (outs[0] if len(outs) == 1 else np.concatenate(outs) if outs else np.zeros((0, ob), np.uint8)), faults
    if watch:
        return (*out, np.concatenate(strays) if strays else np.zeros(0, bool))
    return out


def _element(cfg: FuzzConfig, fault) -> int:
    """The row-major number of the destination element a fault names (-1: none named)."""
    at = getattr(fault, "element", None)
    return -1 if at is None else int(at[0]) * max(cfg.cols, 1) + int(at[1])


_REUSE = threading.local()


def _take_core(pto, cfg: FuzzConfig, backend: str, n: int):
    """A clean core of n instances for ``cfg``'s target: one this thread cleared after an
    earlier run when there is one (a fresh core of 4096 instances pays a page fault per
    instance), else a new one. Returns (key, core) for :func:`_give_back`."""
    key = (cfg.target, backend, tuple(sorted(cfg.core_quirks.items())), n)
    cores = getattr(_REUSE, "cores", None)
    if cores is None:
        cores = _REUSE.cores = {}
    core = cores.pop(key, None)
    return key, core or pto.Core(cfg.target, backend, quirks=cfg.core_quirks, batch=n)


def _give_back(key, core) -> None:
    """Keep a cleared core for the next run (the three last used: a chunked run needs two
    sizes)."""
    cores = _REUSE.cores
    cores[key] = core
    while len(cores) > 3:
        cores.pop(next(iter(cores)))


def _run(pto, core, cfg, L, T, idx, before=None) -> np.ndarray:
    """The instance's program; ``idx`` is one instance's values, or one row per instance of a
    core of N (then every input is per instance and the output has a row per instance).
    ``before()`` is called just before the instruction (after its inputs are in place)."""
    K = core.batch

    def each(a: np.ndarray, *shape: int) -> np.ndarray:
        return a.reshape(*shape) if K == 1 else a.reshape(K, *shape)
    cfg.instruction.program(pto, core, cfg, L, T, idx, each, before or (lambda: None))
    return cfg.instruction.read_out(core, cfg, L)
