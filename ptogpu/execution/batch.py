"""Batched execution: one instruction configuration over N independent instances.

All instances share the table (or TGATHERB src); each has its own index tile, produced by a
counter-based generator from (seed, instance number), an array, or a callable
(``ptogpu.execution.rng.Generator``). Instances are streamed in chunks sized from free memory, so
N can be 10^9; each chunk returns the output bytes and per-instance fault records, or only a
digest when ``keep_outputs=False``.

Every batch runs the public API on cores of N instances (``execution.single.run_instances``:
one kernel launch over N blocks on ``native`` / ``cupy``, one batch-first NumPy step along the
instances on ``numpy``, the table shared; on a kernel backend a
:class:`~ptogpu.execution.single.Watch` marks any instance whose kernel wrote outside its
destination), a core at a time: each core's index tiles are generated, run and digested while
they are in cache. There is no second implementation: the bytes are the instruction's own.
On native, MGATHER into UB from counter generators runs the same kernels one tile at a time
in the executing engine (``execution.engine``).

    from ptogpu.execution.batch import run_batch
    from ptogpu.fuzz import FuzzConfig
    res = run_batch(FuzzConfig(target="a5", mode="elem", oob="wrap"), n=100_000, seed=1)
    res.outputs     # (N, bytes) uint8: the destination tile's whole storage per instance
    res.faults      # (N,) int8: 0 none, 1 index read, 2 table read, 3 dst write, 4 other
"""
from __future__ import annotations

import ctypes

from concurrent.futures import Executor
from dataclasses import dataclass
from typing import ClassVar, Iterator

import numpy as np

from ..backend.heap import keep_freed_heap
from ..backend.kernels import LAUNCHES
from ..backend.launch import free_device_bytes, free_host_bytes
from .config import FuzzConfig
from . import engine
from .rng import Generator, check_instances
from .shards import RangeSpec
from .single import cast_indices, check_fits, core_size, fault_code, layout, run_instances, run_single


@dataclass
class BatchResult:
    start: int                       # first instance number
    n: int
    outputs: np.ndarray | None       # (n, out_bytes) uint8, or None (digest only)
    faults: np.ndarray               # (n,) int8 fault codes (ptogpu.execution.single.F_*)
    fault_elem: np.ndarray           # (n,) int64: first faulting element (-1: none / unknown)
    digest: int                      # order-independent digest of (instance, bytes, fault)
    path: str                        # "vector" | "loop" | "kernel"
    n_faults: int = 0                # instances that faulted
    backend: str = ""                # the backend that ran it ("auto" resolved)
    stray: np.ndarray | None = None  # (n,) bool: a kernel wrote outside its destination (None: no kernel ran)

    @classmethod
    def merge(cls, parts: list["BatchResult"]) -> "BatchResult":
        """The result of one run over the union of ``parts`` (shards or chunks of one batch):
        digests XORed (the digest is order-independent), faults summed, outputs and fault
        records concatenated in instance order. The parts must tile one instance range."""
        from .shards import check_tiling
        parts = sorted(parts, key=lambda p: p.start)
        start, n = check_tiling([(p.start, p.n) for p in parts], "batch shards")
        keep = [p.outputs is not None for p in parts]
        if any(keep) and not all(keep):
            raise ValueError("batch shards mix kept outputs and digest-only runs")
        dig = 0
        for p in parts:
            dig ^= p.digest
        return cls(start, n, np.concatenate([p.outputs for p in parts]) if all(keep) else None,
                   np.concatenate([p.faults for p in parts]), np.concatenate([p.fault_elem for p in parts]), dig,
                   "+".join(sorted({q for p in parts for q in p.path.split("+")})),
                   sum(p.n_faults for p in parts), "+".join(sorted({p.backend for p in parts})))


BATCH_SCHEMA = "ptogpu.batch/1"


@dataclass(frozen=True)
class BatchSpec(RangeSpec):
    """A batch as data (``ptogpu.batch/1``): configuration settings, generator, seed, instance
    range, backend, digest-only or not. :meth:`shard` slices it, :meth:`run` runs it here,
    :func:`run_sharded` runs k shards on an executor and merges them."""
    settings: dict
    n: int
    start: int = 0
    generator: str = "mixed"
    seed: int = 0
    backend: str = "auto"
    keep_outputs: bool = False
    path: str = "auto"
    target: str = "a5"
    exec: str = "auto"
    SCHEMA: ClassVar[str] = BATCH_SCHEMA
    KIND: ClassVar[str] = "batch"
    REQUIRED: ClassVar[tuple[str, ...]] = ("settings", "n")

    @classmethod
    def of(cls, cfg: FuzzConfig, n: int, **kw) -> "BatchSpec":
        from .config import settings
        return cls(settings(cfg), n, target=cfg.target, exec=cfg.exec, **kw)

    def config(self) -> FuzzConfig:
        from .config import config_from_settings
        return config_from_settings(self.settings).with_(target=self.target, exec=self.exec)

    def run(self, executor: Executor | None = None) -> "BatchResult":
        return run_batch(self.config(), self.n, generator=self.generator, seed=self.seed, start=self.start,
                         backend=self.backend, keep_outputs=self.keep_outputs, path=self.path,
                         executor=executor)


def run_batch_shard(spec: dict) -> BatchResult:
    """A worker's task: one shard of a batch (a ``BatchSpec`` as JSON)."""
    return BatchSpec.from_json(spec).run()


def run_sharded(spec: BatchSpec, k: int, executor: Executor | None) -> BatchResult:
    """The batch as ``k`` shards on ``executor`` (any ``concurrent.futures.Executor``; None:
    here), merged: the digest and fault count one run gives."""
    from . import executors
    from .shards import Shard
    shards = [(spec.shard(Shard(i, k)).to_json(),) for i in range(k)]
    return BatchResult.merge(executors.gather(run_batch_shard, shards, executor))


def chunk_size(cfg: FuzzConfig, n: int, budget: int | None = None, backend: str = "numpy",
               per: int | None = None) -> int:
    """Instances per chunk: a small share (1/16, at most 256 MiB) of free host memory, and of
    free device memory on ``cupy``; ``per``: bytes an instance holds (default: the array
    paths' temporaries)."""
    per = per or 64 * max(cfg.n_idx, 1) + 8 * out_bytes(cfg) + 64
    if budget is None:
        budget = min(free_host_bytes() // 16, 256 << 20)
        dev = free_device_bytes() if backend == "cupy" else None
        if dev is not None:
            budget = min(budget, dev // 16)
    return int(max(256, min(n, budget // per, 1 << 20)))


def out_bytes(cfg: FuzzConfig) -> int:
    return cfg.instruction.out_bytes(cfg, layout(cfg))


DIGEST_ROWS = 1024
"""Rows a NumPy digest step holds (their words' temporaries stay in L2)."""


def digest_rows(inst: np.ndarray, outputs: np.ndarray, faults: np.ndarray) -> np.ndarray:
    """Per-instance 64-bit digests: the sum (mod 2^64) of every 8-byte word's SplitMix64,
    keyed by its position (the row zero-padded to 8 bytes), mixed with the instance number and
    fault code. The words are independent, so NumPy takes them in whole-matrix passes and C
    in vector lanes (``cuda_src/fuzz.cu`` fz_digest: tested equal)."""
    from .rng import G1, mix64, mix64_inplace
    n, b = outputs.shape
    pad = (-b) % 8
    h = mix64(np.asarray(inst).astype(np.uint64) ^ (faults.astype(np.int64).view(np.uint64) << np.uint64(56)))
    if not b or not n:
        return mix64(h)
    nw = (b + pad) // 8
    with np.errstate(over="ignore"):
        key = np.arange(1, nw + 1, dtype=np.uint64) * G1
        for a in range(0, n, DIGEST_ROWS):
            rows = outputs[a: a + DIGEST_ROWS]
            if pad or not rows.flags.c_contiguous:
                rows = np.concatenate([rows, np.zeros((len(rows), pad), np.uint8)], 1)
            x = rows.view(np.uint64) + key
            h[a: a + DIGEST_ROWS] += mix64_inplace(x).sum(axis=1, dtype=np.uint64)
    return mix64(h)


def batch_digest(inst: np.ndarray, outputs: np.ndarray, faults: np.ndarray, backend: str = "numpy") -> int:
    """The XOR of :func:`digest_rows`; a batch on native computes it there (one pass, the
    same SplitMix64 steps: tested equal)."""
    if not inst.size:
        return 0
    if backend != "native":
        return int(np.bitwise_xor.reduce(digest_rows(inst, outputs, faults)))
    from ..backend import native_backend
    f = native_backend.load("fuzz").pto_digest_rows
    f.restype = ctypes.c_uint64
    o = np.ascontiguousarray(outputs, np.uint8)
    i = np.ascontiguousarray(inst, np.int64)
    c = np.ascontiguousarray(faults, np.int8)
    return int(f(ctypes.c_void_p(o.ctypes.data), ctypes.c_longlong(o.shape[0]), ctypes.c_longlong(o.shape[1]),
                 ctypes.c_void_p(i.ctypes.data), ctypes.c_void_p(c.ctypes.data)))


# -- cores of N: the public API over a chunk ---------------------------------------------------
def indices(cfg: FuzzConfig, generator: Generator, inst: np.ndarray, backend: str = "numpy") -> np.ndarray:
    """The instances' index (or data) arrays, one row each, as the program takes them: a
    32-bit index type from the generator's 32-bit lanes (``Generator.lo32``: the same wrapping
    cast, half the memory traffic), on native from the native generator, else the values
    cast by the instruction."""
    if not inst.size:
        return np.zeros((0, cfg.n_idx), np.int64)
    if cfg.instruction.lo32_cast(cfg) and backend != "native":
        lo = generator.lo32(inst, cfg.n_idx, cfg.cap)
        if lo is not None:
            return lo.view(np.dtype(cfg.index_dtype)).reshape(inst.size, -1)
    vals = generator.native(inst, cfg.n_idx, cfg.cap) if backend == "native" else None
    vals = generator(inst, cfg.n_idx, cfg.cap) if vals is None else vals
    return cast_indices(cfg, vals).reshape(inst.size, -1)


def _codes(faults: list) -> np.ndarray:
    """Fault codes of per-instance fault messages (None: no fault)."""
    return np.array([0 if f is None else fault_code(f) for f in faults], np.int8).reshape(len(faults))


# -- public API ---------------------------------------------------------------------------------
def _backend(name: str) -> str:
    """The backend a batch runs on: a known name that is available here (``auto`` chooses);
    anything else raises, never a quiet NumPy run under the requested name."""
    from ..backend import resolve_backend
    return resolve_backend(name)[0]


def _cat(xs: list, empty):
    """The pieces as one array (the piece itself when there is one; ``empty`` when none)."""
    return xs[0] if len(xs) == 1 else np.concatenate(xs) if xs else empty


def run_chunk(cfg: FuzzConfig, inst: np.ndarray, generator: Generator, backend: str = "numpy",
              keep_outputs: bool = True, path: str = "auto", *, values: np.ndarray | None = None,
              raw: np.ndarray | None = None, digest: bool = True, out: np.ndarray | None = None,
              watch: bool | None = None) -> BatchResult:
    """Instances ``inst`` (consecutive numbers) of ``cfg``; ``path`` "auto" | "vector" (every
    instance at once on cores of N: one kernel launch, or one NumPy step along the instances;
    an error where a step would run instance by instance) | "loop" (each instance on a single
    core of its own: the reference). ``values``: the generator's values for ``inst`` when the
    caller has them already; ``raw``: the instances' index arrays (``indices``); ``out``: where
    the outputs go (one row per instance; the batch's own array, so no chunk is copied twice);
    ``watch``: look for writes outside the program's footprint (default: on a kernel backend)."""
    backend = _backend(backend)
    inst = np.asarray(inst, np.int64)
    N = inst.size
    kernel = backend in ("native", "cupy") and path == "auto"
    if kernel and backend == "native" and values is None and raw is None and N \
            and engine.covers(cfg, generator) and int(inst[-1]) - int(inst[0]) + 1 == N:
        # the executing engine's kernels per tile (the same launch as the core's, in cache)
        o, c, d, stray = engine.run_tiles(cfg, generator, int(inst[0]), N, keep_outputs, out)
        if out is not None and o is not None and o is not out:
            out[:] = o
            o = out
        return BatchResult(int(inst[0]), N, o, c, np.full(N, -1, np.int64),
                           int(np.bitwise_xor.reduce(d)) if digest else 0, "kernel",
                           int(np.count_nonzero(c)), backend, stray)

    def rows(sl: slice) -> np.ndarray:        # the index arrays of instances inst[sl]
        if raw is not None:
            return raw[sl]
        if values is not None:
            return cast_indices(cfg, values[sl]).reshape(len(values[sl]), -1)
        return indices(cfg, generator, inst[sl], backend)

    ob = out_bytes(cfg)
    outs, codes, elems, strays = [], [], [], []
    dig = 0
    keep_freed_heap()                       # NumPy's per-core temporaries: no page faults
    if path == "loop":
        for k in range(N):
            o, f = run_single(cfg, rows(slice(k, k + 1))[0], backend, cast=False)
            outs.append(o.reshape(1, ob))
            codes.append(_codes([f]))
        used = "loop"
        elems = [np.full(N, -1, np.int64)]
    else:
        info: dict = {}
        launched = LAUNCHES[0]
        per = core_size(cfg, backend if kernel else "numpy")
        for a in range(0, N, per):          # one core a piece: generated, run, digested in cache
            sl = slice(a, a + per)
            o, f, *w = run_instances(cfg, None, backend if kernel else "numpy", raw=rows(sl),
                                     watch=kernel if watch is None else watch, info=info)
            c = _codes(f)
            if digest:
                dig ^= batch_digest(inst[sl], o, c, backend)
            if keep_outputs and out is not None:
                out[sl] = o
            elif keep_outputs:
                outs.append(o)
            codes.append(c)
            elems.append(info.pop("fault_elem"))
            strays += w
        # what ran: every instance at once (a kernel launch, or NumPy along the instances),
        # or the instructions instance by instance
        # (a kernel backend whose kernel left every call to NumPy -- a type or form it does not
        # take -- ran the NumPy semantics: "vector", not "kernel")
        ran_kernel = kernel and (LAUNCHES[0] != launched or not N)
        used = "loop" if info.get("per_instance") else "kernel" if ran_kernel else "vector"
        if path == "vector" and used == "loop":
            raise ValueError(f"no vectorised path for {cfg.label}")
    c = _cat(codes, np.zeros(0, np.int8))
    if digest and path == "loop" and N:
        dig = batch_digest(inst, _cat(outs, None), c, backend)
    if keep_outputs and out is not None and outs:
        out[:] = _cat(outs, None)
    return BatchResult(int(inst[0]) if N else 0, N,
                       (out if out is not None else _cat(outs, np.zeros((0, ob), np.uint8))) if keep_outputs else None,
                       c, _cat(elems, np.zeros(0, np.int64)), dig, used, int(np.count_nonzero(c)),
                       backend, _cat(strays, None) if (kernel if watch is None else watch) and path != "loop" else None)


def poolable(backend: str, gen: Generator) -> bool:
    """Whether local worker processes may run a batch's chunks: NumPy runs (native spreads
    over the cores through OpenMP, cupy over the GPU) of a generator a worker can rebuild (not a
    function)."""
    return backend == "numpy" and gen.fn is None


def iter_batches(cfg: FuzzConfig, n: int, *, generator: Generator | str = "mixed", seed: int = 0,
                 start: int = 0, backend: str = "auto", chunk: int | None = None,
                 keep_outputs: bool = True, path: str = "auto",
                 executor: Executor | None = None, out: np.ndarray | None = None) -> Iterator[BatchResult]:
    """Stream ``n`` instances (numbers ``start .. start+n-1``) in chunks, yielded in order.
    The chunks run on ``executor`` when one is given (any ``concurrent.futures.Executor``);
    else big digest-only NumPy runs (``keep_outputs=False``, a counter or array generator)
    compute them in local worker processes (``ptogpu.execution.executors``). ``out`` (chunks
    run here only): the (n, bytes) array the chunks' outputs are written into."""
    gen = generator if isinstance(generator, Generator) else Generator(generator, seed)
    backend = _backend(backend)
    check_instances(start, n)
    if chunk is not None and chunk < 1:
        raise ValueError(f"chunk must be at least 1 instance, not {chunk}")
    check_fits(cfg)
    if backend == "native" and path == "auto" and engine.covers(cfg, gen):
        # the engine holds one tile at a time: a chunk is its outputs, codes and digests
        step = chunk or min(1 << 18, chunk_size(cfg, n, per=(out_bytes(cfg) if keep_outputs else 0) + 32))
    else:
        # NumPy: chunks of 16 cores (each core's temporaries stay in cache)
        step = chunk or (chunk_size(cfg, n, backend=backend) if backend in ("native", "cupy")
                         else min(chunk_size(cfg, n), 16 * core_size(cfg, "numpy")))
    if n > 0 and path != "loop":
        # The array paths run no static checks: the public API judges one instance first and
        # raises the PtoCheckError the C++ compiler would.
        run_single(cfg, gen(np.array([start], np.int64), cfg.n_idx, cfg.cap)[0])
    from . import executors
    shared = isinstance(out, executors.SharedRows)
    ex, _ = executors.choose(executor, n * cfg.n_idx,
                             poolable(backend, gen) and (not keep_outputs or shared))
    if out is not None and ex is not None and not shared:
        raise ValueError("out= takes chunks run in this process (or a SharedRows)")
    tasks = ((a, min(a + step, start + n)) for a in range(start, start + n, step))
    yield from executors.ordered_map(_chunk_task, tasks, ex,
                                     shared=(cfg, gen, backend, keep_outputs, path, out, start))


def _chunk_task(ctx: tuple, a: int, b: int) -> BatchResult:
    from .executors import SharedRows
    cfg, gen, backend, keep_outputs, path, out, start = ctx
    if not isinstance(out, SharedRows):
        return run_chunk(cfg, np.arange(a, b, dtype=np.int64), gen, backend, keep_outputs, path,
                         out=None if out is None else out[a - start: b - start])
    rows = out.rows(a - start, b - start)          # (a worker's chunk: its outputs stay there)
    res = run_chunk(cfg, np.arange(a, b, dtype=np.int64), gen, backend, keep_outputs, path, out=rows)
    del rows                  # (a shared mapping: the caller sees the bytes as they are written)
    res.outputs = None
    return res


def run_batch(cfg: FuzzConfig, n: int, *, generator: Generator | str = "mixed", seed: int = 0,
              start: int = 0, backend: str = "auto", chunk: int | None = None,
              keep_outputs: bool = True, path: str = "auto", executor: Executor | None = None) -> BatchResult:
    """Run ``n`` instances and concatenate the chunks. ``keep_outputs=False``: only the digest
    and the fault count come back, and memory stays bounded by one chunk whatever ``n``."""
    backend = _backend(backend)          # resolved once: the result names what ran
    outs, codes, elems, paths = [], [], [], set()
    dig = nf = 0
    ob = out_bytes(cfg)
    check_instances(start, n)
    # outputs kept go straight into the batch's array (no chunk is concatenated), which local
    # worker processes share when a big NumPy run has them (executors.SharedRows)
    from . import executors
    gen = generator if isinstance(generator, Generator) else Generator(generator, seed)
    buf = None
    if keep_outputs and executor is None:
        pooled = poolable(backend, gen) and path != "loop" and executors.workers(n * cfg.n_idx)
        buf = executors.SharedRows(n, ob) if pooled else np.empty((n, ob), np.uint8)
    try:
        for p in iter_batches(cfg, n, generator=gen, start=start, backend=backend, chunk=chunk,
                              keep_outputs=keep_outputs, path=path, executor=executor, out=buf):
            dig ^= p.digest
            nf += p.n_faults
            paths.add(p.path)
            if keep_outputs:                 # digest only: nothing per instance is kept
                if buf is None:
                    outs.append(p.outputs)
                codes.append(p.faults)
                elems.append(p.fault_elem)
        if isinstance(buf, executors.SharedRows):
            buf = buf.take()
    finally:
        if isinstance(buf, executors.SharedRows):
            buf.close()
    if buf is not None:
        outs = [buf]
    return BatchResult(start, n, _cat(outs, np.zeros((0, ob), np.uint8)) if keep_outputs else None,
                       _cat(codes, np.zeros(0, np.int8)), _cat(elems, np.zeros(0, np.int64)), dig,
                       "+".join(sorted(paths)) or "vector", nf, backend)


__all__ = ["BatchResult", "run_batch", "iter_batches", "run_chunk", "chunk_size", "free_host_bytes"]
