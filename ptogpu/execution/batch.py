"""Batched execution: one instruction configuration over N independent instances.

All instances share the table (or TGATHERB src); each has its own index tile, produced by a
counter-based generator from (seed, instance number), an array, or a callable
(``ptogpu.execution.rng.Generator``). Instances are streamed in chunks sized from free memory, so
N can be 10^9; each chunk returns the output bytes and per-instance fault records, or only a
digest when ``keep_outputs=False``.

Batches run the public API on cores of N instances (``execution.single.run_instances``: one
kernel launch over N blocks, or one batch-first NumPy step, the table shared; paths "kernel"
and "vector"; on a kernel backend a :class:`~ptogpu.execution.single.Watch` marks any
instance whose kernel wrote outside its destination): every configuration on ``native`` /
``cupy``, and TGATHERB, TINTERLEAVE and the CPU simulator's GM->L1 on NumPy. Two NumPy array
twins remain, MGATHER into UB and the NPUs' GM->L1 (the registry says which:
``FuzzConfig.instruction.on_core``); they are vectorised across instances and give exactly the
bytes of the single-instance public API (``ptogpu.execution.single.run_single``;
tests/test_batch.py checks random configurations); instances they decline (a GM->L1 Elem
read of the scratch being written) run through the public API ("loop").

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

from .. import dtypes
from ..backend.launch import free_host_bytes
from .config import FuzzConfig, pad_to
from . import engine
from .rng import Generator, check_instances
from .shards import RangeSpec
from .single import F_OTHER, F_TABLE, cast_indices, check_fits, fault_code, layout, run_instances, run_single
from ..targets import get_target
from ..semantics.indexing import prod

M32 = np.uint64(0xFFFFFFFF)


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
        cat = lambda xs: np.concatenate(xs) if xs else xs
        return cls(start, n, cat([p.outputs for p in parts]) if all(keep) else None,
                   cat([p.faults for p in parts]), cat([p.fault_elem for p in parts]), dig,
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


def free_device_bytes() -> int | None:
    """Free memory of the current CUDA device, or None without one."""
    try:
        import cupy
        return int(cupy.cuda.runtime.memGetInfo()[0])
    except Exception:
        return None


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


def cache_chunk(cfg: FuzzConfig, n: int) -> int:
    """Instances per chunk for the NumPy array code: ~128 K index values, so the temporaries
    (uint32 and int64 arrays of that length) stay in a 2 MiB L2 (3-4x faster than memory-sized
    chunks, ~20% faster than 256 K); never more than :func:`chunk_size`."""
    return int(max(16, min(chunk_size(cfg, n), (1 << 17) // max(cfg.n_idx, 1))))


def out_bytes(cfg: FuzzConfig) -> int:
    return cfg.instruction.out_bytes(cfg, layout(cfg))


def digest_rows(inst: np.ndarray, outputs: np.ndarray, faults: np.ndarray) -> np.ndarray:
    """Per-instance 64-bit digests (SplitMix64 over the bytes, padded to 8)."""
    from .rng import mix64
    n, b = outputs.shape
    pad = (-b) % 8
    w = np.concatenate([outputs, np.zeros((n, pad), np.uint8)], 1).view(np.uint64) if n else \
        np.zeros((0, 1), np.uint64)
    h = mix64(inst.astype(np.uint64) ^ (faults.astype(np.uint64) << np.uint64(56)))
    with np.errstate(over="ignore"):
        for k in range(w.shape[1]):
            h = mix64(h + w[:, k] * np.uint64(0x9E3779B97F4A7C15) + np.uint64(k))
    return h


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


# -- the vectorised NumPy paths -------------------------------------------------------------
def _cast(raw: np.ndarray, bits: int) -> np.ndarray:
    if raw.dtype.kind == "i":
        return raw.astype(np.int64).view(np.uint64) & (M32 if bits == 32 else np.uint64(~np.uint64(0)))
    return raw.astype(np.uint64) & (M32 if bits == 32 else np.uint64(0xFFFFFFFFFFFFFFFF))


class _WrapByZero(Exception):
    """GatherOOB::Wrap with capacity 0: every instance faults (u % 0), as the single call does."""


def _remap(u: np.ndarray, cap: int, oob: str, bits: int):
    mask = (1 << bits) - 1
    cap &= mask
    capu = np.uint64(cap)
    if oob == "wrap" and cap == 0 and u.size:
        raise _WrapByZero
    if oob == "clamp":
        last = np.uint64((cap - 1) & mask)
        return (np.minimum(u, last) if bits == 64 else np.where(u >= capu, last, u)), None
    if oob == "wrap":
        if cap and not cap & (cap - 1):
            return u & np.uint64(cap - 1), None            # a power of two: no division
        return u % capu, None
    if oob == "zero":
        return u, u < capu
    return u, None


def _first(bad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(any bad per instance, first bad linear position or -1) over the trailing axes."""
    flat = bad.reshape(bad.shape[0], -1)
    if flat.shape[1] == 0:                     # nothing to check (an empty region)
        return np.zeros(flat.shape[0], bool), np.full(flat.shape[0], -1, np.int64)
    anyb = flat.any(1)
    return anyb, np.where(anyb, flat.argmax(1), -1)


def _elem32(cfg: FuzzConfig, u: np.ndarray, gm: np.ndarray, T: int, cap: int):
    """Elem gather with 32-bit index arithmetic (static_cast<uint32_t>) when no instance can
    fault: the values, in uint32 lanes (no int64 temporaries, no byte addresses); None when
    some index may leave GM (the general path reports the fault)."""
    lim = (gm.size - T) // T                          # last element a read may start at
    tab = gm.view(np.dtype(f"u{T}"))
    if cap == 0:
        return None
    if cfg.oob == "wrap":
        safe = u & np.uint32(cap - 1) if not cap & (cap - 1) else u % np.uint32(cap)
    elif cfg.oob == "clamp":
        safe = np.minimum(u, np.uint32(cap - 1))
    elif cfg.oob == "zero":
        rd = u < np.uint32(cap)
        safe = np.where(rd, u, np.uint32(0))
    else:
        safe = u
    if (cfg.oob == "undefined" or cap - 1 > lim) and int(safe.max(initial=0)) > lim:
        return None
    vals = tab.take(safe)
    if cfg.oob == "zero":
        vals[~rd] = 0
    return vals


def _mgather_ub(cfg: FuzzConfig, raw: np.ndarray, L: dict):
    """MGATHER into UB, ND table, any cfg.layout (all targets): (outputs, faults, elem)."""
    t = get_target(cfg.target)
    rules = t.mgather
    N = raw.shape[0]
    VR, VC, T = cfg.rows, cfg.cols, L["T"]
    R, C = L["dst_shape"]
    out = np.full((N, R, C * T), cfg.dst_fill, np.uint8)
    codes = np.zeros(N, np.int8)
    elem = np.full(N, -1, np.int64)
    if VR == 0 or VC == 0 or N == 0:
        return out.reshape(N, R * C * T), codes, elem
    dpos = None
    if cfg.layout != "nd":
        # Tile.set stores the index tile at the full layout offsets; the target reads it, and
        # writes the destination, at its own offsets (full, or A5's plain Row/ColMajor).
        from .instrs.mgather import tile_classes
        IdxT, DstT = tile_classes(cfg, L)
        r, c = np.meshgrid(np.arange(VR), np.arange(VC), indexing="ij")
        full = rules.tile_offsets == "full"
        if cfg.mode == "elem":
            ir, ic = L["idx_shape"][:2]
            img = np.zeros((N, ir * ic), raw.dtype)
            img[:, IdxT.offsets(r, c).reshape(-1)] = raw.reshape(N, -1)
            raw = img[:, (IdxT.offsets(r, c) if full else IdxT.plain_offsets(r, c)).reshape(-1)]
        dpos = (DstT.offsets(r, c) if full else DstT.plain_offsets(r, c)).reshape(-1)
    bits = rules.index_bits
    S, St = cfg.shape5, cfg.stride5
    gm = np.zeros(L["gm_size"], np.uint8)
    gm[: L["table_bytes"]] = cfg.table.view(np.uint8)
    if cfg.mode == "elem" and dpos is None and bits == 32 and raw.dtype.itemsize == 4:
        fast = _elem32(cfg, raw.view(np.uint32).reshape(N, VR, VC), gm, T, prod(S) & 0xFFFFFFFF)
        if fast is not None:
            if cfg.dst_fill == 0 and C == VC and R == VR:
                return fast.view(np.uint8).reshape(N, -1), codes, elem
            out.view(np.dtype(f"u{T}")).reshape(N, R, C)[:, :VR, :VC] = fast
            return out.reshape(N, -1), codes, elem
    mask = (1 << bits) - 1
    u = _cast(raw, bits)
    with np.errstate(over="ignore"):
        if cfg.mode == "elem":
            cap = prod(S) & mask
            safe, rd = _remap(u.reshape(N, VR, VC), cap, cfg.oob, bits)
            src = (safe * np.uint64(T)).view(np.int64)
        else:
            cap = (S[3] if rules.row_capacity == "shape3" else prod(S[:4])) & mask
            safe, rd = _remap(u.reshape(N, VR), cap, cfg.oob, bits)
            c = np.arange(VC, dtype=np.uint64)[None, None, :]
            s = safe[:, :, None]
            if rules.row_source == "strides":
                off = s * np.uint64(St[3] & 0xFFFFFFFFFFFFFFFF) + c * np.uint64(St[4] & 0xFFFFFFFFFFFFFFFF)
            elif rules.row_source == "stride3":
                off = s * np.uint64(St[3] & 0xFFFFFFFFFFFFFFFF) + c
            else:
                off = ((s * np.uint64(VC)) & M32) + c
            src = (off * np.uint64(T)).view(np.int64)
            if rd is not None:
                rd = np.broadcast_to(rd[:, :, None], (N, VR, VC))
    st = np.dtype(f"u{T}")
    outside = (src < 0) | (src > gm.size - T)
    bad = outside if rd is None else rd & outside
    if rd is None and not bad.any():                   # the common case: one gather
        fb = np.zeros(N, bool)
        vals = gm.view(st)[src // T]
    else:
        rdm = np.ones(src.shape, bool) if rd is None else rd
        fb, fe = _first(bad)
        codes[fb] = F_TABLE
        elem[fb] = fe[fb]
        vals = gm.view(st)[np.where(rdm & ~bad, src, 0) // T]
        vals = np.where(rdm, vals, 0).astype(st)
    ok = ~fb                                           # a faulting instance writes nothing
    if dpos is not None:
        flat = out.view(st).reshape(N, R * C)
        flat[:, dpos] = np.where(ok[:, None], vals.reshape(N, -1), flat[:, dpos])
        return out.reshape(N, -1), codes, elem
    view = out.view(st).reshape(N, R, C)
    view[:, :VR, :VC] = np.where(ok[:, None, None], vals, view[:, :VR, :VC])
    if cfg.mode == "row" and rules.row_tail_fill:
        tail = pad_to(VC * T, 32) - VC * T
        if tail:
            first = np.ascontiguousarray(vals[:, :, :1]).view(np.uint8).reshape(N, VR, T)
            rows_read = (np.ones((N, VR), bool) if rd is None else rd[:, :, 0]) & ok[:, None]
            pos = np.arange(tail)
            fill = first[:, :, pos % T]
            seg = out[:, :VR, VC * T: VC * T + tail]
            out[:, :VR, VC * T: VC * T + tail] = np.where(rows_read[:, :, None], fill, seg)
    return out.reshape(N, -1), codes, elem


def _mgather_l1(cfg: FuzzConfig, raw: np.ndarray, L: dict):
    """MGATHER GM→L1 on the NPUs (Row nd2nz bursts, Elem NZ image via the scratch; the CPU
    sim's generic routine runs on cores of N: ``MGather.on_core``). ``slow`` marks the
    instances that must run on the loop path (an Elem read of the scratch it is writing)."""
    bits = 32
    N = raw.shape[0]
    VR, VC, T = cfg.rows, cfg.cols, L["T"]
    R, C = L["dst_shape"]
    C0 = 32 // T
    out = np.full((N, R * C * T), cfg.dst_fill, np.uint8).view(np.dtype(f"u{T}"))
    codes = np.zeros(N, np.int8)
    elem = np.full(N, -1, np.int64)
    slow = np.zeros(N, bool)
    if N == 0:
        return out.view(np.uint8).reshape(N, -1), codes, elem, slow
    S, St = cfg.shape5, cfg.stride5
    gm_size = L["gm_size"]
    ia = L["idx_addr"]
    u = _cast(raw, bits)
    # Per-instance GM: the table, then this instance's index tensor (Undefined may read it).
    ibytes = raw.astype(dtypes.storage(dtypes.as_dtype(cfg.index_dtype))).view(np.uint8).reshape(N, -1)
    tab = cfg.table.view(np.uint8)

    def fetch(src: np.ndarray) -> np.ndarray:
        """Elements of T at byte addresses src (N, ...) (in-arena, checked by the caller)."""
        b = src[..., None] + np.arange(T)
        flat = b.reshape(N, -1)
        v = np.zeros(flat.shape, np.uint8)
        in_t = flat < tab.size
        v[in_t] = tab[flat[in_t]]
        in_i = (flat >= ia) & (flat < ia + ibytes.shape[1])
        if in_i.any():
            rows = np.broadcast_to(np.arange(N)[:, None], flat.shape)
            v[in_i] = ibytes[rows[in_i], flat[in_i] - ia]
        return v.reshape(*src.shape, T).view(np.dtype(f"u{T}"))[..., 0]

    with np.errstate(over="ignore"):
        if cfg.mode == "row":
            if VR == 0:
                return out.view(np.uint8).reshape(N, -1), codes, elem, slow
            cap = prod(S[:4]) & ((1 << bits) - 1)
            safe, rd = _remap(u.reshape(N, VR), cap, cfg.oob, bits)
            rdm = np.ones((N, VR), bool) if rd is None else rd
            c = np.arange(VC)
            s3 = np.uint64(St[3] & 0xFFFFFFFFFFFFFFFF)
            cs = ((safe[:, :, None] * s3 + c.astype(np.uint64)) * np.uint64(T)).view(np.int64)
            nblk = -(-VC // C0)                   # one burst per C0 block (§5.6)
            b = np.arange(nblk, dtype=np.uint64)
            src = ((safe[:, :, None] * s3 + b * np.uint64(C0)) * np.uint64(T)).view(np.int64)
            length = np.minimum(C0, VC - np.arange(nblk) * C0) * T
            bad = rdm[:, :, None] & ((src < 0) | (src + length > gm_size))
            fb, fe = _first(bad)
            codes[fb], elem[fb] = F_TABLE, fe[fb]
            ok = ~fb
            if cfg.oob == "zero":
                out[ok] = 0                       # create_cbuf_matrix(..., 0): the whole tile
            if cfg.dst_fill:                      # nd2nz pads each row's last C0 block with 0
                r_ = np.arange(VR)
                for b_ in range(-(-VC // C0)):
                    n_ = min(C0, VC - b_ * C0)
                    if n_ < C0:
                        pos_ = (b_ * R + r_[:, None]) * C0 + np.arange(n_, C0)[None, :]   # (VR, pad)
                        m_ = rdm & ok[:, None]                                       # (N, VR)
                        cur = out[:, pos_]
                        out[:, pos_] = np.where(m_[:, :, None], 0, cur)
            good = rdm & ~fb[:, None]
            cs = np.where(good[:, :, None], cs, 0)
            vals = fetch(cs)
            r = np.arange(VR)
            nz = (c // C0)[None, :] * R * C0 + r[:, None] * C0 + (c % C0)[None, :]
            ii = np.broadcast_to(np.arange(N)[:, None, None], vals.shape)
            nzb = np.broadcast_to(nz[None], vals.shape)
            g = np.broadcast_to(good[:, :, None], vals.shape)
            out[ii[g], nzb[g]] = vals[g]
            return out.view(np.uint8).reshape(N, -1), codes, elem, slow
        if VR == 0 or VC == 0:                    # the NPUs zero the scratch image and move
            out[:] = 0                            # the whole NZ tile even when nothing is read
            return out.view(np.uint8).reshape(N, -1), codes, elem, slow
        cap = prod(S) & ((1 << bits) - 1)
        safe, rd = _remap(u.reshape(N, VR, VC), cap, cfg.oob, bits)
        rdm = np.ones((N, VR, VC), bool) if rd is None else rd
        src = (safe * np.uint64(T)).view(np.int64)
        r, c = np.meshgrid(np.arange(VR), np.arange(VC), indexing="ij")
        nz = (c // C0) * R * C0 + r * C0 + c % C0
        bad = rdm & ((src < 0) | (src > gm_size - T))
        simt = cfg.exec == "simt"
        order = np.argsort(nz, axis=None, kind="stable") if simt else np.arange(VR * VC)
        fb, fe = _first(bad.reshape(N, -1)[:, order])
        codes[fb] = F_TABLE
        elem[fb] = order[np.maximum(fe[fb], 0)]
        s0, s1 = L["scratch_addr"], L["scratch_addr"] + R * C * T
        alias = (rdm & ~bad & (src + T > s0) & (src < s1)).reshape(N, -1).any(1) & ~fb
        slow |= alias
        good = rdm & ~bad & ~fb[:, None, None] & ~alias[:, None, None]
        vals = fetch(np.where(good, src, 0))
        ii = np.broadcast_to(np.arange(N)[:, None, None], vals.shape)
        nzb = np.broadcast_to(nz[None], vals.shape)
        live = ~fb & ~alias
        out[live] = 0                             # the scratch image rewrites the whole tile
        out[ii[good], nzb[good]] = vals[good]
    return out.view(np.uint8).reshape(N, -1), codes, elem, slow


def _vector_parts(cfg: FuzzConfig, raw: np.ndarray):
    """:func:`_vector` over cache-sized parts of ``raw`` (the array code's temporaries stay in
    L2; the chunk around it can be bigger, which the digest's per-column steps want)."""
    sub = cache_chunk(cfg, len(raw))
    if len(raw) <= sub:
        return _vector(cfg, raw)
    parts = [_vector(cfg, raw[a: a + sub]) for a in range(0, len(raw), sub)]
    if parts[0] is None:
        return None
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


def _vector(cfg: FuzzConfig, raw: np.ndarray):
    """(outputs, codes, elem, slow mask) or None when the configuration has no vector path."""
    try:
        return _vector_paths(cfg, raw)
    except _WrapByZero:                  # nothing is written; the fault is not an access
        N = raw.shape[0]
        return (np.full((N, out_bytes(cfg)), cfg.dst_fill, np.uint8), np.full(N, F_OTHER, np.int8),
                np.full(N, -1, np.int64), np.zeros(N, bool))


def _vector_paths(cfg: FuzzConfig, raw: np.ndarray):
    twin = cfg.instruction.array_twin(cfg)          # the registry names the twin
    if twin == "mgather_ub":
        o, c, e = _mgather_ub(cfg, raw, layout(cfg))
        return o, c, e, np.zeros(len(o), bool)
    if twin == "mgather_l1":                        # the NPUs' GM->L1
        return _mgather_l1(cfg, raw, layout(cfg))
    return None


def on_core(cfg: FuzzConfig, backend: str) -> bool:
    """``backend`` runs this configuration's batches on cores of N instances (the public API),
    not on an array twin (the instruction's registry entry says)."""
    return cfg.instruction.on_core(cfg, backend)


def _loop(cfg: FuzzConfig, vals: np.ndarray, backend: str, outb: int):
    """Through the public API on cores of N instances (the program of ``run_single``);
    ``vals`` are generator values (int64)."""
    N = vals.shape[0]
    out, faults = run_instances(cfg, vals, backend)
    return out.reshape(N, outb), _codes(faults), np.full(N, -1, np.int64)


def _codes(faults: list) -> np.ndarray:
    """Fault codes of per-instance fault messages (None: no fault)."""
    return np.array([0 if f is None else fault_code(f) for f in faults], np.int8).reshape(len(faults))


# -- public API ---------------------------------------------------------------------------------
def _backend(name: str) -> str:
    """The backend a batch runs on: a known name that is available here (``auto`` chooses);
    anything else raises, never a quiet NumPy run under the requested name."""
    from ..backend import resolve_backend
    return resolve_backend(name)[0]


def run_chunk(cfg: FuzzConfig, inst: np.ndarray, generator: Generator, backend: str = "numpy",
              keep_outputs: bool = True, path: str = "auto", *, values: np.ndarray | None = None,
              raw: np.ndarray | None = None, digest: bool = True) -> BatchResult:
    """Instances ``inst`` (consecutive numbers) of ``cfg``; ``path`` "auto" | "vector" (NumPy
    along the instances) | "loop" (each instance on a single core of its own: the reference).
    ``values``: the generator's values for ``inst`` when the caller has them already; ``raw``:
    those values cast (``cast_indices(cfg, values)``, one row per instance)."""
    backend = _backend(backend)
    inst = np.asarray(inst, np.int64)
    vals = values

    def need_vals() -> np.ndarray:            # generator values (on native: generated there)
        nonlocal vals
        if vals is None:
            vals = generator.native(inst, cfg.n_idx, cfg.cap) if backend == "native" else None
            vals = generator(inst, cfg.n_idx, cfg.cap) if vals is None else vals
        return vals

    def need_raw() -> np.ndarray:             # the values cast: what the array twins take
        nonlocal raw
        if raw is None:
            raw = cast_indices(cfg, need_vals()).reshape(inst.size, -1) if inst.size else \
                np.zeros((0, cfg.n_idx), np.int64)
        return raw

    ob = out_bytes(cfg)
    res = None
    used = "loop"
    stray = None
    kernel = backend in ("native", "cupy") and path == "auto"
    if kernel and backend == "native" and values is None and raw is None and inst.size \
            and engine.covers(cfg, generator) and int(inst[-1]) - int(inst[0]) + 1 == inst.size:
        # the executing engine's kernels per tile (the same launch as the core's, in cache)
        o, c, d, stray = engine.run_tiles(cfg, generator, int(inst[0]), inst.size, keep_outputs)
        return BatchResult(int(inst[0]), int(inst.size), o, c, np.full(inst.size, -1, np.int64),
                           int(np.bitwise_xor.reduce(d)) if digest else 0, "kernel",
                           int(np.count_nonzero(c)), backend, stray)
    if on_core(cfg, backend if kernel else "numpy") and path in ("auto", "vector"):
        info: dict = {}
        o, f, *w = run_instances(cfg, need_vals(), backend if kernel else "numpy", watch=kernel, info=info)
        res = (o, _codes(f), np.full(len(o), -1, np.int64))
        # what ran: every instance at once (a kernel launch, or NumPy along the instances),
        # or the instructions instance by instance
        used = "loop" if info.get("per_instance") else "kernel" if kernel else "vector"
        stray = w[0] if kernel else None
        if path == "vector" and used == "loop":
            raise ValueError(f"no vectorised path for {cfg.label}")
    if res is None and path in ("auto", "vector"):
        v = _vector_parts(cfg, need_raw())
        if v is not None:
            o, c, e, slow = v
            if slow.any():
                lo = _loop(cfg, need_vals()[slow], "numpy", ob)
                o[slow], c[slow], e[slow] = lo
            res, used = (o, c, e), "vector"
        elif path == "vector":
            raise ValueError(f"no vectorised path for {cfg.label}")
    if res is None and path == "loop":
        runs = [run_single(cfg, v, backend) for v in need_vals()]
        res = (np.stack([o for o, _ in runs]).reshape(len(runs), ob) if runs else np.zeros((0, ob), np.uint8),
               _codes([f for _, f in runs]),
               np.full(len(runs), -1, np.int64))
    if res is None:
        res = _loop(cfg, need_vals(), "numpy" if backend == "auto" else backend, ob)
    o, c, e = res
    dig = 0
    if digest and inst.size:
        dig = batch_digest(inst, o, c, backend)
    return BatchResult(int(inst[0]) if inst.size else 0, int(inst.size), o if keep_outputs else None,
                       c, e, dig, used, int(np.count_nonzero(c)), backend, stray)


def iter_batches(cfg: FuzzConfig, n: int, *, generator: Generator | str = "mixed", seed: int = 0,
                 start: int = 0, backend: str = "auto", chunk: int | None = None,
                 keep_outputs: bool = True, path: str = "auto",
                 executor: Executor | None = None) -> Iterator[BatchResult]:
    """Stream ``n`` instances (numbers ``start .. start+n-1``) in chunks, yielded in order.
    The chunks run on ``executor`` when one is given (any ``concurrent.futures.Executor``);
    else big digest-only NumPy runs (``keep_outputs=False``, a counter or array generator)
    compute them in local worker processes (``ptogpu.execution.executors``)."""
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
        # NumPy: chunks of 16 cache-sized parts (the array code runs part by part)
        step = chunk or (chunk_size(cfg, n, backend=backend) if backend in ("native", "cupy")
                         else min(chunk_size(cfg, n), 16 * cache_chunk(cfg, n)))
    if n > 0 and path != "loop":
        # The array paths run no static checks: the public API judges one instance first and
        # raises the PtoCheckError the C++ compiler would.
        run_single(cfg, gen(np.array([start], np.int64), cfg.n_idx, cfg.cap)[0])
    from . import executors
    ex, _ = executors.choose(executor, n * cfg.n_idx,
                             poolable=backend == "numpy" and not keep_outputs and gen.fn is None)
    tasks = ((a, min(a + step, start + n)) for a in range(start, start + n, step))
    yield from executors.ordered_map(_chunk_task, tasks, ex, shared=(cfg, gen, backend, keep_outputs, path))


def _chunk_task(ctx: tuple, a: int, b: int) -> BatchResult:
    cfg, gen, backend, keep_outputs, path = ctx
    return run_chunk(cfg, np.arange(a, b, dtype=np.int64), gen, backend, keep_outputs, path)


def run_batch(cfg: FuzzConfig, n: int, *, generator: Generator | str = "mixed", seed: int = 0,
              start: int = 0, backend: str = "auto", chunk: int | None = None,
              keep_outputs: bool = True, path: str = "auto", executor: Executor | None = None) -> BatchResult:
    """Run ``n`` instances and concatenate the chunks. ``keep_outputs=False``: only the digest
    and the fault count come back, and memory stays bounded by one chunk whatever ``n``."""
    backend = _backend(backend)          # resolved once: the result names what ran
    outs, codes, elems, paths = [], [], [], set()
    dig = nf = 0
    for p in iter_batches(cfg, n, generator=generator, seed=seed, start=start, backend=backend,
                          chunk=chunk, keep_outputs=keep_outputs, path=path, executor=executor):
        dig ^= p.digest
        nf += p.n_faults
        paths.add(p.path)
        if keep_outputs:                 # digest only: nothing per instance is kept
            outs.append(p.outputs)
            codes.append(p.faults)
            elems.append(p.fault_elem)
    ob = out_bytes(cfg)
    cat = (lambda xs, empty: xs[0] if len(xs) == 1 else np.concatenate(xs) if xs else empty)   # noqa: E731
    return BatchResult(start, n, cat(outs, np.zeros((0, ob), np.uint8)) if keep_outputs else None,
                       cat(codes, np.zeros(0, np.int8)), cat(elems, np.zeros(0, np.int64)), dig,
                       "+".join(sorted(paths)) or "vector", nf, backend)


__all__ = ["BatchResult", "run_batch", "iter_batches", "run_chunk", "chunk_size", "free_host_bytes"]
