"""MSCATTER campaigns: one scatter configuration on two sides over N index tiles.

A side is ``target[.conflict][@backend]``: ``a5.default``, ``a5.last``, ``cpu``, ``a2a3@numpy``
(conflict: the ScatterConflict the call names; ``a2a3`` has none, ``cpu``'s is inert). Each
tile is an index tile drawn from (seed, instance number) by a generator (:data:`GENERATORS`);
the source tile holds 1, 2, 3, ... (distinct values, so a surviving value names its writer),
the table starts as zeros. Both sides' tables are compared byte for byte.

Engines (the report's ``engine`` and ``executed`` say which ran):

* ``fused`` (reported as "executing native") — both sides on native: ``cuda_src/mscatter_fuzz.cuh``'s ``mscatter_fuzz`` (in mscatter.cu's build) generates
  each tile and runs both sides' kernels (the A5 launches as lock-step warps: ``lanes``; the
  scalar loops: ``loop``), and notes where two threads of an A5 source-centric launch store
  to one element (a **race**: another legal schedule can leave different bytes there);
* ``api`` — anything else: each tile through the public API on each side's backend.

Three verdicts per tile: each side's table against its reference (``ms_ref`` in the engine: the
side's rules and write order, no kernel code; the NumPy semantics in the API engine), then the
two sides against each other. A difference is explained by the rule fields whose swap makes the
references agree (``ptogpu.fuzz.rules``): index cast width, capacity, row destination, conflict
resolution (sequential last writer, A5 Last's slot-centric scan, A5 Default's source-centric
launch); a tile where threads of a source-centric launch store to one element carries RACE (its
reproducer prints every value the hardware may leave). Sides that differ only in backend, or
only in the Last scan (``a5.last.owner`` vs ``a5.last.reverse``), must agree. Each class is
shrunk to a small reproducer (a script using the public API).
"""
from __future__ import annotations

import os
import time
from functools import lru_cache
from dataclasses import replace
from typing import ClassVar

import numpy as np

from ..backend.kernels import Consts
from ..execution.config import FuzzConfig
from ..isa.mscatter.config import MSCATTER
from .classes import FIRST, DivClass, Side, relation
from .report import REF_NUMPY, REF_SELF_NUMPY, Report
from .scatter_tile import (GENERATORS, SCANS, ScatterConfig, World, batches, indices, on_side, rule_key,  # noqa: F401
                           settings_of, side, slots)

K = Consts("mscatter.cu")
"""The kernels' enum constants (``K.NAME``), read from their source."""

# ---- the fused native engine ------------------------------------------------------------------


def _side_block(cfg: FuzzConfig, side: Side, scan: str):
    """(parameter block, kernel kind, executed, world) of one side on native, or None."""
    from ..isa.mscatter import kernels as mk
    scan = side.scan or scan
    w = World(cfg, side, "native")
    old = mk.LAST_SCAN
    mk.LAST_SCAN = scan
    try:
        with w.core:
            call = w.form._prepare(w.core, w.table, w.src, w.idx)
            prm = mk.params(w.core, call, w.table, w.src, w.idx)
    finally:
        mk.LAST_SCAN = old
    if prm is None:
        return None
    kind = {"mscatter_seq": "FK_SEQ", "mscatter_a5_source": "FK_SOURCE", "mscatter_a5_last": "FK_LAST"}[mk.KERNEL[call.path]]
    executed = "loop" if kind == "FK_SEQ" else ("lanes" if kind == "FK_SOURCE" or scan == "reverse"
                                                 else "lanes (scan results from an owner table)")
    return prm, K[kind], executed, w


# ---- rule fields: which differ, and the hybrid sides that test them ------------------------------
def differing(cfg: FuzzConfig, a: Side, b: Side) -> tuple:
    """The candidate rule fields that differ between the two sides (``conflict``: their
    paths -- sequential loop, source-centric, slot-centric -- differ)."""
    from ..targets import field_value
    from . import rules as R
    out = []
    for f in R.candidates("mscatter"):
        if f.path == "conflict":
            if _call(cfg, a)[0] != _call(cfg, b)[0]:
                out.append(f)
        elif field_value(a.target, f.path) != field_value(b.target, f.path):
            out.append(f)
    return tuple(out)


def hybrid(side: Side, donor: Side, fields, backend: str) -> Side:
    """``side`` on a target that takes ``fields`` from ``donor``'s (``conflict``: its launch
    fields and the donor's ScatterConflict too)."""
    from ..targets import variant
    paths = tuple(p for f in fields for p in f.copies)
    conflict = donor.conflict if any(f.path == "conflict" for f in fields) else side.conflict
    return Side(variant(side.target, donor.target, paths), conflict or "auto", backend)


def alternatives(cfg: FuzzConfig, a: Side, b: Side, backend: str) -> list:
    """[(tier, direction, field bits, hybrid side)] in the order they are tried: narrow single
    fields, coarse ones, then pairs; direction 0: B with A's fields (against A's reference),
    1: A with B's (against B's)."""
    from itertools import combinations
    cand = differing(cfg, a, b)
    tiers = [[(f,) for f in cand if not f.coarse], [(f,) for f in cand if f.coarse], list(combinations(cand, 2))]
    return [(t, d, sum(f.bit for f in fs), hybrid(mine, other, fs, backend))
            for t, tier in enumerate(tiers) for fs in tier for d, mine, other in ((0, b, a), (1, a, b))]


def side_ok(cfg: FuzzConfig, side: Side) -> bool:
    """Do the checks of the side's (possibly hybrid) target accept this configuration?"""
    from ..errors import PtoError
    try:
        _call(cfg, side)
        return True
    except (PtoError, ValueError):
        return False


def fused_plan(cfg: FuzzConfig, a: Side, b: Side, gen: str, seed: int, scan: str = "owner"):
    """Everything the ``mscatter_fuzz`` kernel needs, or None (then the API engine runs)."""
    from . import rules as R
    if a.backend != "native" or b.backend != "native":
        return None
    sa, sb = _side_block(cfg, a, scan), _side_block(cfg, b, scan)
    if sa is None or sb is None:
        return None
    w = sa[3]
    ubytes = w.idx_addr + w.idx.nbytes
    if w.nbytes > K.FZ_MAX_GM or ubytes > K.FZ_MAX_UB:
        return None
    p = np.zeros(K.FZ_WORDS, np.int64)
    mw = K.MS_WORDS
    p[:mw], p[mw:2 * mw] = sa[0], sb[0]
    p[K.FZ_SEED] = np.uint64(seed & (2**64 - 1)).view(np.int64)
    p[K.FZ_GEN], p[K.FZ_NIDX], p[K.FZ_GCAP] = GENERATORS[gen], cfg.n_idx, slots(cfg)
    p[K.FZ_TBYTES], p[K.FZ_UBYTES], p[K.FZ_IDX_ADDR] = w.nbytes, ubytes, w.idx_addr
    p[K.FZ_KIND_A], p[K.FZ_KIND_B] = sa[1], sb[1]
    global _IMAGES
    _IMAGES += 1
    p[K.FZ_IMAGE] = (os.getpid() << 20) + _IMAGES        # new images: the kernel recopies
    # the explanation block: every alternative's block (the engine's reference reads them;
    # an alternative the kernels do not cover leaves the campaign to the API engine)
    alts = alternatives(cfg, a, b, "native") if not relation(a, b, rule_key) else []
    if len(alts) > K.MX_MAX:
        return None
    mx = np.zeros(K.MX_WORDS, np.int64)
    mx[K.MX_N], mx[K.MX_UNEXPLAINED] = len(alts), R.UNEXPLAINED
    for k, (tier, d, bits, side) in enumerate(alts):
        blk = _side_block(cfg, side, scan) if side_ok(cfg, side) else None
        o = K.MX_HEAD + k * K.MA_WORDS
        mx[o + K.MA_TIER], mx[o + K.MA_DIR], mx[o + K.MA_MASK] = tier, d, bits
        if blk is None:
            if side_ok(cfg, side):                          # a block the kernels do not cover
                return None
            mx[o + K.MA_KIND] = -1                      # the checks reject it: never agrees
            continue
        mx[o + K.MA_KIND] = blk[1]
        mx[o + K.MA_P: o + K.MA_P + mw] = blk[0]
    ub = w.core.ub.data[:ubytes].copy()
    gm = np.zeros(max(w.nbytes, 64), np.uint8)
    return np.concatenate([p, mx]), gm, ub, (sa[2], sb[2])


_IMAGES = 0


def run_fused(plan, start: int, n: int) -> np.ndarray:
    """(n, 3) uint64 per instance: FZ_* bits, the first differing byte, the class mask of a
    difference. Instances a full check finds suspect (a stray write somewhere in a stretch of
    tiles) run again one by one with every byte compared."""
    from ..backend.launch import launch_batch
    from ..backend import native_backend
    import ctypes
    p, gm, ub, _ = plan
    q = p.copy()
    q[K.FZ_INST0] = start
    arenas = {"gm": (gm, gm.size, 0), "ub": (ub, ub.size, 0)}
    rec = launch_batch("mscatter_fuzz", n, arenas, q, backend="native")
    flush = native_backend.load("mscatter").pto_mscatter_fuzz_flush
    flush.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong]
    flush.restype = None
    flush(gm.ctypes.data, ub.ctypes.data, rec.ctypes.data, rec.shape[0])
    sus = np.flatnonzero(rec[:, 0] & np.uint64(K.FZ_SUSPECT))
    if sus.size:
        q[K.FZ_PARANOID] = 1
        for k in sus:
            q[K.FZ_INST0] = start + int(k)
            rec[k] = launch_batch("mscatter_fuzz", 1, arenas, q, backend="native")[0]
    return rec[:, :3]


# ---- classes ---------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _call(cfg: FuzzConfig, side: Side) -> tuple[str, int]:
    """(path, capacity) the side's target takes for this configuration: read from its target
    table through the checks and dispatch of the call itself (a NumPy world, one per pair)."""
    from ..isa.mscatter import semantics as sem
    w = World(cfg, side, "numpy")
    with w.core:
        call = w.form._prepare(w.core, w.table, w.src, w.idx)
    return call.path, sem.capacity(w.core, call, w.table)


def _source_centric(cfg: FuzzConfig, s: Side) -> bool:
    return _call(cfg, s)[0] == "a5_default"


def class_masks(code: np.ndarray, explained: np.ndarray, rel: int) -> np.ndarray:
    """Class masks (0: no class) from the engine's per-tile bits and explanations: a side
    that disagrees with its reference (REF_A/REF_B, WINDOW for bytes outside its writes); else
    a difference between the sides (``rel`` for sides that must agree, else the explanation
    and the fault symptom); RACE wherever a source-centric side races (a class of its own when
    the sides agree: another legal schedule may leave other bytes)."""
    from . import rules as R
    code = np.asarray(code, np.int64)
    E = {k: K[k] for k in ("FZ_DIFF", "FZ_FAULT_A", "FZ_FAULT_B", "FZ_RACE_A", "FZ_RACE_B", "FZ_REFBAD_A",
                             "FZ_REFBAD_B", "FZ_STRAY_A", "FZ_STRAY_B")}
    on = lambda k: (code & E[k]) != 0  # noqa: E731
    fa, fb = on("FZ_FAULT_A"), on("FZ_FAULT_B")
    diff = on("FZ_DIFF") | (fa != fb)
    bug = on("FZ_REFBAD_A") | on("FZ_REFBAD_B")
    m = np.where(on("FZ_REFBAD_A"), R.REF_A, 0) | np.where(on("FZ_REFBAD_B"), R.REF_B, 0)
    m |= np.where(on("FZ_STRAY_A") | on("FZ_STRAY_B"), R.WINDOW, 0)
    expl = np.asarray(explained, np.int64) | np.where(fa != fb, R.FAULT, 0)
    m = np.where(bug, m, np.where(diff, rel if rel else expl, 0))
    race = on("FZ_RACE_A") | on("FZ_RACE_B")
    return np.where(race & ~bug, m | R.RACE, m)


_LOW = 0x3FF                # the FZ_* bits class_masks and _note read (FZ_DIFF .. FZ_SUSPECT)


def fused_masks(rec: np.ndarray, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(codes, class masks, counts of each low code) of the engine's records: the masks of the
    tiles without an explanation (nearly all) looked up from their code's (a campaign's tiles
    take a handful of codes), the others computed; the same masks as ``class_masks`` (its
    ~15 passes over a chunk of 200,000 records cost a tenth of the engine's time there)."""
    code = rec[:, 0].astype(np.int64)
    if code.size == 0 or int(code.max()) > _LOW or int(code.min()) < 0:
        return code, class_masks(code, rec[:, 2], rel), None
    lut = class_masks(np.arange(_LOW + 1), np.zeros(_LOW + 1, np.int64), rel)
    masks = lut[code]
    ex = np.flatnonzero(rec[:, 2])
    if ex.size:
        masks[ex] = class_masks(code[ex], rec[ex, 2], rel)
    return code, masks, np.bincount(code, minlength=_LOW + 1)


def _reference_side(s: Side) -> Side:
    return Side(s.target, s.exec, "numpy")


def _run(cfg: FuzzConfig, s: Side, raw: np.ndarray, backend: str | None = None):
    """(tables after the call, fault codes) of side ``s`` on the index tiles ``raw``: the
    registry's program on cores of N (``run_chunk``)."""
    from ..execution.batch import run_chunk
    c = on_side(cfg, s)
    r = run_chunk(c, np.arange(len(raw)), None, backend or s.backend, raw=MSCATTER.cast(c, raw), digest=False)
    return r.outputs, r.faults


def api_masks(cfg: FuzzConfig, a: Side, b: Side, raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(engine bits, class masks) of tiles ``raw`` through the public API: each side on its
    backend, each kernel-backed side against its NumPy reference, a difference explained by
    the hybrid sides of :func:`alternatives` on NumPy."""
    from ..errors import PtoError
    from .explain import rows_differ
    raw = np.asarray(raw, np.int64)
    (ta, ea), (tb, eb) = _run(cfg, a, raw), _run(cfg, b, raw)
    ra = _run(cfg, a, raw, "numpy") if a.backend != "numpy" else (ta, ea)
    rb = _run(cfg, b, raw, "numpy") if b.backend != "numpy" else (tb, eb)
    rel = relation(a, b, rule_key)
    code = np.where(rows_differ(ta, tb) & (ea == 0) & (eb == 0), K.FZ_DIFF, 0)
    code |= np.where(ea != 0, K.FZ_FAULT_A, 0) | np.where(eb != 0, K.FZ_FAULT_B, 0)
    for bit, (t, e), (rt, re_) in (("FZ_REFBAD_A", (ta, ea), ra), ("FZ_REFBAD_B", (tb, eb), rb)):
        code |= np.where(rows_differ(t, rt) | ((e == 0) != (re_ == 0)), K[bit], 0)
    for bit, s, e in (("FZ_RACE_A", a, ea), ("FZ_RACE_B", b, eb)):
        if _source_centric(cfg, s):
            w = World(cfg, s, "numpy")
            for k in np.flatnonzero(e == 0):
                if _races(w, raw[k]):
                    code[k] |= K[bit]
    code = code.astype(np.int64)
    expl = np.zeros(len(raw), np.int64)
    todo = np.flatnonzero(((code & K.FZ_DIFF) != 0) | ((ea != 0) != (eb != 0)))
    if todo.size and not rel:
        from . import rules as R
        tier, got = -1, np.zeros(todo.size, np.int64)
        for t, d, bits, s in alternatives(cfg, a, b, "numpy"):
            if t != tier:
                expl[todo] = got
                todo, got = todo[got == 0], got[got == 0]
                if not todo.size:
                    break
                tier = t
            try:
                ot, oe = _run(cfg, s, raw[todo])
            except (PtoError, ValueError):
                continue
            rt, re_ = ra if d == 0 else rb
            agree = ((oe == 0) == (re_[todo] == 0)) & ((oe != 0) | ~rows_differ(ot, rt[todo]))
            got |= np.where(agree, bits, 0)
        expl[todo] = got
        expl[todo[got == 0]] = R.UNEXPLAINED
    return code, class_masks(code, expl, rel)


class ScatterReport(Report):
    """The report of an MSCATTER campaign: the common one, plus races per side."""
    FAMILY: ClassVar[str] = "mscatter"
    CONFIG: ClassVar[type] = FuzzConfig
    GENERATOR: ClassVar[str] = "dup"
    GENERATORS: ClassVar[tuple[str, ...]] = tuple(GENERATORS)
    settings_of = staticmethod(settings_of)

    @staticmethod
    def config_of(settings: dict) -> FuzzConfig:
        return ScatterConfig(**settings)

    @staticmethod
    def label_of(config: FuzzConfig) -> str:
        return config.op_label

    side_of = staticmethod(side)

    @staticmethod
    def default_pairs(config: FuzzConfig) -> list[tuple[str, str, str]]:
        return default_pairs(config)

    def rule_lines(self, c: DivClass) -> list[str]:
        from . import rules as R
        return R.describe(c.mask, self.a, self.b, (_conflict(self.config, self.a), _conflict(self.config, self.b)))

    def regenerate(self, classes: list[DivClass]) -> None:
        for c in classes:
            c.example = (indices(self.generator, self.seed, np.array(c.first[:1], np.int64),
                                 self.config.n_idx, slots(self.config))[0] if c.first else None)

    def shrink_class(self, c: DivClass) -> None:
        _shrink(self, c)

    @classmethod
    def run_spec(cls, spec, *, shrink: bool, progress, executor) -> "ScatterReport":
        a, b = spec.sides()          # MSCATTER campaigns run here (no worker pool of their own)
        return campaign(spec.config(), a, b, spec.n, generator=spec.generator, seed=spec.seed,
                        start=spec.start, chunk=spec.chunk, shrink=shrink, progress=progress,
                        last_scan=spec.last_scan)

    def lines(self) -> list[str]:
        """The race counts."""
        out = []
        for who, k in ((self.a, self.races_a), (self.b, self.races_b)):
            if k:
                out.append(f"   races: {who} {k:,} tile(s) where two or more threads store to one element "
                           "(another legal schedule may leave different bytes; MSCATTER[...].outcomes lists them)")
        return out


def _conflict(cfg: FuzzConfig, s: Side) -> str:
    """How a side resolves conflicts, in words (the ``conflict`` rule's values)."""
    path = _call(cfg, s)[0]
    return {"cpu": "sequential (last writer)", "a2a3_nd": "sequential (last writer)",
            "a5_scalar": "sequential (scalar path)", "a5_default": "source-centric launch (emulated schedule)",
            "a5_last": "slot-centric Last"}.get(path, path)


def _note(rep: ScatterReport, inst: np.ndarray, raw, code: np.ndarray, masks: np.ndarray,
          bins: np.ndarray | None = None) -> None:
    """Add a chunk's tiles to the report (``bins``: counts of each code, where known)."""
    from . import rules as R
    code = np.asarray(code, np.int64)
    if bins is None:
        count = lambda bit: int(((code & bit) != 0).sum())  # noqa: E731
    else:
        nz = np.flatnonzero(bins)
        count = lambda bit: int(bins[nz[(nz & bit) != 0]].sum())  # noqa: E731
    rep.faults_a += count(K.FZ_FAULT_A)
    rep.faults_b += count(K.FZ_FAULT_B)
    rep.races_a += count(K.FZ_RACE_A)
    rep.races_b += count(K.FZ_RACE_B)
    rep.ref_bad_a += count(K.FZ_REFBAD_A)
    rep.ref_bad_b += count(K.FZ_REFBAD_B)
    rep.divergent += int(np.count_nonzero(masks & ~R.RACE))
    sel = np.flatnonzero(masks)
    if not sel.size:
        return
    kinds, at, counts = np.unique(np.asarray(masks)[sel], return_index=True, return_counts=True)
    new = [j for j, m in enumerate(kinds) if int(m) not in rep.classes]
    if new and raw is None:                  # fused: regenerate just the tiles of a new class
        ex = indices(rep.generator, rep.seed, inst[sel[at[new]]], rep.config.n_idx, slots(rep.config))
        examples = dict(zip(new, ex))
    else:
        examples = {j: raw[sel[at[j]]] for j in new}
    for j in np.argsort(at, kind="stable").tolist():        # classes in order of first tile
        m, cnt = int(kinds[j]), int(counts[j])
        c = rep.classes.get(m)
        if c is None:
            c = rep.classes[m] = DivClass(m, example=examples[j].copy())
        c.count += cnt
        if len(c.first) < FIRST:
            hits = sel[np.asarray(masks)[sel] == m][:FIRST - len(c.first)]
            c.first.extend(int(i) for i in inst[hits])


REF_KERNEL = "mscatter reference (cuda_src/ref/mscatter_ref.cuh ms_ref: the side's rules and write order, no kernel code)"


def campaign(cfg: FuzzConfig, a: Side | str, b: Side | str, n: int, *, generator: str = "mixed",
             seed: int = 0, start: int = 0, chunk: int | None = None, shrink: bool = True,
             progress=None, backend: str = "auto", engine: str | None = None,
             last_scan: str = "owner") -> ScatterReport:
    """Compare sides ``a`` and ``b`` over instances ``start .. start+n-1``. ``last_scan``: how
    a ``.last`` side without its own scan runs on native (:data:`SCANS`)."""
    from ..backend import resolve_backend
    from ..errors import PtoCheckError
    if last_scan not in SCANS:
        raise ValueError(f"last_scan {last_scan!r}: one of {', '.join(SCANS)}")
    a = side(a, backend) if isinstance(a, str) else a
    b = side(b, backend) if isinstance(b, str) else b
    a, b = (replace(s, backend=resolve_backend(s.backend)[0]) for s in (a, b))
    if generator not in GENERATORS:
        raise ValueError(f"unknown generator {generator!r}; choose one of {', '.join(GENERATORS)}")
    if generator == "perm" and cfg.n_idx > slots(cfg):
        raise ValueError(f"generator perm: {cfg.n_idx} indices per tile cannot all differ in {slots(cfg)} "
                         f"slots (a table of at least {cfg.n_idx}, or a smaller shape)")
    rep = ScatterReport(a, b, cfg, n, generator, seed, start=start)
    try:
        wa, wb = World(cfg, a), World(cfg, b)
        with wa.core:
            wa.form._prepare(wa.core, wa.table, wa.src, wa.idx)
        with wb.core:
            wb.form._prepare(wb.core, wb.table, wb.src, wb.idx)
    except PtoCheckError as e:
        rep.check_error = str(e)
        rep.engine = "none: a static check rejects a side, nothing was compared"
        return rep
    plan = fused_plan(cfg, a, b, generator, seed, last_scan) if engine in (None, "fused") else None
    if engine == "fused" and plan is None:
        raise ValueError("the fused engine needs both sides on native and a configuration its kernels cover")
    rep.engine = "executing native: mscatter_fuzz, both sides' kernels per tile" if plan else \
        "api: each tile through the public API on each side's backend"
    rep.executed = {"a": plan[3][0], "b": plan[3][1]} if plan else {
        "a": "formula" if a.backend == "numpy" else "kernel", "b": "formula" if b.backend == "numpy" else "kernel"}
    rep.references = ({"a": REF_KERNEL, "b": REF_KERNEL} if plan else
                      {k: REF_SELF_NUMPY if s.backend == "numpy" else REF_NUMPY for k, s in (("a", a), ("b", b))})
    rel = relation(a, b, rule_key)
    step = chunk or (200_000 if plan else 256)
    t0 = time.perf_counter()
    done = 0
    while done < n:
        m = min(step, n - done)
        inst = np.arange(start + done, start + done + m, dtype=np.int64)
        if plan:
            rec = run_fused(plan, start + done, m)
            code, masks, bins = fused_masks(rec, rel)
            raw = None
        else:
            raw = indices(generator, seed, inst, cfg.n_idx, slots(cfg))
            code, masks = api_masks(cfg, a, b, raw)
            bins = None
        _note(rep, inst, raw, code, masks, bins)
        done += m
        if progress is not None:
            progress(done, n)
    rep.seconds = time.perf_counter() - t0
    if shrink:
        rep.shrink()
    return rep


def _races(w: World, raw: np.ndarray) -> bool:
    """Two threads store to one element of the table: an element with more than one store
    that can survive (and, as in the fused kernel, none when the call faults)."""
    from ..errors import PtoError
    from ..isa.mscatter import semantics as sem
    w.set_indices(raw)
    with w.core:
        call = w.form._prepare(w.core, w.table, w.src, w.idx)
        try:
            W = sem.writes(w.core, call, w.table, w.src, w.idx)
            sem.check_writes(w.core, W, w.table.Element.itemsize, call)
        except PtoError:
            return False
    if W.thread is None:
        return False
    inside = np.flatnonzero((W.addr >= w.base) & (W.addr < w.base + w.nbytes))
    keep = inside[sem.survivors(W.addr[inside], W.thread[inside], W.seq[inside])]
    return bool(keep.size) and bool((W.addr[keep][1:] == W.addr[keep][:-1]).any())


# ---- shrinking and reproducers --------------------------------------------------------------------
def _class_of(cfg, a, b, raw) -> int:
    """The class mask of one tile through the public API (0: none)."""
    return int(api_masks(cfg, a, b, np.asarray(raw, np.int64)[None, :])[1][0])


def _neutral(cfg: FuzzConfig) -> int | None:
    """An index no side writes: under Skip, the largest capacity of any target."""
    return slots(cfg) * batches(cfg) if cfg.oob == "skip" else None


def _shrink(rep: ScatterReport, c: DivClass) -> None:
    """Greedy and deterministic: fewest rows that keep the class, then every index that does
    not matter set to a neutral value (Skip: the capacity, which nothing writes; else 0)."""
    cfg, raw = rep.config, np.asarray(c.example, np.int64)
    per_row = 1 if cfg.mode == "row" else cfg.cols
    for r in range(1, cfg.rows + 1):
        small = cfg.with_(rows=r)
        cand = raw[: r * per_row]
        if _class_of(small, rep.a, rep.b, cand) == c.mask:
            cfg, raw = small, cand.copy()
            break
    else:
        if _class_of(cfg, rep.a, rep.b, raw) != c.mask:
            return
    neutral = _neutral(cfg)
    fill = 0 if neutral is None else neutral
    # whole blocks first (halves, quarters, ...), then single indices
    size = max(raw.size // 2, 1)
    tries = 0
    while size >= 1 and tries < 400:
        for k0 in range(0, raw.size, size):
            blk = slice(k0, min(k0 + size, raw.size))
            if (raw[blk] == fill).all():
                continue
            t = raw.copy()
            t[blk] = fill
            tries += 1
            if _class_of(cfg, rep.a, rep.b, t) == c.mask:
                raw = t
        size //= 2
    c.shrunk = {"rows": cfg.rows, "cols": cfg.cols, "indices": raw.tolist(), "fill": fill,
                "nontrivial": int(np.count_nonzero(raw != fill))}
    c.reproducer = snippet(cfg, rep.a, rep.b, raw, fill)


def snippet(cfg: FuzzConfig, a: Side, b: Side, raw: np.ndarray, fill: int = 0) -> str:
    """A runnable script (public API only) that prints both sides' tables for this tile (the
    registry's program, ``fuzz.repro``), and, for a side whose threads may race, every value
    the hardware may leave."""
    from .repro import side_block, side_key

    def outcomes(s: Side):
        if not _source_centric(cfg, s):
            return None
        return lambda call, i: [
            f"{i}try:      # every value the hardware may leave where threads race",
            f"{i}    oc = {call.replace('](', '].outcomes(', 1)}",
            f"{i}    racy = {{int(oc.addr[k] - ptr.addr) // ptr.dtype.itemsize: oc.choices(k).tolist()",
            f"{i}            for k in range(len(oc)) if oc.racy[k]}}",
            f"{i}    print({side_key(s, a if s is b else b) + ':'!r}, 'may leave', racy)",
            f"{i}except pto.PtoFault:",
            f"{i}    pass"]
    lines = ["import numpy as np", "import ptogpu as pto", "",
             "out = {}   # side -> (table bytes, fault)"]
    for s, o in ((a, b), (b, a)):
        lines += side_block(on_side(cfg, s), side_key(s, o), s.backend, raw, before=outcomes(s))
    return "\n".join(lines) + "\n"


def default_pairs(cfg: FuzzConfig) -> list[tuple[str, str, str]]:
    """(title, side a, side b) of ``ptogpu fuzz --instr mscatter`` without ``--pair``."""
    pairs = [("A5 Default (source-centric SIMT) vs CPU sim", "a5.default", "cpu"),
             ("A5 Last (slot-centric SIMT) vs CPU sim", "a5.last", "cpu"),
             ("A5 Default vs A5 Last", "a5.default", "a5.last"),
             ("A2/A3 vs CPU sim", "a2a3", "cpu")]
    if cfg.atomic != "none":
        pairs = [(t, a, b) for t, a, b in pairs if ".last" not in a + b]
    return pairs
