"""``TGATHERB(dst, src, offset)``: static checks per target (other-ops.md §A) and dispatch.

Each uint32 offset moves one 32-byte block, counted in bytes from the src tile's UB address.
"""
from __future__ import annotations

from ...core import current_core
from ...enums import TileType
from ...errors import PtoCheckError, check, runtime_assert
from . import semantics as sem
from ...tile import Tile, require_valid_getters
from ...ops.events import instruction
from ...ops.template import TemplateFunction
from .kernels import run_tgatherb


def _tgatherb(dst: Tile, src: Tile, offset: Tile) -> None:
    """Block gather: block ``k`` of dst row ``r`` = the 32 bytes at
    ``src.addr + offset_flat[r*OffRowStride + k]`` (per-target edges in ``ptogpu.targets``)."""
    core = current_core()
    t = core.target.name
    rules = core.target.tgatherb
    for name, tile in (("dst", dst), ("src", src), ("offset", offset)):
        if not isinstance(tile, Tile):
            raise PtoCheckError(f"{name} must be a Tile, got {type(tile).__name__}",
                                rule="TGATHERB operands", target=t)
        if rules.vec_only:
            check(tile.Loc == TileType.Vec, f"TGATHERB: {name} is a Vec (UB) tile", t,
                  f"{name} is TileType.{tile.Loc.name}")
    check(rules.supported, "TGATHERB: target support", t, "TGATHERB is not implemented here")
    # dst.GetValidRow/Col on every target; src's and offset's valid dims are never read
    require_valid_getters(core, "TGATHERB", "tgatherb", dst=dst, src=src, offset=offset)
    if rules.row_major_dst:
        check(dst.isRowMajor, "TGATHERB: TileDataDst::isRowMajor", t, "dst is ColMajor")
    if rules.dtypes is not None:
        for name, tile in (("dst", dst), ("src", src)):
            check(tile.DType in rules.dtypes, f"TGATHERB: {name} DType", t,
                  f"{tile.DType} is not one of {', '.join(rules.dtypes)}")
    if rules.dst_sizes is not None:
        check(dst.Element.itemsize in rules.dst_sizes, "TGATHERB: sizeof(dst T) in {1, 2, 4}", t,
              f"sizeof({dst.DType}) = {dst.Element.itemsize}")
    for tile in (dst, src, offset):
        tile._bound()                       # unassigned tile -> PtoFault
    from ...semantics.cells import guard_region  # dynamic valid dims past the arena
    guard_region(core, core.arena(dst.space), dst.valid_row * dst.valid_col, dst.Element.itemsize, "TGATHERB")
    if rules.width_assert:      # TileDType is a pointer in the simulator: validCol % 4 == 0
        runtime_assert(core, dst.valid_col % 4 == 0,
                       "TGATHERB: assert(validCol * sizeof(TileDType) % 32 == 0)",
                       f"valid cols {dst.valid_col}: sizeof(TileDType) is a pointer's 8 bytes in "
                       "the simulator, so the width must be a multiple of 4")
    if sem.kernel_shape(core, dst, src, offset) and \
            run_tgatherb(core, dst, src, offset, lambda: sem.tgatherb(core, dst, src, offset)):
        return                  # native/cupy kernel
    sem.tgatherb(core, dst, src, offset)


def _is(x, T) -> bool:
    return isinstance(x, T)


TGATHERB = TemplateFunction(instruction("TGATHERB")(_tgatherb), "TGATHERB",
                            [("TileDataDst", 0, _is), ("TileDataSrc", 1, _is), ("TileDataOffset", 2, _is)])
"""``TGATHERB(dst, src, offset[, events...])`` or ``TGATHERB[DstT, SrcT, OffT](...)``."""
