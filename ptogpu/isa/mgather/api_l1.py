"""MGATHER GM→L1 on the NPU targets (mgather.md §2, §5.6-§5.8, §6.7): forms, checks, dispatch.

Forced modes (§2): the 3-argument form with a ``Mat`` destination is always Row (CMode
ignored); the 4-argument form (with a GM scratch) is always Elem, on the Scalar executor
unless ``GatherExec.Simt`` is given (A5 only, and then CMode must be Elem). The CPU
simulator does not come here: its generic routine serves L1 destinations too (§4).

Reading an L1 tile back: ``tile.numpy()`` gives the valid region in logical (ND) order;
:func:`read_nd` the whole padded tile in logical order; :func:`read_nz` the raw storage as
``(Cols // C0, Rows, C0)`` fractal columns.
"""
from __future__ import annotations

import numpy as np

from .kernels_l1 import run_mgather_l1
from ...enums import Coalesce, GatherExec, Layout, TileType
from ...errors import F_OTHER, PtoCheckError, PtoFault, check
from . import semantics_l1 as sem
from ...tensor import GlobalTensor
from ...tile import Tile

RULE = "MGatherCheckGm2L1"


def check_gm2l1(core, mode: Coalesce, dst: Tile, table: GlobalTensor, idx, scratch=None) -> None:
    """``MGatherCheckGm2L1`` (a5 :440-471, a2a3 :372-402) plus the scratch check of the 4-arg form."""
    t = core.target.name
    rules = core.target.mgather
    T = dst.DType
    check(T in rules.dtypes, f"{RULE}: element type", t, f"{T} is not one of {', '.join(rules.dtypes)}")
    check(table.DType == T, f"{RULE}: GlobalTable::DType == __gm__ T", t,
          f"table holds {table.DType}, dst holds {T}")
    check(isinstance(idx, GlobalTensor) and idx.DType in ("int32", "uint32"),
          f"{RULE}: index is a __gm__ int32_t/uint32_t GlobalTensor", t,
          f"got {type(idx).__name__} of {getattr(idx, 'DType', '?')}")
    check(dst.Loc == TileType.Mat, f"{RULE}: TileDst::Loc == Mat", t, f"dst is {dst.Loc.name}")
    check(dst.is_nz(), f"{RULE}: IsMGatherNZTile<TileDst>", t,
          f"dst is {dst.BLayout.name}/{dst.SLayout.name}/{dst.SFractalSize}, not NZ "
          f"(ColMajor, SLayout RowMajor, 512)")
    check(table.layout == Layout.ND, f"{RULE}: GlobalTable::layout == ND", t,
          f"table layout is {table.layout.name}")
    size = dst.Element.itemsize
    c0 = 32 // size
    check(dst.Cols % c0 == 0, f"{RULE}: TileDst::Cols % C0 == 0", t, f"Cols = {dst.Cols}, C0 = {c0}")
    check(dst.Rows % 16 == 0, f"{RULE}: TileDst::Rows % 16 == 0", t, f"Rows = {dst.Rows}")
    if mode == Coalesce.Row:
        check(size <= 4, f"{RULE}<Row>: sizeof(T) <= 4", t, f"sizeof({T}) = {size}")
    if scratch is not None:
        check(isinstance(scratch, GlobalTensor) and scratch.DType == T,
              "MGATHER: GlobalScratch::DType == __gm__ T", t,
              f"scratch is {type(scratch).__name__} of {getattr(scratch, 'DType', '?')}")


def _assigned(t: str, dst: Tile) -> None:
    if dst.addr is None:
        raise PtoFault(f"dst tile {type(dst).__name__} has no address: TASSIGN it first",
                       rule="MGATHER operand", target=t, code=F_OTHER)


def _guard(core, dst, idx=None) -> None:
    """Dynamic valid dims past the destination's arena fault before any backend loops; with
    ``idx`` (Row), so do more row indices than GM holds: Row reads one index per valid row,
    at consecutive addresses, even when ValidCol is 0."""
    from ...semantics.cells import guard_region
    guard_region(core, core.arena(dst.space), dst.valid_row * dst.valid_col, dst.Element.itemsize)
    if idx is not None:
        guard_region(core, core.gm, dst.valid_row, idx.Element.itemsize, what=f"{sem.NAME} row indices")


def mgather_gm2l1(core, form, dst, table, idx, scratch, oob):
    """Run an NPU MGATHER whose destination is L1, or which has a scratch / GatherExec."""
    t = core.target.name
    if scratch is None:
        if form.exec_ is not None:
            raise PtoCheckError("MGATHER<CMode, Oob, Exec> exists only in the 4-argument form "
                                "(dst, table, gmIdx, scratch)", rule="MGATHER<.., Exec>", target=t)
        check_gm2l1(core, Coalesce.Row, dst, table, idx)           # CMode ignored: always Row
        _assigned(t, dst)
        _guard(core, dst, idx)
        if run_mgather_l1(core, oob, dst, table, idx): return  # noqa: E701 (native/cupy kernel)
        return sem.row(core, oob, dst, table, idx)
    simt = form.exec_ == GatherExec.Simt
    if simt:
        check(form.mode == Coalesce.Elem, "MGATHER<.., GatherExec::Simt>: Mode == Elem", t,
              f"CMode is {form.mode.name if form.mode is not None else 'default'}")
    check_gm2l1(core, Coalesce.Elem, dst, table, idx, scratch)    # CMode ignored: always Elem
    _assigned(t, dst)
    _guard(core, dst)
    if run_mgather_l1(core, oob, dst, table, idx, scratch, simt): return  # noqa: E701 (kernel)
    return sem.elem(core, oob, dst, table, idx, scratch, simt)


# -- reading L1 tiles back ----------------------------------------------------------------------
def read_nd(tile: Tile, full: bool = True) -> np.ndarray:
    """The tile in logical (ND) order: all ``Rows x Cols`` (``full``) or the valid region."""
    if not full:
        return tile.numpy()
    r, c = np.meshgrid(np.arange(tile.Rows), np.arange(tile.Cols), indexing="ij")
    return tile.raw()[tile.offsets(r, c)]


def read_nz(tile: Tile) -> np.ndarray:
    """The raw NZ storage as ``(Cols // C0, Rows, C0)``: fractal column, row, column in block."""
    if not tile.is_nz():
        raise PtoCheckError(f"{type(tile).__name__} is not an NZ tile", rule="read_nz")
    return tile.raw().reshape(tile.Cols // tile.C0, tile.Rows, tile.C0)


def l1_bytes(tile: Tile) -> np.ndarray:
    """The tile's whole storage as raw bytes (uint8)."""
    return tile.raw().view(np.uint8)
