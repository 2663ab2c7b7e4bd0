"""Facts about a tile's cells that every instruction's semantics share: a region too large for
its arena (fault before building it), storages that overlap (loads may see stores), valid cells
that share storage, and the CPU simulator's value conversion between element types."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..enums import Coalesce
from ..errors import F_OTHER, PtoFault


def guard_region(core, arena, nelem: int, itemsize: int, what: str = "MGATHER") -> None:
    """A region of distinct elements larger than the arena must fault somewhere: fault now,
    before any array of that size is built or any kernel loops over it (every backend)."""
    if nelem * itemsize > arena.size:
        raise PtoFault(f"{what}: {nelem} elements ({nelem * itemsize} bytes) cannot fit in "
                       f"{arena.name.upper()} ({arena.size} bytes)", rule="access outside arena",
                       target=core.target.name, code=F_OTHER)


def storage_overlaps(dst, idx, mode: Coalesce | None = None) -> bool:
    """The index reads and the dst stores share bytes in one arena (so loads may see stores).
    Both footprints are what the call really touches: a dynamic valid size beyond the tile
    (a Row index tile read past its end, dst rows past the last) reaches the neighbours."""
    if getattr(idx, "space", None) != dst.space:
        return False
    if mode == Coalesce.Row:
        ilo, ihi = _span(idx, (dst.valid_row, 1), run=True)
    elif mode == Coalesce.Elem:
        # every target reads the index cells of dst's valid cells: the index tile's own valid
        # dims are never read (a static 0 there compiles), only its layout
        ilo, ihi = _span(idx, (dst.valid_row, dst.valid_col))
    else:
        ilo, ihi = _span(idx)
    dlo, dhi = _span(dst)
    return dlo < ihi and ilo < dhi


def _span(tile, cells: tuple[int, int] | None = None, run: bool = False) -> tuple[int, int]:
    """Byte span of a tile's storage, widened to its valid cells (or ``cells`` of it; ``run``:
    read as a row-major run, the Row index reads) where those reach past it."""
    lo, hi = tile.addr, tile.addr + tile.nbytes
    vr, vc = cells if cells else (tile.valid_row, tile.valid_col)
    if vr and vc and (run or vr > tile.Rows or vc > tile.Cols):
        # every layout's offset is a mixed-radix number rising with r and with c: the last
        # valid cell lies furthest (under the full layout and the plain A5 one alike)
        far = vr * vc if run else 1 + max(int(tile.offsets(vr - 1, vc - 1)),
                                          int(tile.plain_offsets(vr - 1, vc - 1)))
        hi = max(hi, tile.addr + far * tile.Element.itemsize)
    return lo, hi


def cells_alias(dst) -> bool:
    """Valid cells share storage (a dynamic valid dim beyond the tile's), so the order of the
    stores decides the bytes: each target's own order is followed (scalar loops: row-major; A2/A3
    Row: row after row, burst or zero fill; A5: :func:`a5_launch.store_order`)."""
    return dst.valid_row > dst.Rows or dst.valid_col > dst.Cols


def convert(core, vals: np.ndarray, dst, src: str) -> np.ndarray:
    """CPU sim: ``dst.SetElement(i, j, base[k])`` is a C++ value conversion from element type
    ``src`` (a name: NumPy dtypes cannot say hifloat8), through the simulator's own fp8 and
    hifloat8 classes (``sim_types``); with quirk ``cpu_bfloat16_is_half`` its bfloat16 is IEEE
    half."""
    from .sim_types import bf16_is_half, sim_convert
    want = dtypes.storage(dst.Element)
    if src == dst.DType:
        return vals
    to, to_dtype = dst.DType, want
    if bf16_is_half(core):
        if src == "bfloat16":
            vals, src = vals.view(np.float16), "half"
        if to == "bfloat16":
            to, to_dtype = "half", np.dtype(np.float16)
    return sim_convert(vals, src, to_dtype, to).view(want)
