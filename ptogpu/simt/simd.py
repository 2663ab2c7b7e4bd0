"""Lane maps of the A5 register-level (``__simd_vf__``) paths: which vector instruction and
which register lane writes each destination element (other-ops.md §A.5, §B.4, §C).

These paths are SIMD, not SIMT: one 256-byte register of ``E = 256 / sizeof(T)`` lanes per
instruction, predicated on the last repeat. The map answers the same questions as the SIMT
launch map — who writes what, from where, and how many lanes idle — with ``(instr, lane)``
in place of ``(warp, lane, round)``.

* ``tgatherb``: per row ``r`` and repeat ``j < ceil(VC/E)``: gather 8 blocks (block ``k`` from
  ``offset_flat[r*OffRowStride + 8j + k]``), store ``min(E, VC - jE)`` lanes at ``r, jE``.
* ``tinterleave``: per row, pass ``p`` (dst_p, source base ``p * (VC>>1)``) and chunk
  ``j < ceil(h/E)``: ``vintlv`` into lo/hi; lo stores ``min(rem, E)`` lanes at ``2jE``, hi
  ``min(rem-E, E)`` at ``2jE + E`` (``rem = VC - 2jE``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import as_dtype

VL = 256


@dataclass(frozen=True, eq=False)
class SimdMap:
    """Per written destination element: ``dst`` (0/1: which destination tile), ``r, c``; the
    vector store instruction ``instr`` (numbered per row) and register ``lane`` that write
    it; ``src`` (source tile id) and ``src_off`` (TGATHERB: byte offset from the src tile's
    base; TINTERLEAVE: source column)."""

    op: str
    vr: int
    vc: int
    dtype: str
    lanes: int
    dst: np.ndarray
    r: np.ndarray
    c: np.ndarray
    instr: np.ndarray
    lane: np.ndarray
    src: np.ndarray
    src_off: np.ndarray

    def metrics(self) -> dict:
        """Vector stores issued, lanes stored per store, predicate (lane) utilisation."""
        n = self.r.size
        key = (self.dst * (1 << 20) + self.r) * (1 << 20) + self.instr
        stores = np.unique(key).size if n else 0
        return {"op": self.op, "lanes_per_register": self.lanes, "elements": int(n),
                "vector_stores": int(stores),
                "lane_utilisation": n / (self.lanes * stores) if stores else 0.0,
                "idle_lane_slots": int(self.lanes * stores - n)}


def tgatherb_map(vr: int, vc: int, dtype="float32", offsets: np.ndarray | None = None,
                 off_row_stride: int | None = None) -> SimdMap:
    """A5 TGATHERB (§A.5). ``offsets``: the uint32 offset tile's flat values (default: block
    ``k`` of row ``r`` reads 32-byte block ``r*ceil(VC/B) + k`` of the source, an identity
    copy); ``off_row_stride``: its row stride in entries (default ``ceil(VC/B)`` rounded to 8)."""
    size = as_dtype(dtype).itemsize
    E, B = VL // size, 32 // size
    nb = -(-vc // B)
    stride = off_row_stride or max(8, -(-nb // 8) * 8)
    r, c = (a.reshape(-1) for a in np.meshgrid(np.arange(vr, dtype=np.int64),
                                               np.arange(vc, dtype=np.int64), indexing="ij"))
    entry = r * stride + c // B
    if offsets is None:
        offv = (r * nb + c // B) * 32
    else:
        offv = np.asarray(offsets, np.int64).reshape(-1)[entry] & 0xFFFFFFFF
    return SimdMap("tgatherb", vr, vc, str(as_dtype(dtype)), E, np.zeros_like(r), r, c, c // E,
                   c % E, np.zeros_like(r), offv + (c % B) * size)


def tinterleave_map(vr: int, vc: int, dtype="float32", odd_hole: bool = True) -> SimdMap:
    """A5 TINTERLEAVE(dst1, dst0, src1, src0) (§B.4), odd VC as the A5 loop does (with the
    ``h % E == 0`` hole unless ``odd_hole`` is False)."""
    size = as_dtype(dtype).itemsize
    E = VL // size
    h = vc >> 1
    R = -(-h // E)
    n = vc if not odd_hole else min(vc, 2 * R * E)
    p, r, c = (a.reshape(-1) for a in np.meshgrid(np.arange(2), np.arange(vr), np.arange(n),
                                                  indexing="ij"))
    j, within = c // (2 * E), c % (2 * E)
    half, lane = within // E, within % E
    instr = p * (2 * R) + 2 * j + half
    src = lane % 2
    col = p * h + j * E + half * (E // 2) + lane // 2
    return SimdMap("tinterleave", vr, vc, str(as_dtype(dtype)), E, p, r, c, instr, lane, src, col)
