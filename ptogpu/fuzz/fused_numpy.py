"""The fused MGATHER-into-UB campaign in NumPy array code: the algorithm of ``cuda_src/fuzz.cu``
(``pto_fuzz_native``), chunk by chunk over instances.

Why a second NumPy campaign path: the general one (``ptogpu.execution.batch``) builds every side's
destination bytes and compares them, which costs two table gathers and a byte compare per
element. Here, as in the kernel, each side computes only the *effective source* of every
element (the table element it reads, ZS = written as 0, FS = the read leaves GM and the tile
faults); equal sources give equal bytes, so table values are loaded only where the two sides'
sources differ. Same coverage as the fused kernel (``fused.covers``); same counts, classes and
first instances (``tests/test_fuzz_fused.py`` checks it against the native driver and against
the general NumPy campaign).
"""
from __future__ import annotations

import numpy as np

from ..targets import get_target
from ..execution.config import FuzzConfig
from ..execution.single import layout
from ..enums import GatherOOB
from ..semantics.indexing import prod, remap

def caps(cfg: FuzzConfig) -> tuple[int, int]:
    """(capacity, index bits) of an MGATHER-into-UB configuration, from its target table."""
    m = get_target(cfg.target).mgather
    S = cfg.shape5
    if cfg.mode == "elem":
        cap = prod(S)
    else:
        cap = S[3] if m.row_capacity == "shape3" else prod(S[:4])
    return cap & ((1 << m.index_bits) - 1), m.index_bits


ZS = np.uint64(0xFFFFFFFFFFFFFFFF)       # FZ_ZS: written as 0 (Zero and out of range)
FS = np.uint64(0xFFFFFFFFFFFFFFFE)       # FZ_FS: the read leaves GM (the tile faults)
ZS32, FS32 = np.uint32(0xFFFFFFFF), np.uint32(0xFFFFFFFE)
M32 = np.uint64(0xFFFFFFFF)


class _Side:
    """The per-side words of the kernel's parameter block (fused.params), as Python ints."""

    def __init__(self, c: FuzzConfig):
        m = get_target(c.target).mgather
        self.row = c.mode == "row"
        self.cap, self.bits = caps(c)
        self.rowsrc = m.row_source
        self.tail = c.mode == "row" and bool(m.row_tail_fill)
        # a burst per row has no column stride (fused.side_words)
        self.s3, self.s4 = c.stride5[3] & (2**64 - 1), 1 if self.tail else c.stride5[4] & (2**64 - 1)

    def key(self):
        """Everything the sources depend on besides the shared campaign constants."""
        return (self.cap, self.bits) + ((self.rowsrc, self.tail, self.s3, self.s4) if self.row else ())


class Campaign:
    """One campaign's constants; :meth:`chunk` runs instances ``s .. s+m-1``. Picklable, so
    chunks can run in worker processes."""

    def __init__(self, a: FuzzConfig, b: FuzzConfig, gen, rel: int, share: bool):
        L = layout(a)
        self.a, self.b, self.gen, self.rel = a, b, gen, int(rel)
        self.A, self.B = _Side(a), _Side(b)
        self.T, self.VR, self.VC = a.esize, a.rows, a.cols
        self.C = L["dst_shape"][1]
        self.elem = a.mode == "elem"
        self.oob = a.oob
        self.signed = a.index_dtype == "int32"
        self.nelem = L["gm_size"] // self.T
        gm = np.zeros(self.nelem * self.T, np.uint8)
        gm[: L["table_bytes"]] = a.table.view(np.uint8)
        self.tab = gm.view(np.dtype(f"u{self.T}"))
        # one side's sources serve both when every parameter they depend on is equal
        self.same = share and self.A.key() == self.B.key()
        self.narrow = self.elem and self.A.bits == 32 and self.B.bits == 32 and self.nelem < 0xFFFFFFF0

    # -- effective sources ------------------------------------------------------------------
    def _eff32(self, S: _Side, w: np.ndarray) -> tuple[np.ndarray, bool]:
        """Elem, 32-bit index: (sources as uint32 with ZS32/FS32, whether FS can occur)."""
        cap, nelem, oob = S.cap, self.nelem, self.oob
        last = np.uint32((cap - 1) & 0xFFFFFFFF)
        if oob == "wrap" and not cap & (cap - 1):
            safe, top = w & last, cap - 1
        elif oob == "wrap":
            safe, top = w % np.uint32(cap), cap - 1
        elif oob == "clamp":
            safe = np.minimum(w, last) if cap else np.full(w.shape, last)
            top = (cap - 1) & 0xFFFFFFFF
        else:                                           # zero, undefined: the index itself
            safe, top = w.copy(), 0xFFFFFFFF
        can_fault = top >= nelem and int(safe.max(initial=0)) >= nelem
        if can_fault:
            np.copyto(safe, FS32, where=safe >= np.uint32(nelem))
        if oob == "zero":
            np.copyto(safe, ZS32, where=w >= np.uint32(cap))
        return safe, can_fault

    def _remapped(self, S: _Side, u: np.ndarray):
        """The semantics' remap (``semantics.indexing.remap``, the one Python home of the
        rule) on uint64 values already masked to the side's bits: (safe, read). Wrap into 0
        elements divides by zero there (a fault every tile shows); here the values pass."""
        if self.oob == "wrap" and not S.cap:
            return u, None
        return remap(u, S.cap, GatherOOB[self.oob.capitalize()], S.bits, rule="remap", target="")

    def _row_off(self, S: _Side, safe: np.ndarray, c: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            if S.rowsrc == "strides":
                return safe * np.uint64(S.s3) + c * np.uint64(S.s4)
            if S.rowsrc == "stride3":
                return safe * np.uint64(S.s3) + c
            return ((safe * np.uint64(self.VC)) & M32) + c

    def _eff64(self, S: _Side, raw: np.ndarray) -> np.ndarray:
        """Sources (M, VR*VC) as uint64 with ZS/FS, from the sign/zero-extended raw values."""
        u = raw & M32 if S.bits == 32 else raw
        safe, rd = self._remapped(S, u)
        T, limb = np.uint64(self.T), np.uint64(self.nelem * self.T)
        with np.errstate(over="ignore"):
            if self.elem:
                byte = safe * T
            else:
                c = np.arange(self.VC, dtype=np.uint64)[None, None, :]
                byte = self._row_off(S, safe[:, :, None], c) * T
                if rd is not None:
                    rd = np.broadcast_to(rd[:, :, None], byte.shape)
        eff = np.where(byte < limb, byte // T, FS)
        if rd is not None:
            eff = np.where(rd, eff, ZS)
        return eff.reshape(eff.shape[0], -1)

    def _value(self, e: np.ndarray) -> np.ndarray:
        e = e.astype(np.uint64)
        ok = e < FS
        return np.where(ok, self.tab.take(np.where(ok, e, 0).astype(np.intp)), 0)

    def _in_tail(self, S: _Side, c: int) -> bool:
        vcb = self.VC * self.T
        return not self.elem and S.tail and c * self.T < (vcb + 31) // 32 * 32

    def side_values(self, which: str, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Side ``which`` ("a" or "b") on the index words ``w`` (m, n): (the tiles that fault,
        the bits each valid element receives, (m, VR*VC) uint64) -- what its effective sources
        put in the destination, the screen's whole view of a side (tested against the
        semantics)."""
        S = self.A if which == "a" else self.B
        e = _widen(self._eff32(S, w)[0]) if self.narrow else self._eff64(S, self._ext(w))
        return (e == FS).any(1), self._value(e)

    # -- one chunk --------------------------------------------------------------------------
    def chunk(self, s: int, m: int) -> tuple[int, int, np.ndarray, np.ndarray]:
        """Instances ``s .. s+m-1``: (tiles faulting on A, on B, divergent tile positions in
        the chunk, their class masks)."""
        inst = np.arange(s, s + m, dtype=np.int64)
        a = self.a
        w = self.gen.lo32(inst, a.n_idx, a.cap)             # (m, n) uint32: the index values
        if w is None:                                       # (an array or callable generator)
            w = self.gen(inst, a.n_idx, a.cap).astype(np.uint32)
        if self.narrow:
            ea, pa = self._eff32(self.A, w)
            eb, pb = (ea, pa) if self.same else self._eff32(self.B, w)
            fa = (ea == FS32).any(1) if pa else np.zeros(m, bool)
            fb = fa if self.same else (eb == FS32).any(1) if pb else np.zeros(m, bool)
            widen = True
        else:
            raw = self._ext(w)
            ea = self._eff64(self.A, raw)
            eb = ea if self.same else self._eff64(self.B, raw)
            fa, fb = (ea == FS).any(1), (eb == FS).any(1)
            widen = False
        div = np.zeros(m, bool)
        if not self.same:
            # tiles where neither side faults: elements whose sources and bytes differ
            ok = ~(fa | fb)
            d = ea != eb
            if not ok.all():
                d &= ok[:, None]
            t, k = np.nonzero(d) if d.any() else (np.zeros(0, np.intp),) * 2
            if t.size:
                xa, xb = ea[t, k], eb[t, k]
                if widen:
                    xa = _widen(xa)
                    xb = _widen(xb)
                div[t[self._value(xa) != self._value(xb)]] = True
            if not self.elem and (self.A.tail or self.B.tail) and (self.VC * self.T) % 32:
                div |= self._tails(ea, eb) & ok
            div |= fa != fb                       # exactly one side faults
        pos = np.flatnonzero(div)
        if self.rel or not pos.size:
            return int(np.count_nonzero(fa)), int(np.count_nonzero(fb)), pos, np.full(pos.size, self.rel, np.int64)
        from .explain import explain, fault_symptom, reference
        raw = w[pos].view(np.dtype(a.index_dtype))
        ra, rb = reference(a, inst[pos], self.gen, raw), reference(self.b, inst[pos], self.gen, raw)
        masks = explain(a, self.b, inst[pos], self.gen, raw, ra, rb) | fault_symptom(ra[1], rb[1])
        return int(np.count_nonzero(fa)), int(np.count_nonzero(fb)), pos, masks

    def _ext(self, v: np.ndarray) -> np.ndarray:
        """32-bit index values as the kernel's raw (uint64): sign-extended for int32."""
        return v.view(np.int32).astype(np.int64).view(np.uint64) if self.signed else v.astype(np.uint64)

    def _tails(self, ea, eb) -> np.ndarray:
        """A2/A3 Row tail fill: padding columns after VC hold the row's first element;
        (tiles,) bool where the two sides' tails differ."""
        VR, VC = self.VR, self.VC
        va0 = self._value(ea.reshape(-1, VR, VC)[:, :, 0])
        vb0 = self._value(eb.reshape(-1, VR, VC)[:, :, 0])
        bad = np.zeros(va0.shape[0], bool)
        for c in range(VC, self.C):
            xa = va0 if self._in_tail(self.A, c) else np.zeros_like(va0)
            xb = vb0 if self._in_tail(self.B, c) else np.zeros_like(vb0)
            bad |= (xa != xb).any(1)
        return bad


def _widen(e32: np.ndarray) -> np.ndarray:
    e = e32.astype(np.uint64)
    e[e32 == ZS32] = ZS
    e[e32 == FS32] = FS
    return e


def run_task(camp: Campaign, s: int, m: int, step: int) -> list:
    """Instances ``s .. s+m-1`` in chunks of ``step`` (the entry point of worker processes):
    [(chunk start, size, faults A, faults B, divergent positions, masks)]."""
    return [(c, min(step, s + m - c), *camp.chunk(c, min(step, s + m - c))) for c in range(s, s + m, step)]
