"""UB hazards of the A5 SIMT MGATHER paths: results that depend on the execution order.

When the destination tile aliases the index tile in UB (overlapping ``TASSIGN``), a thread's
store can change an index another thread has not loaded yet. Which value that thread then
loads depends on the schedule. This module

1. tests cheaply whether anything can race: the byte span written against the byte span
   read (O(1)), then exact byte sets (element- and byte-granular: an fp16 element that shares
   a 4-byte word with an index but none of its bytes is not a race);
2. lists the races: (store, load) pairs of *different* threads touching a common byte —
   a legal SIMT schedule fixes only each thread's own program order;
3. executes the launch under several legal schedules (warp lock-step, warps reversed, one
   warp at a time, thread by thread as the host shim runs kernels, seeded random warp and
   thread interleavings) and under the scalar (sequential, row-major) order, and reports the
   destination elements whose final bytes differ.

:func:`check_mgather` is the hook ``MGATHER`` calls on A5: nothing happens when no byte is
both written and read; otherwise a :class:`~ptogpu.errors.PtoHazard` warning (raised instead
with ``Core(..., strict_hazards=True)``).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from . import a5_launch as g
from .simt_case import SimtCase, case_from_mgather
from .launch_map import LaunchMap, launch_map
from ..enums import Coalesce, GatherOOB
from ..errors import PtoHazard
from .indexing import M32, remap
from .cells import guard_region, storage_overlaps

LOAD, STORE = 0, 1
EMULATED = "lockstep"
"""The schedule ``MGATHER`` executes when tiles alias: warps in order, one lock-step
instruction (all active lanes) at a time."""


# -- byte-granular overlap ---------------------------------------------------------------------
def spans_overlap(a_lo: int, a_hi: int, b_lo: int, b_hi: int) -> bool:
    """Half-open byte ranges [a_lo, a_hi) and [b_lo, b_hi) share a byte."""
    return a_lo < b_hi and b_lo < a_hi


def byte_pairs(w_addr: np.ndarray, w_size: int, r_addr: np.ndarray, r_size: int) -> np.ndarray:
    """(i, j) pairs where write i ``[w_addr[i], +w_size)`` and read j share at least one byte;
    writes must not overlap each other (distinct destination elements)."""
    w_addr, r_addr = np.asarray(w_addr, np.int64), np.asarray(r_addr, np.int64)
    if not w_addr.size or not r_addr.size:
        return np.zeros((0, 2), np.int64)
    wb = (w_addr[:, None] + np.arange(w_size)).reshape(-1)
    wi = np.repeat(np.arange(w_addr.size), w_size)
    order = np.argsort(wb, kind="stable")
    wb, wi = wb[order], wi[order]
    rb = (r_addr[:, None] + np.arange(r_size)).reshape(-1)
    ri = np.repeat(np.arange(r_addr.size), r_size)
    pos = np.clip(np.searchsorted(wb, rb), 0, wb.size - 1)
    hit = wb[pos] == rb
    pairs = np.stack([wi[pos[hit]], ri[hit]], axis=1)
    return np.unique(pairs, axis=0) if pairs.size else np.zeros((0, 2), np.int64)


# -- programs ----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Program:
    """Memory operations of a launch, one row per op. ``thread`` runs its ops in ``instr``
    order; a warp executes instruction ``instr`` for all its active lanes at once in lock-step.
    Stores name the element ``slot`` (launch-map order) and the load ``ref`` whose index they
    use; ``col`` is the column (Row mode adds it to the row's source)."""

    kind: np.ndarray
    thread: np.ndarray
    instr: np.ndarray
    addr: np.ndarray
    slot: np.ndarray
    col: np.ndarray
    ref: np.ndarray

    @property
    def warp(self) -> np.ndarray:
        return self.thread // g.LANES


def _program(kind, thread, instr, addr, slot, col, key):
    """Build a Program; ``key`` links each store to the load with the same (thread, key)."""
    kind, thread, instr = (np.asarray(a, np.int64) for a in (kind, thread, instr))
    order = np.lexsort((instr, thread))
    kind, thread, instr, addr, slot, col, key = (np.asarray(a, np.int64)[order] for a in
                                                 (kind, thread, instr, addr, slot, col, key))
    ld = np.flatnonzero(kind == LOAD)
    lk = thread[ld] * (1 << 32) + key[ld]
    srt = np.argsort(lk, kind="stable")
    sk = thread * (1 << 32) + key
    ref = np.where(kind == STORE, ld[srt][np.clip(np.searchsorted(lk[srt], sk), 0, max(ld.size - 1, 0))]
                   if ld.size else -1, -1)
    return Program(kind, thread, instr, addr, slot, col, ref)


def simt_program(m: LaunchMap) -> Program:
    """The SIMT launch of ``m`` (Row or Elem) as ops. Row: every lane of a warp loads
    ``indices[row]`` once per row (only loads that feed a store are kept), then stores its
    columns, one instruction per inner step. Elem: per round, load then store."""
    c = m.case
    if m.mode == "row":
        rw, wpr = g.row_warps(c.vr), g.warps_per_row(c.vr, c.vc)
        cs = wpr * g.LANES
        seg = m.warp // rw
        inner = (c.vc - seg * g.LANES + cs - 1) // cs
        row_iter = m.r // rw
        st_instr = m.round + row_iter + 1                      # load, then `inner` stores per row
        ld_instr = row_iter * (1 + inner)
        kind = np.r_[np.zeros(m.size), np.ones(m.size)]
        first = np.unique(m.thread * (1 << 32) + m.r, return_index=True)[1]   # one load per (thread, row)
        keep = np.r_[np.isin(np.arange(m.size), first), np.ones(m.size, bool)]
        prog = _program(kind[keep], np.r_[m.thread, m.thread][keep], np.r_[ld_instr, st_instr][keep],
                        np.r_[m.idx_addr, m.dst_addr][keep], np.r_[np.full(m.size, -1), np.arange(m.size)][keep],
                        np.r_[m.c, m.c][keep], np.r_[m.r, m.r][keep])
        return prog
    if m.mode == "elem":
        n = m.size
        return _program(np.r_[np.zeros(n), np.ones(n)], np.r_[m.thread, m.thread],
                        np.r_[2 * m.round, 2 * m.round + 1], np.r_[m.idx_addr, m.dst_addr],
                        np.r_[np.full(n, -1), np.arange(n)], np.r_[m.c, m.c], np.r_[m.round, m.round])
    raise ValueError("hazard analysis covers the UB SIMT paths (row, elem)")


def scalar_program(m: LaunchMap) -> Program:
    """The same work in the scalar unit's order: row-major, one load per row (Row) or per
    element (Elem), as A2/A3 and the CPU simulator loop."""
    order = np.lexsort((m.c, m.r))
    n = m.size
    if m.mode == "row":
        r = m.r[order]
        first = np.r_[True, r[1:] != r[:-1]] if n else np.zeros(0, bool)
        k = np.cumsum(first) - 1 + np.arange(n)       # instruction slots: load before each new row
        ld_i = k[first] + np.arange(int(first.sum()))
        st_i = k + np.cumsum(first)
        kind = np.r_[np.zeros(int(first.sum())), np.ones(n)]
        return _program(kind, np.zeros(kind.size), np.r_[ld_i, st_i],
                        np.r_[m.idx_addr[order][first], m.dst_addr[order]],
                        np.r_[np.full(int(first.sum()), -1), order], np.r_[m.c[order][first], m.c[order]],
                        np.r_[r[first], r])
    i = np.arange(n)
    return _program(np.r_[np.zeros(n), np.ones(n)], np.zeros(2 * n), np.r_[2 * i, 2 * i + 1],
                    np.r_[m.idx_addr[order], m.dst_addr[order]], np.r_[np.full(n, -1), order],
                    np.r_[m.c[order], m.c[order]], np.r_[i, i])


# -- schedules ---------------------------------------------------------------------------------
def _by_warp_instr(p: Program):
    """{warp: [op ids of instruction 0, of instruction 1, ...]} (lock-step groups)."""
    key = p.warp * (1 << 32) + p.instr
    order = np.lexsort((p.thread, key))
    k = key[order]
    cuts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    groups = np.split(order, cuts[1:])
    out: dict[int, list] = {}
    for grp in groups:
        out.setdefault(int(p.warp[grp[0]]), []).append(grp)
    return out


def schedules(p: Program, seed: int = 0, n_random: int = 3) -> dict[str, list]:
    """Named legal schedules: lists of steps (arrays of op ids run together, same kind)."""
    wi = _by_warp_instr(p)
    warps = sorted(wi)
    out: dict[str, list] = {}
    depth = max((len(v) for v in wi.values()), default=0)
    out["lockstep"] = [wi[w][k] for k in range(depth) for w in warps if k < len(wi[w])]
    out["lockstep, warps reversed"] = [wi[w][k] for k in range(depth) for w in warps[::-1] if k < len(wi[w])]
    out["one warp at a time"] = [s for w in warps for s in wi[w]]
    out["one warp at a time, reversed"] = [s for w in warps[::-1] for s in wi[w]]
    order = np.lexsort((p.instr, p.thread))
    out["thread by thread (host shim)"] = [np.array([i]) for i in order]
    rng = np.random.default_rng(seed)
    for k in range(n_random):
        left = {w: list(wi[w]) for w in warps}
        steps = []
        while left:
            w = list(left)[rng.integers(len(left))]
            steps.append(left[w].pop(0))
            if not left[w]:
                del left[w]
        out[f"random warp interleaving #{k}"] = steps
    # random thread interleaving: each thread keeps its order, threads mixed at random
    per_thread = {}
    for i in order:
        per_thread.setdefault(int(p.thread[i]), []).append(int(i))
    pick = np.concatenate([np.full(len(v), t) for t, v in per_thread.items()]) if per_thread else np.zeros(0, int)
    rng.shuffle(pick)
    cursor = {t: 0 for t in per_thread}
    steps = []
    for t in pick:
        steps.append(np.array([per_thread[int(t)][cursor[int(t)]]]))
        cursor[int(t)] += 1
    out["random thread interleaving"] = steps
    return out


# -- execution ---------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Memory:
    """What a schedule runs against: a UB image, GM (read-only), the table and index rules."""

    ub: np.ndarray
    gm: np.ndarray
    case: SimtCase


def run(p: Program, steps: list, mem: Memory) -> tuple[np.ndarray, np.ndarray]:
    """Execute ``steps``; returns (destination bytes per slot (n, T), faulted slot mask)."""
    c = mem.case
    T, isz = c.esize, c.idx_size
    ub = mem.ub.copy()
    gm = mem.gm
    loaded = np.zeros(p.kind.size, np.uint64)
    nslots = int(p.slot.max()) + 1 if p.slot.size else 0
    fault = np.zeros(nslots, bool)
    cap = c.capacity()
    oob = GatherOOB[c.oob]
    kb, tb = np.arange(isz), np.arange(T)
    weights = (np.uint64(1) << (np.uint64(8) * kb.astype(np.uint64)))
    for ops in steps:
        if p.kind[ops[0]] == LOAD:
            raw = ub[p.addr[ops][:, None] + kb].astype(np.uint64)
            loaded[ops] = (raw * weights).sum(axis=1) & np.uint64(M32)
            continue
        u = loaded[p.ref[ops]]
        safe, read = remap(u, cap, oob, 32, rule="GatherOOB.Wrap", target="a5")
        rd = np.ones(ops.size, bool) if read is None else read
        with np.errstate(over="ignore"):
            if c.mode == "row":
                el = ((safe * np.uint64(c.vc)) & np.uint64(M32)).astype(np.int64) + p.col[ops]
            else:
                el = safe.astype(np.int64)
        src = c.table_addr + el * T
        ok = ~rd | ((src >= 0) & (src + T <= gm.size))
        fault[p.slot[ops[~ok]]] = True
        vals = np.zeros((ops.size, T), np.uint8)
        take = rd & ok
        vals[take] = gm[src[take][:, None] + tb]
        dst = p.addr[ops[ok]]
        ub[dst[:, None] + tb] = vals[ok]
    out = np.zeros((nslots, T), np.uint8)
    st = np.flatnonzero(p.kind == STORE)
    out[p.slot[st]] = ub[p.addr[st][:, None] + tb]
    return out, fault


# -- reports -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Race:
    """A store and a load of different threads that share bytes."""

    writer: tuple[int, int, int]          # (warp, lane, round) of the store
    written: tuple[int, int]              # destination element (r, c)
    reader: tuple[int, int, int]          # (warp, lane, round) of the load
    read: tuple[int, int]                 # index element: (row, 0) in Row mode, (r, c) in Elem
    bytes: tuple[int, int]                # shared UB byte range [lo, hi)


@dataclass(frozen=True, eq=False)
class HazardReport:
    """Races, per-schedule outcomes and the elements whose value depends on the schedule."""

    mode: str
    overlap_bytes: int
    n_races: int
    races: tuple[Race, ...]
    divergent: np.ndarray                 # (k, 2) destination elements (r, c)
    values: dict = field(default_factory=dict)   # schedule name -> (n, T) bytes
    faults: dict = field(default_factory=dict)   # schedule name -> faulted slot mask
    map: LaunchMap | None = None

    @property
    def hazard(self) -> bool:
        return self.n_races > 0

    def message(self, limit: int = 3) -> str:
        lines = [f"A5 MGATHER<{self.mode.capitalize()}> SIMT: the destination overlaps the index "
                 f"tile in {self.overlap_bytes} UB byte(s); {self.n_races} store/load pair(s) of "
                 f"different threads race; {len(self.divergent)} destination element(s) differ "
                 f"between the orders tried ({'; '.join(self.values)})"]
        for rc in self.races[:limit]:
            lines.append(f"  thread (warp {rc.writer[0]}, lane {rc.writer[1]}) round {rc.writer[2]} "
                         f"writes dst{rc.written} over bytes [{rc.bytes[0]:#x}, {rc.bytes[1]:#x}) that "
                         f"thread (warp {rc.reader[0]}, lane {rc.reader[1]}) round {rc.reader[2]} "
                         f"reads as idx{rc.read}")
        if len(self.divergent):
            lines.append("  schedule-dependent elements: " +
                         ", ".join(f"({r},{c})" for r, c in self.divergent[:8].tolist()) +
                         (" …" if len(self.divergent) > 8 else ""))
        return "\n".join(lines)


def written_read_spans(m: LaunchMap) -> tuple[int, int, int, int]:
    c = m.case
    if not m.size:
        return 0, 0, 0, 0
    return (int(m.dst_addr.min()), int(m.dst_addr.max()) + c.esize,
            int(m.idx_addr.min()), int(m.idx_addr.max()) + c.idx_size)


def analyse(m: LaunchMap, mem: Memory | None = None, *, seed: int = 0, n_random: int = 3,
            force: bool = False, max_races: int = 64,
            max_thread_ops: int = 20000) -> HazardReport | None:
    """Races and schedule-dependent elements of the UB SIMT launch ``m``. ``None`` when no
    byte is both written and read (unless ``force``: then the schedules still run, and agree).
    ``mem`` supplies memory for executing the schedules (none: races only). Without races
    only the lock-step order runs (all orders agree); with races every schedule runs, except
    the op-by-op ones beyond ``max_thread_ops`` operations (all of them with ``force``)."""
    c = m.case
    wlo, whi, rlo, rhi = written_read_spans(m)
    if not force and not spans_overlap(wlo, whi, rlo, rhi):
        return None
    p = simt_program(m)
    st, ld = np.flatnonzero(p.kind == STORE), np.flatnonzero(p.kind == LOAD)
    pairs = byte_pairs(p.addr[st], c.esize, p.addr[ld], c.idx_size)
    ws, rs = st[pairs[:, 0]], ld[pairs[:, 1]]
    cross = p.thread[ws] != p.thread[rs]
    ws, rs = ws[cross], rs[cross]
    overlap = len(np.intersect1d((m.dst_addr[:, None] + np.arange(c.esize)).ravel(),
                                 (m.idx_addr[:, None] + np.arange(c.idx_size)).ravel()))
    if not force and overlap == 0:
        return None
    round_of = np.full(p.kind.size, -1)
    round_of[st] = m.round[p.slot[st]]
    # a load's round: the round of the first store it feeds
    fed = np.full(p.kind.size, np.iinfo(np.int64).max)
    np.minimum.at(fed, p.ref[st], round_of[st])
    races = []
    for w, r in zip(ws[:max_races], rs[:max_races]):
        s = int(p.slot[w])
        lo = max(int(p.addr[w]), int(p.addr[r]))
        hi = min(int(p.addr[w]) + c.esize, int(p.addr[r]) + c.idx_size)
        key = int(p.col[r]) if c.mode == "elem" else 0
        races.append(Race((int(p.warp[w]), int(p.thread[w] % 32), int(round_of[w])),
                          (int(m.r[s]), int(m.c[s])),
                          (int(p.warp[r]), int(p.thread[r] % 32), int(fed[r])),
                          (_load_row(p, r, m), key), (lo, hi)))
    values, faults = {}, {}
    divergent = np.zeros((0, 2), np.int64)
    if mem is not None:
        every = schedules(p, seed, n_random)
        progs = {}
        if ws.size == 0 and not force:
            # No two threads touch a common byte: every legal schedule, and the scalar order
            # (itself consistent with each thread's program order), gives the same bytes.
            every = {EMULATED: every[EMULATED]}
        else:
            progs["scalar (sequential)"] = (scalar_program(m), None)
            if p.kind.size > max_thread_ops and not force:   # op-by-op orders cost a step per op
                every = {k: v for k, v in every.items() if "thread" not in k}
        for name, steps in every.items():
            progs[name] = (p, steps)
        for name, (prog, steps) in progs.items():
            if steps is None:
                steps = [np.array([i]) for i in np.lexsort((prog.instr, prog.thread))]
            values[name], faults[name] = run(prog, steps, mem)
        ref = "scalar (sequential)" if "scalar (sequential)" in values else EMULATED
        ref_v, ref_f = values[ref], faults[ref]
        diff = np.zeros(m.size, bool)
        for name in values:
            diff |= (values[name] != ref_v).any(axis=1) | (faults[name] != ref_f)
        divergent = np.stack([m.r[diff], m.c[diff]], axis=1)
    return HazardReport(m.mode, int(overlap), int(ws.size), tuple(races), divergent, values, faults, m)


def _load_row(p: Program, op: int, m: LaunchMap) -> int:
    """Row of the index a load reads (the key it was built with is the row)."""
    st = np.flatnonzero((p.ref == op) & (p.kind == STORE))
    return int(m.r[p.slot[st[0]]]) if st.size else -1


# -- the MGATHER hook ---------------------------------------------------------------------------
def check_mgather(core, mode: Coalesce, oob: GatherOOB, dst, table, idx) -> bool:
    """Called by ``MGATHER`` on A5 before a UB SIMT launch. Costs two range compares when the
    destination and index storage do not overlap (returns False: run as usual). When bytes
    are both written and read, it runs the analysis: a :class:`PtoHazard` warning when threads
    race (raised, before anything is written, when ``core.strict_hazards``); then it executes
    the instruction itself in warp lock-step order and returns True. (Whole-tile array code
    reads every index before any store, which no legal schedule does once a thread stores
    before its own later load.) If an order faults, it returns False and the usual path runs."""
    rep = mgather_hazards(core, mode, oob, dst, table, idx)
    if rep is None:
        return False
    if rep.hazard:
        msg = f"[{core.target.name}] " + rep.message()
        if getattr(core, "strict_hazards", False):
            raise PtoHazard(msg)
        warnings.warn(msg, PtoHazard, stacklevel=3)
    if any(f.any() for f in rep.faults.values()):
        return False
    m = rep.map
    arena = core.arena(dst.space)
    arena.data[m.dst_addr[:, None] + np.arange(m.case.esize)] = rep.values[EMULATED]
    return True


def mgather_hazards(core, mode: Coalesce, oob: GatherOOB, dst, table, idx, *,
                    all_schedules: bool = False) -> HazardReport | None:
    """The :class:`HazardReport` of ``MGATHER[mode, oob](dst, table, idx)`` on an A5 core as
    memory stands now, or ``None`` when no UB byte is both written and read."""
    if not storage_overlaps(dst, idx, mode):
        return None
    if type(dst).ValidRow == 1 and type(dst).ValidCol == 1:
        return None                                   # MGatherScalarImpl: one thread, no race
    if dst.valid_row == 0 or dst.valid_col == 0:
        return None
    guard_region(core, core.arena(dst.space), dst.valid_row * dst.valid_col, dst.Element.itemsize)
    case = case_from_mgather(core, mode, oob, dst, table, idx)
    m = launch_map(case)
    return analyse(m, Memory(core.arena(dst.space).data, core.gm.data, case), force=all_schedules)
