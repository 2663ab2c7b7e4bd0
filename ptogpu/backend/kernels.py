"""Shared glue for the kernel backends: which ``.cu`` defines a kernel, one-instance launches on
a Core's arenas, and the parameter-block helpers every ``*_kernels`` module uses.

A kernel returns a fault record per instance (``FAULT_WORDS`` uint64: key, address, value,
flags; common.cuh). The instruction modules run the kernel and, when the record says the
instance faulted (or, for the few kernels that detect it, that its reads and writes alias),
leave the call to the NumPy semantics: the kernel wrote nothing, so NumPy raises exactly the
fault the NumPy backend raises (same type, same message, same partial effects).
"""
from __future__ import annotations

import collections
import contextlib
import os

import numpy as np

from . import sources

KERNEL_BACKENDS = ("native", "cupy")
M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
NONE = M64
ALIAS_FLAG_WORD = 3          # rec[3] == 0: the instance's reads and writes alias (see kernels)


def i64(v: int) -> int:
    """A Python int as the int64 with the same low 64 bits (uint64 arithmetic in kernels)."""
    v = int(v) & M64
    return v - (1 << 64) if v >= 1 << 63 else v


def enum(filename: str, name: str) -> int:
    return sources.enum_values(filename)[name]


def backend_module(name: str):
    if name == "native":
        from . import native_backend
        return native_backend
    if name == "cupy":
        from . import cupy_backend
        return cupy_backend
    raise ValueError(f"backend {name!r} runs no kernels")


def core_arenas(core) -> dict:
    return {s: (core.arena(s)._buf, core.arena(s).size, 0) for s in ("gm", "ub", "l1")}


AROUND_MAX = 64 << 20
"""Bytes a launch may copy to run on a core of N some of whose instances have stopped: the
live instances' memories into a launch of their own, or the stopped ones' written memories set
aside and put back, whichever is fewer (estimated before the call: every memory for the live
ones, UB and GM for the stopped ones). Past it the call runs as the NumPy batch rule: the same
bytes, only the speed and what ``executed`` says differ."""


def kept_instances(core) -> np.ndarray:
    """The instances a launch must leave as they are: those stopped on a fault (and, while a
    program's parked instances resume, the parked ones, which keep their memory)."""
    return np.flatnonzero(~core.live if core.resume else ~(core.live | core.parked))


def launchable(core) -> bool:
    """A launch may run over ``core``'s instances: none is kept (:func:`kept_instances`), or
    moving the fewer of the kept and the live ones' memories costs at most :data:`AROUND_MAX`
    bytes. (Every live instance runs the kernel either way: a stopped one's bytes never change.)"""
    kept = kept_instances(core)
    if not kept.size:
        return True
    live = core.batch - kept.size
    b = core.banks
    return live > 0 and min(kept.size * (b["ub"].size + b["gm"].size),
                            live * sum(x.size for x in b.values())) <= AROUND_MAX


def launch_instances(core, kernel: str, params, *, block=(1, 1, 1), passes: int = 1,
                     writes=("gm", "ub", "l1")) -> np.ndarray:
    """``kernel`` over every instance of a core of N at once (one launch, N blocks: instance k
    is block k over row k of each memory bank); the (N, FAULT_WORDS) records. An instance that
    has stopped keeps its memory: where some have, the live ones run in a launch of their own
    (their memories copied out and back) or the stopped ones' written bytes are set aside and
    put back, whichever moves fewer (:func:`launchable`; NotBatched where neither is cheap), and
    their records read clean. ``writes`` names the memories the kernel may write; an entry
    ``(space, lo, hi)`` also says it writes only bytes [lo, hi) there (what a kept core then
    restores, instead of looking for written pages)."""
    from ..errors import NotBatched
    if not launchable(core):
        raise NotBatched(kernel)
    spans = {w[0]: (int(w[1]), int(w[2])) for w in writes if isinstance(w, tuple)}
    writes = tuple(w[0] if isinstance(w, tuple) else w for w in writes)
    arenas = {s: b.launch_view(s in writes, spans.get(s)) for s, b in core.banks.items()}
    kept = kept_instances(core)
    if not kept.size:
        recs = launch(core.backend, kernel, block, core.batch, arenas, params, passes=passes, writes=writes)
    else:
        recs = _launch_around(core, kernel, block, arenas, params, passes, writes, spans, kept)
    _noted(core, kernel, recs, writes)
    return recs


def _launch_around(core, kernel, block, arenas, params, passes, writes, spans, kept) -> np.ndarray:
    """:func:`launch_instances` on a core some of whose instances (``kept``) must not change."""
    n = core.batch
    words = recs_words()
    live = np.setdiff1d(np.arange(n), kept)
    out = np.full((n, words), np.uint64(NONE), np.uint64)
    ranges = {s: spans.get(s, (0, arenas[s][1])) for s in writes}
    if live.size <= kept.size:                  # the live ones alone, in arenas of their own
        sub, moved = {}, []
        for s, (flat, size, stride) in arenas.items():
            if not stride:                      # (a shared row, read only: as it is)
                sub[s] = (flat, size, 0)
                continue
            pitch = -(-max(size, 1) // 64) * 64
            rows = np.zeros((live.size, pitch), np.uint8)
            rows[:, :size] = flat.reshape(n, stride)[live, :size]
            sub[s] = (rows.reshape(-1), size, pitch)
            if s in writes:
                moved.append((flat.reshape(n, stride), rows, ranges[s]))
        out[live] = launch(core.backend, kernel, block, live.size, sub, params, passes=passes, writes=writes)
        for whole, rows, (lo, hi) in moved:
            lo, hi = max(lo, 0), min(hi, rows.shape[1])
            if hi > lo:
                whole[live, lo:hi] = rows[:, lo:hi]
        return out
    aside = []                                  # the stopped ones' written bytes, set aside
    for s in writes:
        flat, size, stride = arenas[s]
        lo, hi = max(ranges[s][0], 0), min(ranges[s][1], size)
        if stride and hi > lo:
            whole = flat.reshape(n, stride)
            aside.append((whole, whole[kept, lo:hi].copy(), lo, hi))
    got = launch(core.backend, kernel, block, n, arenas, params, passes=passes, writes=writes)
    for whole, bytes_, lo, hi in aside:
        whole[kept, lo:hi] = bytes_
    if writes and _COUNTING[0]:                 # (their runs were undone: not runs)
        RUNS[kernel] -= int((got[kept, 0] == np.uint64(NONE)).sum())
    out[live] = got[live]
    return out


def recs_words() -> int:
    """FAULT_WORDS: the uint64 words of a kernel's per-instance fault record (common.cuh)."""
    return sources.enum_values("mgather.cu")["FAULT_WORDS"]


SIMT_KERNELS = frozenset({"mgather_a5_elem", "mgather_a5_row", "mgather_l1_elem_simt", "mscatter_a5_last",
                          "mscatter_a5_source"})
"""The kernels that execute an A5 SIMT launch, lane by lane (``dim3{32, warps}``); every other
kernel runs a target's loop (A5's 1x1 tiles included: ``mgather_a5_scalar``)."""


def _noted(core, kernel: str, recs: np.ndarray, writes) -> None:
    """A launch that writes, in the step's record of launches (``Core.execute_noting``): its
    kernel, and whether it left instances to NumPy (clean records that say they alias)."""
    if core._launched is not None and writes:
        r = np.asarray(recs)
        core._launched.append((kernel, bool(((r[:, 0] == np.uint64(NONE)) & (r[:, ALIAS_FLAG_WORD] == 0)).any())))


RUNS: collections.Counter = collections.Counter()
"""Instances each kernel ran to the end with its writes (its record clean), in this process: what
a campaign says it executed (``ptogpu fuzz`` compares a known campaign's with its record), so a
kernel that silently leaves a call to NumPy shows. Shrinking is not counted (:func:`uncounted`)."""
_COUNTING = [True]
LAUNCHES = [0]
"""Launches that write (clean or not), counted always: whether a step ran a kernel at all."""


@contextlib.contextmanager
def uncounted():
    """Launches that are not the campaign's own (its shrinking): RUNS does not count them."""
    was, _COUNTING[0] = _COUNTING[0], False
    try:
        yield
    finally:
        _COUNTING[0] = was


def launch(backend: str, kernel: str, block, n_inst: int, arenas: dict, params, *,
           passes: int = 1, writes=("gm", "ub", "l1")) -> np.ndarray:
    """The one launch of the instruction API, on either kernel backend: ``kernel`` over
    ``n_inst`` instances of ``arenas`` (``(array, size, stride)`` per space), ``passes``
    passes; the (n_inst, FAULT_WORDS) records. On native, ``PTOGPU_NATIVE_THREADS=threads``
    runs every thread of a block one after another instead of lock-step warps (same bytes)."""
    be = backend_module(backend)
    extra = {"threads": os.environ.get("PTOGPU_NATIVE_THREADS", "warps")} if backend == "native" else {}
    recs = be.launch_raw(kernel, tuple(block), int(n_inst), arenas, np.asarray(params, np.int64),
                         passes=passes, writes=writes, **extra)
    if writes:
        LAUNCHES[0] += 1
    if writes and _COUNTING[0]:
        RUNS[kernel] += int((np.asarray(recs)[:, 0] == np.uint64(NONE)).sum())
    return recs


def launch_on(core, kernel: str, params, *, block=(1, 1, 1), passes: int = 1,
              arenas: dict | None = None, writes=("gm", "ub", "l1")) -> np.ndarray:
    """One instance of ``kernel`` on ``core``'s backend over its arenas (or ``arenas``, same
    form as :func:`ptogpu.backend.launch.launch_batch`); returns the (1, FAULT_WORDS) record.
    ``writes`` as :func:`launch_instances` takes it.
    On a core of N running all instances at once, every instance in one launch (the
    (N, FAULT_WORDS) records; the caller goes on only where :func:`all_clean`)."""
    if arenas is None and core.all_at_once:
        return launch_instances(core, kernel, params, block=block, passes=passes, writes=writes)
    a = core_arenas(core) if arenas is None else arenas
    writes = tuple(w[0] if isinstance(w, tuple) else w for w in writes)      # (a span: launch_instances')
    recs = launch(core.backend, kernel, block, 1, a, params, passes=passes, writes=writes)
    _noted(core, kernel, recs, writes)
    return recs


def all_clean(recs: np.ndarray) -> bool:
    """Every instance's record is :func:`clean` (one array test: N may be large)."""
    return bool((recs[:, 0] == np.uint64(NONE)).all() and (recs[:, ALIAS_FLAG_WORD] != 0).all())


def clean(rec: np.ndarray) -> bool:
    """True when the instance neither faulted nor flagged aliasing."""
    return int(rec[0]) == NONE and int(rec[ALIAS_FLAG_WORD]) != 0


def use_kernels(core) -> bool:
    """The core's instruction runs as a kernel: a kernel backend, and (running all instances
    at once) a launch that leaves every stopped instance's memory as it is costs little
    (:func:`launchable`); otherwise the NumPy batch rule runs (or, without one, instance by
    instance, each its own launch)."""
    return core.backend in KERNEL_BACKENDS and (not core.all_at_once or launchable(core))


class ParamBlock:
    """A kernel's int64 parameter block as a typed record: its fields are the ``PREFIX_*``
    constants of the kernel file's enum (read from the source, ``sources.enum_values``), set
    as attributes (``p.VR = 4``); a name the enum does not have is an AttributeError, so the
    Python side cannot drift from the kernel's layout. ``words``: the block to launch."""

    def __init__(self, filename: str, prefix: str, **fields: int) -> None:
        vals = sources.enum_values(filename)
        names = {k[len(prefix):]: v for k, v in vals.items() if k.startswith(prefix) and k != prefix + "WORDS"}
        object.__setattr__(self, "_names", names)
        object.__setattr__(self, "_where", f"{filename} {prefix}*")
        object.__setattr__(self, "words", np.zeros(vals[prefix + "WORDS"], np.int64))
        object.__setattr__(self, "_set", set())
        for k, v in fields.items():
            setattr(self, k, v)

    def __setattr__(self, name: str, value) -> None:
        if name not in self._names:
            raise AttributeError(f"{self._where} has no field {name!r} (fields: {', '.join(self._names)})")
        self.words[self._names[name]] = i64(value)
        self._set.add(name)

    def __getattr__(self, name: str) -> int:
        names = object.__getattribute__(self, "_names")
        if name not in names:
            raise AttributeError(name)
        return int(self.words[names[name]])

    def block(self, name: str, words) -> None:
        """A nested block (a tile descriptor, say) written from field ``name`` on."""
        if name not in self._names:
            raise AttributeError(f"{self._where} has no field {name!r}")
        w = np.asarray(words, np.int64)
        at = self._names[name]
        self.words[at: at + w.size] = w
        self._set.add(name)

    def unset(self) -> list[str]:
        """Fields never set (a launch plan that forgets one is a bug: tests ask this)."""
        return [k for k in self._names if k not in self._set]


class Consts:
    """A kernel file's enum constants as attributes, read from its source (``K = Consts("fuzz.cu")``,
    ``K.FZ_DIFF``; ``K[name]`` for a name built at run time); a name the file does not define
    is an AttributeError, so the Python side cannot drift from the kernels."""

    def __init__(self, filename: str) -> None:
        self._file = filename

    def __getattr__(self, name: str) -> int:
        if name.startswith("_"):
            raise AttributeError(name)
        vals = sources.enum_values(self._file)
        if name not in vals:
            raise AttributeError(f"{self._file} defines no {name}")
        return vals[name]

    def __getitem__(self, name: str) -> int:
        return self.__getattr__(name)

    def __repr__(self) -> str:
        return f"Consts({self._file!r})"
