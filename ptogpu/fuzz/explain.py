"""Verdicts and computed explanations on the NumPy references (MGATHER, TGATHERB, TINTERLEAVE).

Three verdicts per tile: side A's execution against A's *reference* (the target's rules
computed by the NumPy semantics, independently of any kernel), side B against B's, then A
against B. A side on the numpy backend *is* its reference (nothing to check); a side on a
kernel backend that disagrees with its reference is an emulator bug, whatever A vs B shows.

A difference between A and B is explained by a rule field (``rules.FIELDS``) only if the rule
predicts it: B's reference recomputed with that one field of A's target table (or A's with
B's) agrees with the other side's reference on that tile. Narrow single fields first, then
whole routines or engines (``Field.coarse``: they would explain anything their targets do
differently); a tile no single field explains is tried with each pair; a tile no field or
pair explains is UNEXPLAINED. A class is named by every field of the first tier that explains.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from ..errors import PtoError
from ..execution.batch import run_chunk
from ..execution.config import FuzzConfig
from ..targets import variant
from . import rules as R


def same(out_a: np.ndarray, fa: np.ndarray, out_b: np.ndarray, fb: np.ndarray, *, strict: bool = False) -> np.ndarray:
    """(N,) bool: two results agree. Faults agree when both fault in the same phase (two
    targets may find different first elements); clean results when their bytes agree.
    ``strict`` (a side against its own reference): the bytes must agree in every case."""
    both_ok = (fa == 0) & (fb == 0)
    eq = np.asarray(fa == fb)
    if out_a.shape != out_b.shape:
        return np.zeros(len(fa), bool)
    differ = rows_differ(out_a, out_b) if out_a.ndim == 2 and out_a.shape[1] else np.zeros(len(fa), bool)
    return eq & ~differ if strict else eq & (~both_ok | ~differ)


def rows_differ(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(M,) bool: rows of two (M, bytes) uint8 arrays differ (compared as wide words where
    the row width allows)."""
    w = x.shape[1] if x.ndim == 2 else 0
    for wt in (np.uint64, np.uint32):
        sz = np.dtype(wt).itemsize
        if w and w % sz == 0 and x.flags.c_contiguous and y.flags.c_contiguous:
            return (x.view(wt) != y.view(wt)).any(1)
    return (x != y).any(1)


def fault_symptom(fa: np.ndarray, fb: np.ndarray) -> np.ndarray:
    """FAULT where exactly one side faults, or both in different phases."""
    return np.where(((fa != 0) != (fb != 0)) | ((fa != fb) & (fa != 0) & (fb != 0)), R.FAULT, 0)


def hybrid(cfg: FuzzConfig, donor: FuzzConfig, fields) -> FuzzConfig:
    """``cfg`` on a target that takes ``fields`` from ``donor``'s target."""
    return cfg.with_(target=variant(cfg.target, donor.target, tuple(p for f in fields for p in f.copies)))


def reference(cfg: FuzzConfig, inst: np.ndarray, gen, raw: np.ndarray, strays: bool = False):
    """The NumPy semantics of ``cfg`` on these instances: (outputs, fault codes), and with
    ``strays`` which instances wrote outside the program's footprint."""
    r = run_chunk(cfg, inst, gen, "numpy", raw=raw, digest=False, watch=strays)
    return (r.outputs, r.faults, r.stray) if strays else (r.outputs, r.faults)


def explain(ca: FuzzConfig, cb: FuzzConfig, inst: np.ndarray, gen, raw: np.ndarray,
            ref_a: tuple, ref_b: tuple, run=None) -> np.ndarray:
    """Explanation masks (field bits, or UNEXPLAINED) of instances whose references differ.
    ``run(cfg, sel)``: the NumPy reference of ``cfg`` on instances ``sel`` (default: the batch
    semantics on the generator's tiles)."""
    run = run or (lambda cfg, sel: reference(cfg, inst[sel], gen, raw[sel]))
    M = len(inst)
    out = np.zeros(M, np.int64)
    if M == 0:
        return out
    cand = R.differing(ca.instr, ca.space, ca.target, cb.target)
    inert = ca.instruction.inert_rules(ca)
    cand = tuple(f for f in cand if f.path not in inert)
    # A difference the references do not show, or results the references do not reproduce
    # (the given ones came from elsewhere: a numpy side's own run), no rule can explain.
    todo = ~same(ref_a[0], ref_a[1], ref_b[0], ref_b[1])
    for cfg, ref in ((ca, ref_a), (cb, ref_b)):
        o, f = run(cfg, np.arange(M))
        todo &= same(o, f, ref[0], ref[1], strict=True)
    out[~todo] = R.UNEXPLAINED
    tiers = [[(f,) for f in cand if not f.coarse], [(f,) for f in cand if f.coarse], list(combinations(cand, 2))]
    for tier in tiers:
        hit = np.zeros(M, np.int64)
        for fs in tier:
            sel = np.flatnonzero(todo)
            if not sel.size:
                break
            ok = np.zeros(sel.size, bool)
            for mine, other, ref_other in ((cb, ca, ref_a), (ca, cb, ref_b)):
                try:
                    o, f = run(hybrid(mine, other, fs), sel)
                except (PtoError, ValueError):          # the hybrid does not compile (or
                    continue                            # lay out): this rule cannot explain
                ok |= same(o, f, ref_other[0][sel], ref_other[1][sel])
            bits = sum(f.bit for f in fs)
            hit[sel[ok]] |= bits
        out |= hit
        todo &= hit == 0
    out[todo] = R.UNEXPLAINED
    return out


def verdicts(ca: FuzzConfig, cb: FuzzConfig, sa, sb, inst, gen, raw, ra, rb, rel: int = 0) -> np.ndarray:
    """Class masks (0: the tile passes all three verdicts) of one chunk: ``ra``/``rb`` are
    the sides' batch results (outputs, faults, ``stray``). A kernel-backed side is checked
    against its NumPy reference (REF_A / REF_B, WINDOW for writes outside the destination);
    A vs B differences are explained by :func:`explain` (or, for sides that must agree, are
    ``rel``: BACKEND / EXECUTOR)."""
    M = len(inst)
    mask = np.zeros(M, np.int64)
    refs = []
    for bit, cfg, side, r in ((R.REF_A, ca, sa, ra), (R.REF_B, cb, sb, rb)):
        if side.backend == "numpy":
            refs.append((r.outputs, r.faults))
            continue
        stray = getattr(r, "stray", None)
        if stray is not None and cfg.instruction.writes_by_index:
            # its writes land where the data says: a stray write is a bug where its
            # reference does not make it too
            ref_o, ref_f, ref_stray = reference(cfg, inst, gen, raw, strays=True)
            ref = (ref_o, ref_f)
            stray = stray != ref_stray
        else:
            ref = reference(cfg, inst, gen, raw)
        refs.append(ref)
        bad = ~same(r.outputs, r.faults, ref[0], ref[1], strict=True)
        if stray is not None:
            bad |= stray
            mask |= np.where(stray, R.WINDOW, 0)
        mask |= np.where(bad, bit, 0)
    div = ~same(ra.outputs, ra.faults, rb.outputs, rb.faults)
    if rel:
        mask |= np.where(div & (mask == 0), rel, 0)
        return mask
    cand = np.flatnonzero(div & (mask == 0))
    if cand.size:
        (oa, fa), (ob, fb) = refs
        e = explain(ca, cb, inst[cand], gen, raw[cand], (oa[cand], fa[cand]), (ob[cand], fb[cand]))
        mask[cand] = e | fault_symptom(ra.faults[cand], rb.faults[cand])
    return mask


def one(ca: FuzzConfig, cb: FuzzConfig, sa, sb, vals, rel: int = 0) -> int:
    """The class mask of one instance (generator values ``vals``), each side through the
    public API on its backend and every reference through the public API on numpy: what the
    shrinker and the reproducers see (0: the instance passes all three verdicts)."""
    from ..execution.single import fault_code, run_single

    def api(cfg, backend):
        o, f = run_single(cfg, vals, backend)
        return o[None, :], np.array([fault_code(f) if f else 0], np.int8)
    ra, rb = api(ca, sa.backend), api(cb, sb.backend)
    refa = ra if sa.backend == "numpy" else api(ca, "numpy")
    refb = rb if sb.backend == "numpy" else api(cb, "numpy")
    mask = 0
    for bit, r, ref in ((R.REF_A, ra, refa), (R.REF_B, rb, refb)):
        if not same(r[0], r[1], ref[0], ref[1], strict=True)[0]:
            mask |= bit
    if mask or same(ra[0], ra[1], rb[0], rb[1])[0]:
        return mask
    if rel:
        return rel
    e = explain(ca, cb, np.zeros(1, np.int64), None, None, refa, refb, run=lambda cfg, sel: api(cfg, "numpy"))
    return int(e[0] | fault_symptom(ra[1], rb[1])[0])
