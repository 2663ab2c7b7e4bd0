"""Shrinking: a divergence class to a minimal reproducer (smallest shape, fewest non-trivial
indices) and a runnable script using the public API only (:mod:`.repro`).

Greedy, deterministic: (1) keep one row (and, for element gathers, one element) around the
first divergent element; (2) set every other index to 0 while the instance still diverges in
the same class (a wide tile's in halving blocks first, then one by one); (3) replace each remaining index by the simplest value that keeps the class
(1, -1, cap-1, cap, cap+1, ...). Each candidate is run through ``run_single`` on both sides, so the script
reproduces exactly what the shrinker saw."""
from __future__ import annotations

import numpy as np

from ..execution.config import FuzzConfig
from ..execution.single import run_single

MAX_TRIES = 200


def elem_positions(cfg: FuzzConfig, L: dict):
    """For every element of the output storage: (row, col, valid) in logical coordinates (where
    the shrinker looks for the first element the two sides write differently)."""
    return cfg.instruction.positions(cfg, L)


def _mask(a: FuzzConfig, b: FuzzConfig, sa, sb, vals, rel: int) -> int:
    """Class mask of one instance (0: no divergence; -1: a side rejects the configuration)."""
    from ..errors import PtoCheckError
    from .explain import one
    try:
        return one(a, b, sa, sb, np.asarray(vals, np.int64), rel)
    except (PtoCheckError, ValueError):
        return -1


def _first_div(a, b, sa, sb, vals) -> tuple[int, int]:
    """(row, col) of the first differing output element, or (0, 0) (faults)."""
    from ..execution.single import layout
    oa, _ = run_single(a, vals, sa.backend)
    ob, _ = run_single(b, vals, sb.backend)
    L = layout(a)
    d = np.flatnonzero((oa != ob).reshape(-1, L["T"]).any(1))
    if not d.size:
        return 0, 0
    r, c, valid = elem_positions(a, L)
    k = d[valid[d]] if valid[d].any() else d
    return int(min(r[k[0]], a.rows - 1)), int(min(c[k[0]], a.cols - 1))


def shrink(a: FuzzConfig, b: FuzzConfig, sa, sb, vals, target_mask: int, rel: int = 0):
    """(config a, config b, values) of a minimal instance in class ``target_mask``."""
    vals = np.asarray(vals, np.int64)
    tries = 0
    r, c = _first_div(a, b, sa, sb, vals)
    cands = list(a.instruction.candidates(a, vals, r, c))
    cands += a.instruction.culprits(a, vals, cands[0][0])    # a fault's culprit need not be the first difference
    for kw, v in cands:
        if tries >= MAX_TRIES:
            break
        tries += 1
        na, nb = a.with_(**kw), b.with_(**kw)
        if _mask(na, nb, sa, sb, np.asarray(v).reshape(-1), rel) == target_mask:
            a, b, vals = na, nb, np.asarray(v).reshape(-1)
            break
    # more values than the tries could zero one by one (a wide tile): whole blocks first, halving
    step = len(vals) if len(vals) > 5 * MAX_TRIES else 0
    while step >= 8 and tries < MAX_TRIES:
        for s0 in range(0, len(vals), step):
            if tries >= MAX_TRIES or not vals[s0:s0 + step].any():
                continue
            tries += 1
            t = vals.copy()
            t[s0:s0 + step] = 0
            if _mask(a, b, sa, sb, t, rel) == target_mask:
                vals = t
        step //= 2
    order = np.argsort(-np.abs(vals), kind="stable")[::-1]      # trivial-looking ones first
    for i in order:
        if vals[i] == 0 or tries >= MAX_TRIES:
            continue
        tries += 1
        t = vals.copy()
        t[i] = 0
        if _mask(a, b, sa, sb, t, rel) == target_mask:
            vals = t
    # simplest values that keep the class, for the indices that must stay non-zero
    cap = a.cap
    simple = [1, -1, cap - 1, cap, cap + 1, 2 * cap - 1, (1 << 31) - 1, -(1 << 31)]
    for i in np.flatnonzero(vals):
        for v in simple:
            if tries >= MAX_TRIES or v == vals[i] or abs(v) >= abs(int(vals[i])) and v != -1:
                continue
            tries += 1
            t = vals.copy()
            t[i] = v
            if _mask(a, b, sa, sb, t, rel) == target_mask:
                vals = t
                break
    return a, b, vals


def shrink_class(cls, a, b, sa, sb) -> None:
    """Fill ``cls.shrunk`` and ``cls.reproducer`` from its first example."""
    if cls.example is None:
        return
    from .classes import relation
    rel = relation(sa, sb)
    na, nb, v = shrink(a, b, sa, sb, cls.example, cls.mask, rel)
    nontrivial = int(np.count_nonzero(v))
    cls.shrunk = {"rows": na.rows, "cols": na.cols, "indices": np.asarray(v).tolist(),
                  "nontrivial": nontrivial}
    from .repro import pair_script
    cls.reproducer = pair_script(na, nb, sa, sb, v)

