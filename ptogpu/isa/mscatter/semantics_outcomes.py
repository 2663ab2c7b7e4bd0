"""What A5 may leave in GM after an MSCATTER: per element, the set of values, not one pick.

The source-centric kernels (``Conflict::Default``, and every atomic) order nothing but each
thread's own program: no barriers, no fences. So for one GM element written by several
threads, any writer that its own thread does not overwrite later can be the one that
survives; elements are independent of each other. That set is computed from the call's
writes with one sort, linear in the writers (no schedule is enumerated).

Atomics: integer Add (mod 2^n) and integer Max/Min give one value whatever the order. Float
Add (and float Max/Min with NaN or signed zeros) depends on the order: for up to
:data:`ENUM_MAX` writers of one element the exact set of results over every order that keeps
each thread's program order is computed (by a subset walk, not by permutations); beyond that,
the result is bounded around the exactly rounded sum (``exact`` is False there).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from ... import dtypes
from ...enums import ScatterAtomicOp
from .semantics import Call, Writes, arith_dtype, combine, fold, last_per, stepwise, survivors

ENUM_MAX = 10
"""Most writers of one element whose atomic orders are walked exactly (2^ENUM_MAX subsets)."""

_PRECISION = {"float32": 24, "half": 11, "bfloat16": 8}


@dataclass
class ScatterOutcomes:
    """Per GM element the call may write (``addr``, byte addresses, ascending): every value
    that can be there afterwards (``choices(k)``), the value the emulation leaves
    (``emulated``) and the value of the sequential program order (``sequential``, the CPU
    simulator's last-writer / fold order)."""
    call: Call
    dtype: np.dtype
    addr: np.ndarray
    start: np.ndarray            # choices of element k: values[start[k]:start[k+1]]
    values: np.ndarray
    emulated: np.ndarray
    sequential: np.ndarray
    exact: np.ndarray            # False: atomics bounded by [lo, hi] rather than enumerated
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.addr.size)

    def choices(self, k: int) -> np.ndarray:
        """The possible values of element ``k`` (distinct, in the element type)."""
        return self.values[self.start[k]:self.start[k + 1]]

    @property
    def counts(self) -> np.ndarray:
        return np.diff(self.start)

    @property
    def racy(self) -> np.ndarray:
        """Elements whose value depends on the schedule."""
        return (self.counts > 1) | ~self.exact

    @property
    def deterministic(self) -> bool:
        return not bool(self.racy.any())

    def joint_count(self) -> int:
        """How many distinct GM images the call can produce (elements are independent)."""
        return math.prod(int(n) for n in self.counts) if self.exact.all() else -1

    def admits(self, result) -> bool:
        """Whether a GM image (a Core after the call, or its GM bytes from address 0) is one
        the hardware may produce, element by element."""
        return not self.rejected(result).size

    def rejected(self, result) -> np.ndarray:
        """Byte addresses whose value in ``result`` no legal schedule leaves there."""
        gm = result.gm.data if hasattr(result, "gm") else np.asarray(result, np.uint8)
        st = dtypes.storage(self.dtype)
        size = st.itemsize
        idx = self.addr[:, None] + np.arange(size)
        if self.addr.size and idx.max() >= gm.size:
            raise ValueError("the GM image is shorter than the addresses the call writes")
        got = np.ascontiguousarray(gm[idx]).view(st).reshape(-1)
        if not self.addr.size:
            return np.zeros(0, np.int64)
        bits = np.dtype(f"u{size}")
        hit = self.values.view(bits) == np.repeat(got.view(bits), self.counts)   # one per choice
        ok = np.zeros(self.addr.size, bool)
        has = self.counts > 0
        ok[has] = np.logical_or.reduceat(hit, self.start[:-1][has]) if hit.size else False
        inexact = ~ok & ~self.exact
        if inexact.any():
            v = got[inexact].view(self.dtype).astype(np.float64)
            lo, hi = self.lo[inexact], self.hi[inexact]
            # unbounded (a NaN or an infinity among the operands): any value, NaN included
            ok[inexact] = ((lo <= v) & (v <= hi)) | (np.isneginf(lo) & np.isposinf(hi))
        return self.addr[~ok].astype(np.int64)

    def sample(self, rng: np.random.Generator | int | None = None, how: str = "uniform") -> np.ndarray:
        """One possible value per element: ``uniform`` (independent draws), ``first`` or
        ``last`` (the smallest / largest choice's position)."""
        rng = np.random.default_rng(rng)
        n = self.counts
        if how == "first":
            pick = np.zeros(n.size, np.int64)
        elif how == "last":
            pick = n - 1
        elif how == "uniform":
            pick = (rng.random(n.size) * n).astype(np.int64)
        else:
            raise ValueError(f"how={how!r}: choose uniform, first or last")
        return self.values[self.start[:-1] + pick]

    def summary(self) -> dict:
        return {"elements": len(self), "racy": int(self.racy.sum()),
                "most_choices": int(self.counts.max()) if len(self) else 0,
                "joint_outcomes": self.joint_count(), "exact": bool(self.exact.all())}


def _distinct(group: np.ndarray, vals: np.ndarray, n: int):
    """(start, values): the distinct values (bit patterns) of each group, groups in order."""
    bits = np.dtype(f"u{vals.dtype.itemsize}")
    pairs = np.unique(np.stack([group.astype(np.uint64), vals.view(bits).astype(np.uint64)], 1), axis=0)
    start = np.r_[0, np.cumsum(np.bincount(pairs[:, 0].astype(np.int64), minlength=n))]
    return start, pairs[:, 1].astype(bits).view(vals.dtype)


def outcomes(core, call: Call, table, W: Writes) -> ScatterOutcomes:
    """The outcome sets of the (checked) writes ``W``, against GM as it is now."""
    st = dtypes.storage(table.Element)
    uniq, group = np.unique(W.addr, return_inverse=True)
    group = group.reshape(-1)
    n = uniq.size
    seq_key = W.r * max(int(W.c.max()) + 1 if W.c.size else 1, 1) + W.c
    racy_path = W.thread is not None
    if call.atomic == ScatterAtomicOp.None_:
        emulated = W.vals[last_per(group, W.order, n)] if n else W.vals[:0]
        sequential = W.vals[last_per(group, seq_key, n)] if n else W.vals[:0]
        if racy_path:
            keep = survivors(group, W.thread, W.seq)
            start, values = _distinct(group[keep], W.vals[keep], n)
        else:
            start, values = np.arange(n + 1), emulated.copy()
        return ScatterOutcomes(call, table.Element, uniq, start, values, emulated, sequential,
                               np.ones(n, bool))
    dt = arith_dtype(core, table)
    o = np.argsort(W.order, kind="stable")
    if W.reads is not None:                  # the simulator's Row Max/Min: one order, step by step
        done = stepwise(core, call, W, dt, uniq, o).view(st)
        return ScatterOutcomes(call, table.Element, uniq, np.arange(n + 1), done.copy(), done, done,
                               np.ones(n, bool))
    init = core.gm.gather(uniq, st).view(dt) if n else np.zeros(0, dt)
    emulated = fold(call.atomic, dt, init, group[o], W.vals[o].view(dt)).view(st)
    so = np.argsort(seq_key, kind="stable")
    sequential = fold(call.atomic, dt, init, group[so], W.vals[so].view(dt)).view(st)
    exact = np.ones(n, bool)
    if not racy_path or dt.kind in "iu":
        return ScatterOutcomes(call, table.Element, uniq, np.arange(n + 1), emulated.copy(),
                               emulated, sequential, exact)
    lo, hi = np.zeros(n), np.zeros(n)
    sets: list[np.ndarray] = []
    order = np.lexsort((W.seq, W.thread, group))
    bounds = np.r_[0, np.flatnonzero(group[order][1:] != group[order][:-1]) + 1, order.size]
    for k in range(n):
        members = order[bounds[k]:bounds[k + 1]]
        v = W.vals[members].view(dt)
        th = W.thread[members]
        if members.size <= ENUM_MAX:
            sets.append(_unique_bits(np.array(_walk(call.atomic, dt, init[k], v, th), dt).view(st)))
        else:
            exact[k] = False
            sets.append(_unique_bits(np.array([emulated[k], sequential[k]], st)))
            lo[k], hi[k] = _bounds(call.atomic, dt, init[k], v)
    start = np.r_[0, np.cumsum([s.size for s in sets])]
    values = np.concatenate(sets) if sets else np.zeros(0, st)
    return ScatterOutcomes(call, table.Element, uniq, start, values, emulated, sequential, exact,
                           lo, hi)


def _unique_bits(v: np.ndarray) -> np.ndarray:
    """The distinct bit patterns of ``v`` (np.unique on floats would fold NaN payloads)."""
    bits = np.dtype(f"u{v.dtype.itemsize}")
    return np.unique(v.view(bits)).view(v.dtype)


def _walk(atomic, dt, init, v: np.ndarray, th: np.ndarray) -> list:
    """Every result of folding ``v`` into ``init`` in an order that keeps each thread's writers
    in their program order (``v`` sorted by thread, then step): a walk over subsets of done
    writers, each state holding the set of partial results (bit patterns)."""
    m = v.size
    prev = [-1] * m            # the writer of the same thread just before, which must go first
    for i in range(1, m):
        if th[i] == th[i - 1]:
            prev[i] = i - 1
    st = np.dtype(f"u{dt.itemsize}")
    states = {0: {np.array([init], dt).view(st)[0]}}
    for _ in range(m):
        nxt: dict = {}
        for mask, accs in states.items():
            for i in range(m):
                if mask >> i & 1 or (prev[i] >= 0 and not mask >> prev[i] & 1):
                    continue
                tgt = nxt.setdefault(mask | 1 << i, set())
                for a in accs:
                    r = combine(atomic, np.array([a], st).view(dt), v[i:i + 1])
                    tgt.add(r.view(st)[0])
        states = nxt
    return [np.array([x], st).view(dt)[0] for x in states[(1 << m) - 1]]


def _bounds(atomic, dt, init, v: np.ndarray) -> tuple[float, float]:
    """Where the results of many float additions in any order can lie: the exactly rounded
    sum plus or minus gamma_(n) times the sum of magnitudes; Max/Min: the operands' range."""
    x = np.r_[np.float64(init), v.astype(np.float64)]
    if not np.isfinite(x).all():
        return -math.inf, math.inf
    if atomic != ScatterAtomicOp.Add:
        return float(x.min()), float(x.max())
    u = 2.0 ** -_PRECISION.get(dtypes.name_of(dt), 24)
    n = v.size
    gamma = n * u / max(1 - n * u, 1e-300)
    s = math.fsum(x)
    e = gamma * math.fsum(abs(x))
    top = float(ml_dtypes.finfo(dt).max)         # an order may overflow: that side is unbounded
    return (-math.inf if s - e <= -top else s - e), (math.inf if s + e >= top else s + e)
