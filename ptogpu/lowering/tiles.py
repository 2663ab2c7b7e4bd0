"""Tiles as kernels see them: a tile's (or a GlobalTensor's rows') descriptor, the ``TD_*`` block
of common.cuh every kernel's parameter block nests, and whether an operand lives on a core's
arenas at all (else NumPy runs and raises what it must)."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..backend.kernels import Consts, ParamBlock
from ..enums import BLayout, SLayout
from ..tensor import GlobalTensor

FILE = "mgather.cu"        # (any kernel file: the TD_* block and its constants are common.cuh's)
K = Consts(FILE)
"""The kernels' enum constants (``K.NAME``), read from their source."""




KIND_FULL = {  # (BLayout, SLayout) -> tile kind, the CPU simulator's full offset rule
    (BLayout.RowMajor, SLayout.NoneBox): "TK_ROW", (BLayout.ColMajor, SLayout.NoneBox): "TK_COL",
    (BLayout.ColMajor, SLayout.RowMajor): "TK_NZ", (BLayout.RowMajor, SLayout.ColMajor): "TK_ZN",
    (BLayout.RowMajor, SLayout.RowMajor): "TK_ZZ", (BLayout.ColMajor, SLayout.ColMajor): "TK_NN",
}
SPACES = {"gm": "SPACE_GM", "ub": "SPACE_UB", "l1": "SPACE_L1"}


def tile_desc(tile, offsets: str, force_kind: str | None = None) -> np.ndarray:
    """A tile's (or a GlobalTensor's rows') descriptor: common.cuh's ``TD_*`` block."""
    d = ParamBlock(FILE, "TD_")
    if isinstance(tile, GlobalTensor):
        d.SPACE, d.KIND, d.RSTRIDE = K.SPACE_GM, K.TK_GMROWS, tile.GetStride(3)
        d.ROWS = d.COLS = d.IR = d.IC = 1
    else:
        d.SPACE = K[SPACES[tile.space]]
        if force_kind:
            kind = force_kind
        elif offsets == "full":
            kind = KIND_FULL[(tile.BLayout, tile.SLayout)]
        else:
            kind = "TK_ROW" if tile.isRowMajor else "TK_COL"
        d.KIND = K[kind]
        d.ROWS, d.COLS, d.IR, d.IC = tile.Rows, tile.Cols, tile.InnerRows, tile.InnerCols
    d.ADDR = tile.addr
    d.ESIZE = tile.Element.itemsize
    d.SIGNED = int(dtypes.storage(tile.Element).kind == "i")
    return d.words


def bound_to_core(core, x) -> bool:
    if isinstance(x, GlobalTensor):
        return x.core is core
    try:
        return x.core is core and x.addr is not None and x.space in SPACES
    except Exception:          # a Loc with no emulated buffer: NumPy raises the error
        return False
