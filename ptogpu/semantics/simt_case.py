"""What a SIMT launch is about: the parameters of one A5 MGATHER SIMT launch, as frozen data.

A :class:`SimtCase` is enough to build the launch map, trace the kernels and compute metrics;
:func:`case_from_mgather` fills one in from a real instruction (tiles, table, index values
read from the core's arenas), so a user sees the map of the call they are about to make.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..dtypes import as_dtype
from ..enums import GatherOOB
from .indexing import M32, remap

MODES = ("row", "elem", "l1_elem")


def _ceil_to(x: int, m: int) -> int:
    return -(-int(x) // m) * m


@dataclass(frozen=True, eq=False)
class SimtCase:
    """One A5 SIMT launch (mgather.md §5.3 Row, §5.4 Elem, §5.8 GM→L1 Elem SIMT).

    ``indices``: Row ``(vr,)``, Elem / l1_elem ``(vr, vc)`` raw index values (cast to uint32 as
    the kernels do); ``None`` = the identity pattern (row r / element r*vc+c). ``cap`` is the
    OOB capacity (default: the largest identity index + 1). Addresses are byte addresses of
    the table (GM), destination (UB; GM scratch for l1_elem) and index (UB; GM for l1_elem);
    the defaults place everything 32-byte aligned. ``dst_cols``/``idx_cols`` are the padded
    RowMajor extents (0: the valid cols rounded up to 32 bytes); ``dst_col_major`` uses
    ``c*dst_rows + r`` as A5's ``tile_offset_2d`` does for ColMajor tiles.
    """

    mode: str
    vr: int
    vc: int
    dtype: str = "float32"
    indices: np.ndarray | None = None
    oob: str = "Undefined"
    cap: int | None = None
    rows: int = 0
    cols: int = 0
    idx_row_stride: int = 0
    dst_rows: int = 0
    dst_cols: int = 0
    dst_col_major: bool = False
    idx_cols: int = 0
    table_addr: int = 0
    dst_addr: int = 0
    idx_addr: int = 0
    idx_size: int = 4
    idx_col_major: bool = False
    idx_rows: int = 0

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {self.mode!r}")
        if self.vr < 0 or self.vc < 0:
            raise ValueError("valid dims must be >= 0")

    # -- resolved values --------------------------------------------------------------------
    @property
    def esize(self) -> int:
        return as_dtype(self.dtype).itemsize

    @property
    def c0(self) -> int:
        return 32 // self.esize

    @property
    def padded(self) -> tuple[int, int]:
        """l1_elem: the NZ tile extent (Rows % 16 == 0, Cols % C0 == 0); else the dst extent."""
        if self.mode == "l1_elem":
            return (self.rows or max(16, _ceil_to(self.vr, 16)),
                    self.cols or max(self.c0, _ceil_to(self.vc, self.c0)))
        return self.dst_rows or self.vr, self.dst_cols or max(1, _ceil_to(self.vc, self.c0))

    @property
    def index_cols(self) -> int:
        return self.idx_cols or max(8, _ceil_to(self.vc, 32 // self.idx_size))

    @property
    def index_stride(self) -> int:
        return self.idx_row_stride or self.vc

    def index_values(self) -> np.ndarray:
        """uint64 array of ``static_cast<uint32_t>(idx)``: (vr,) for Row, (vr, vc) otherwise."""
        shape = (self.vr,) if self.mode == "row" else (self.vr, self.vc)
        if self.indices is None:
            n = self.vr if self.mode == "row" else self.vr * self.vc
            return np.arange(n, dtype=np.uint64).reshape(shape)
        a = np.asarray(self.indices)
        if a.shape != shape:
            a = a.reshape(shape)
        return (a.astype(np.int64) & M32).astype(np.uint64)

    def capacity(self) -> int:
        if self.cap is not None:
            return int(self.cap) & M32
        u = self.index_values()
        return int(u.max()) + 1 if u.size else 0

    def remapped(self) -> tuple[np.ndarray, np.ndarray]:
        """(safe index, read mask) after the OOB rule (mgather.md §3)."""
        u = self.index_values()
        safe, read = remap(u, self.capacity(), GatherOOB[self.oob], 32, rule="GatherOOB.Wrap",
                           target="a5")
        return safe, (np.ones(u.shape, bool) if read is None else read)

    def with_(self, **kw) -> "SimtCase":
        return replace(self, **kw)


def case_from_mgather(core, mode, oob, dst, table, idx, scratch=None) -> SimtCase:
    """The :class:`SimtCase` of ``MGATHER[mode, oob](dst, table, idx[, scratch])`` on an A5
    core, with the index values as they are in the core's memory right now."""
    from ..enums import Coalesce
    from ..tensor import GlobalTensor
    VR, VC = dst.valid_row, dst.valid_col
    shape = [table.GetShape(k) for k in range(5)]
    if scratch is not None or isinstance(idx, GlobalTensor):
        stride = idx.GetStride(3)
        r, c = np.meshgrid(np.arange(VR), np.arange(VC), indexing="ij")
        addrs = idx.addr + (r * stride + c) * idx.Element.itemsize
        vals = core.gm.gather(addrs.astype(np.int64), idx.Element) if addrs.size else np.zeros((VR, VC), np.int64)
        return SimtCase("l1_elem", VR, VC, dtype=str(dst.DType), indices=np.asarray(vals).reshape(VR, VC),
                        oob=oob.name, cap=int(np.prod(shape)) & M32, rows=dst.Rows, cols=dst.Cols,
                        idx_row_stride=stride, table_addr=table.addr,
                        dst_addr=scratch.addr if scratch is not None else 0, idx_addr=idx.addr)
    arena = core.arena(idx.space)
    if mode == Coalesce.Row:
        addrs = idx.addr + np.arange(VR, dtype=np.int64) * idx.Element.itemsize
        vals = arena.gather(addrs, idx.Element)
        cap = shape[3]
        m = "row"
    else:
        r, c = np.meshgrid(np.arange(VR), np.arange(VC), indexing="ij")
        addrs = idx.addr + idx.plain_offsets(r, c).astype(np.int64) * idx.Element.itemsize
        vals = arena.gather(addrs, idx.Element).reshape(VR, VC)
        cap = int(np.prod(shape))
        m = "elem"
    return SimtCase(m, VR, VC, dtype=str(dst.DType), indices=np.asarray(vals), oob=oob.name,
                    cap=int(cap) & M32, dst_rows=dst.Rows, dst_cols=dst.Cols,
                    dst_col_major=not dst.isRowMajor, idx_cols=idx.Cols if idx.isRowMajor else 0,
                    table_addr=table.addr, dst_addr=dst.addr, idx_addr=idx.addr,
                    idx_size=idx.Element.itemsize,
                    idx_col_major=not idx.isRowMajor, idx_rows=idx.Rows)
