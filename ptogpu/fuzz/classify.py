"""Per-instance divergence facts between two configurations, vectorised over instances.

Each divergent output element gets the facts (``rules.*`` bits) that explain it; an element
with none is UNEXPLAINED; an instance's class is the OR over its divergent elements."""
from __future__ import annotations

import numpy as np

from ..targets import get_target
from . import rules as R
from ..execution.config import FuzzConfig
from ..execution.single import layout
from ..semantics.indexing import prod

SUB = 8192          # instances classified at once (bounds the (M, elements) temporaries)


def caps(cfg: FuzzConfig) -> tuple[int, int]:
    """(capacity, index bits) of an MGATHER configuration."""
    m = get_target(cfg.target).mgather
    bits = m.index_bits if cfg.space == "ub" or cfg.target == "cpu" else 32
    S = cfg.shape5
    if cfg.mode == "elem":
        cap = prod(S)
    elif cfg.space == "l1" and cfg.target != "cpu":
        cap = prod(S[:4])
    else:
        cap = S[3] if m.row_capacity == "shape3" else prod(S[:4])
    return cap & ((1 << bits) - 1), bits


def _u(raw: np.ndarray, bits: int) -> np.ndarray:
    v = raw.astype(np.int64).view(np.uint64) if raw.dtype.kind == "i" else raw.astype(np.uint64)
    return v & np.uint64(0xFFFFFFFF) if bits == 32 else v


def _elem_positions(cfg: FuzzConfig, L: dict):
    """For every element of the output storage: (row, col, valid) in logical coordinates."""
    if cfg.instr == "tinterleave":
        r_, c_ = L["tile_shape"]
        e = np.arange(2 * r_ * c_)
        r, c = (e % (r_ * c_)) // c_, e % c_
    elif cfg.instr == "mgather" and cfg.space == "ub" and cfg.layout != "nd":
        from ..execution.single import tile_classes
        _, DstT = tile_classes(cfg, L)
        Rr, Cc = L["dst_shape"]
        rr, cc = np.meshgrid(np.arange(cfg.rows), np.arange(cfg.cols), indexing="ij")
        full = get_target(cfg.target).mgather.tile_offsets == "full"
        pos = (DstT.offsets(rr, cc) if full else DstT.plain_offsets(rr, cc)).reshape(-1)
        inv = np.full(Rr * Cc, -1, np.int64)
        inv[pos] = np.arange(pos.size)
        valid = inv >= 0
        vc = max(cfg.cols, 1)
        return np.where(valid, inv // vc, 0), np.where(valid, inv % vc, 0), valid
    else:
        Rr, Cc = L["dst_shape"]
        e = np.arange(Rr * Cc)
        if cfg.instr == "mgather" and cfg.space == "l1":
            C0 = 32 // L["T"]
            blk, rem = e // (Rr * C0), e % (Rr * C0)
            r, c = rem // C0, blk * C0 + rem % C0
        else:
            r, c = e // Cc, e % Cc
    valid = (r < cfg.rows) & (c < cfg.cols)
    return r, c, valid


def _mgather_facts(a: FuzzConfig, b: FuzzConfig, raw: np.ndarray, r, c, valid) -> np.ndarray:
    """(M, elements) facts of MGATHER elements from their index values."""
    M = raw.shape[0]
    capa, bitsa = caps(a)
    capb, bitsb = caps(b)
    k = np.where(valid, (r * a.cols + c) if a.mode == "elem" else r, 0)
    iv = raw.reshape(M, -1)[:, k]                          # (M, elements) index values
    ua, ub = _u(iv, bitsa), _u(iv, bitsb)
    f = np.zeros(iv.shape, np.int64)
    if bitsa != bitsb:
        f |= np.where((iv.astype(np.int64) < 0) if iv.dtype.kind == "i" else False, R.CAST, 0)
    if capa != capb:
        lo = np.uint64(min(capa, capb))
        f |= np.where((ua >= lo) | (ub >= lo), R.CAP, 0)
    if "undefined" in (a.oob, b.oob):
        f |= np.where((ua >= np.uint64(capa)) | (ub >= np.uint64(capb)), R.UNDEF, 0)
    ma, mb = get_target(a.target).mgather, get_target(b.target).mgather
    if a.mode == "row" and a.space == "ub" and ma.row_source != mb.row_source:
        s3, s4, VC = a.stride5[3], a.stride5[4], a.cols
        safe = ua % np.uint64(max(capa, 1)) if a.oob == "wrap" else ua

        def off(rule):
            with np.errstate(over="ignore"):
                if rule == "strides":
                    return safe * np.uint64(s3 & (2**64 - 1)) + np.uint64(1) * (c * s4).astype(np.uint64)
                if rule == "stride3":
                    return safe * np.uint64(s3 & (2**64 - 1)) + c.astype(np.uint64)
                return ((safe * np.uint64(VC)) & np.uint64(0xFFFFFFFF)) + c.astype(np.uint64)
        f |= np.where(off(ma.row_source) != off(mb.row_source), R.ROWSRC, 0)
    return f


def _tgb_facts(a, b, raw, r, c, valid, L) -> np.ndarray:
    M = raw.shape[0]
    T = L["T"]
    B, E = 32 // T, 256 // T
    f = np.zeros((M, r.size), np.int64)
    engines = {get_target(a.target).tgatherb.engine, get_target(b.target).tgatherb.engine}
    if "vrepeat" in engines and a.cols % E:
        # the tail columns, and the next row's head that a tail repeat's 8-block spill reaches
        Cc, nrep = L["dst_shape"][1], a.cols // E
        spill = (r >= 1) & (r * Cc + c < (r - 1) * Cc + (nrep + 1) * E)
        f |= np.where((c >= nrep * E) | spill, R.TGB_TAIL, 0)[None, :]
    if "cpu" in engines:
        part = c >= (a.cols // B) * B
        k = np.where(valid, r * a.off_cols + c // B, 0)
        offs = raw.reshape(M, -1)[:, k].astype(np.int64)
        src_bytes = L["src_shape"][0] * L["src_shape"][1] * T
        skip = ((offs + 32) & 0xFFFFFFFF) > src_bytes
        f |= np.where(part[None, :] | skip, R.TGB_CPU, 0)
    return f


def _rows_differ(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(M,) bool: rows of two (M, bytes) uint8 arrays differ; compared as uint64 (or uint32)
    words when the row width allows."""
    w = x.shape[1] if x.ndim == 2 else 0
    for wt in (np.uint64, np.uint32):
        sz = np.dtype(wt).itemsize
        if w and w % sz == 0 and x.flags.c_contiguous and y.flags.c_contiguous:
            return (x.view(wt) != y.view(wt)).any(1)
    return (x != y).any(1)


def facts(a: FuzzConfig, b: FuzzConfig, raw: np.ndarray, out_a: np.ndarray, out_b: np.ndarray,
          fault_a: np.ndarray, fault_b: np.ndarray, relation: int = 0) -> np.ndarray:
    """Class masks (M,) of instances (0: no divergence). ``relation``: rules.BACKEND or
    rules.EXECUTOR when the two sides must agree by construction."""
    M = raw.shape[0]
    out = np.zeros(M, np.int64)
    if M == 0:
        return out
    L = layout(a)
    T = L["T"]
    # Only instances whose bytes or faults differ need facts: find them first, cheaply.
    fdiff_all = ((fault_a != 0) != (fault_b != 0)) | ((fault_a != fault_b) & (fault_a != 0))
    cand = np.flatnonzero(fdiff_all | _rows_differ(out_a, out_b))
    if cand.size == 0:
        return out
    if cand.size < M:
        out[cand] = facts(a, b, raw[cand], out_a[cand], out_b[cand], fault_a[cand], fault_b[cand], relation)
        return out
    r, c, valid = _elem_positions(a, L)
    for s in range(0, M, SUB):
        sl = slice(s, min(M, s + SUB))
        oa, ob = out_a[sl], out_b[sl]
        fa, fb = fault_a[sl], fault_b[sl]
        m = np.zeros(oa.shape[0], np.int64)
        fdiff = ((fa != 0) != (fb != 0)) | ((fa != fb) & (fa != 0))
        d = (oa != ob).reshape(oa.shape[0], -1, T).any(2)          # (m, elements)
        d &= ((fa == 0) & (fb == 0))[:, None]
        div = d.any(1) | fdiff
        if relation:
            out[sl] = np.where(div, relation, 0)
            continue
        if a.instr == "mgather":
            ef = _mgather_facts(a, b, raw[sl], r, c, valid)
            if a.layout in ("nz", "zz") and a.space == "ub" and \
                    get_target(a.target).mgather.tile_offsets != get_target(b.target).mgather.tile_offsets:
                ef = ef | R.LAYOUT
        elif a.instr == "tgatherb":
            ef = _tgb_facts(a, b, raw[sl], r, c, valid, L)
        else:
            ia, ib = get_target(a.target).interleave, get_target(b.target).interleave
            odd = (a.cols % 2 == 1) and (ia.odd_vc != ib.odd_vc or a.core_quirks != b.core_quirks)
            ef = np.full((oa.shape[0], r.size), R.ODD if odd else 0, np.int64)
        ef = np.where(valid[None, :], ef, ef | R.PAD) if a.instr != "mgather" else \
            np.where(valid[None, :], ef & ~R.PAD, R.PAD | (ef & R.LAYOUT))
        ef = np.where(ef == 0, R.UNEXPLAINED, ef)
        m |= np.bitwise_or.reduce(np.where(d, ef, 0), axis=1) if d.shape[1] else 0
        if fdiff.any():
            tile = np.zeros(oa.shape[0], np.int64)
            if a.instr == "mgather":
                whole = _mgather_facts(a, b, raw[sl], r, c, valid)
                tile = np.bitwise_or.reduce(np.where(valid[None, :], whole, 0), axis=1)
            m = np.where(fdiff, m | R.FAULT | (tile & (R.CAST | R.CAP | R.UNDEF)), m)
        out[sl] = np.where(div, m, 0)
    return out
