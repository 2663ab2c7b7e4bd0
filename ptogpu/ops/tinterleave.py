"""``TINTERLEAVE(dst1, dst0, src1, src0)`` and ``TDEINTERLEAVE`` (other-ops.md §B).

Outputs first, high half first, as in C++. The iteration domain is dst0's valid shape.
"""
from __future__ import annotations

from ..backend import run_interleave
from ..core import current_core
from ..enums import TileType
from ..errors import PtoCheckError, PtoHazard, check, warn
from ..semantics import tinterleave as sem
from ..tile import Tile
from .events import instruction


def _common(core, what: str, named: dict) -> None:
    t = core.target.name
    rules = core.target.interleave
    for name, tile in named.items():
        if not isinstance(tile, Tile):
            raise PtoCheckError(f"{name} must be a Tile, got {type(tile).__name__}",
                                rule=f"{what} operands", target=t)
    check(rules.supported, f"{what}: target support", t,
          f"{what} has no implementation on this target (A5, Kirin and the CPU simulator only)")
    first = next(iter(named.values()))
    for name, tile in named.items():
        check(tile.Loc == TileType.Vec, f"{what}: {name} is a Vec (UB) tile", t,
              f"{name} is TileType.{tile.Loc.name}")
        check(tile.isRowMajor, f"{what}: TileData::isRowMajor", t, f"{name} is ColMajor")
        check(tile.DType == first.DType, f"{what}: all tiles have the same DType", t,
              f"{name} holds {tile.DType}, dst1 holds {first.DType}")
    if rules.dtypes is not None:
        check(first.DType in rules.dtypes, f"{what}: DType", t,
              f"{first.DType} is not one of {', '.join(rules.dtypes)}")
    from ..semantics.mgather import guard_region      # dynamic valid dims past the arena
    for tile in named.values():
        tile._bound()
        guard_region(core, core.arena(tile.space), tile.valid_row * tile.valid_col, tile.Element.itemsize, what)
    _hazard(what, named)


def _hazard(what: str, named: dict) -> None:
    """Dst overlapping a src: later chunks would read overwritten data (undefined). We read
    the sources as they were before the instruction, and warn."""
    tiles = list(named.items())
    outs = [(n, x) for n, x in tiles if n.startswith("dst")]
    ins = [(n, x) for n, x in tiles if n.startswith("src")]
    for dn, d in outs:
        for sn, s in ins:
            if d.addr < s.addr + s.nbytes and s.addr < d.addr + d.nbytes:
                warn(f"{what}: {dn} overlaps {sn}; aliasing is undefined on hardware", PtoHazard)


def _same_valid(core, what, ref_name, ref, others) -> None:
    for name, tile in others.items():
        check((tile.valid_row, tile.valid_col) == (ref.valid_row, ref.valid_col),
              f"{what}: valid shapes match {ref_name} (PTO_ASSERT)", core.target.name,
              f"{name} is {tile.valid_row}x{tile.valid_col}, {ref_name} is "
              f"{ref.valid_row}x{ref.valid_col}")


def _odd(core, what: str, vc: int) -> None:
    if vc % 2:
        warn(f"[{core.target.name}] {what}: odd valid cols {vc} (docs and asserts require even)")


@instruction("TINTERLEAVE")
def TINTERLEAVE(dst1: Tile, dst0: Tile, src1: Tile, src0: Tile) -> None:
    """dst0 = first half, dst1 = second half of the stream src0[0], src1[0], src0[1], ..."""
    core = current_core()
    _common(core, "TINTERLEAVE", dict(dst1=dst1, dst0=dst0, src1=src1, src0=src0))
    _same_valid(core, "TINTERLEAVE", "dst0", dst0, dict(dst1=dst1, src1=src1, src0=src0))
    VR, VC = dst0.valid_row, dst0.valid_col
    _odd(core, "TINTERLEAVE", VC)
    size = dst0.Element.itemsize
    if run_interleave(core, "interleave", [dst0, dst1], [src0, src1], VR,  # native/cupy kernel
                      n=sem.interleave_count(core, VC, size), h=VC >> 1):
        return
    sem.execute(core, [dst0, dst1], [src0, src1], VR, sem.interleave_map(core, VC, size))


@instruction("TDEINTERLEAVE")
def TDEINTERLEAVE(dst1: Tile, dst0: Tile, src1: Tile, src0: Tile | None = None) -> None:
    """Inverse of TINTERLEAVE; ``TDEINTERLEAVE(dst1, dst0, src)`` splits one source into its
    even (dst0) and odd (dst1) elements."""
    core = current_core()
    t = core.target.name
    if src0 is None:
        src = src1
        _common(core, "TDEINTERLEAVE", dict(dst1=dst1, dst0=dst0, src=src))
        _same_valid(core, "TDEINTERLEAVE", "dst0", dst0, dict(dst1=dst1))
        VR, VC, SVC = dst0.valid_row, dst0.valid_col, src.valid_col
        check(src.valid_row == VR, "TDEINTERLEAVE: src ValidRow == dst ValidRow", t,
              f"{src.valid_row} != {VR}")
        if core.target.interleave.single_src_count == "src_half":
            check(SVC // 2 == VC, "TDEINTERLEAVE: dst ValidCol == src ValidCol / 2", t,
                  f"src {SVC}, dst {VC}")
            _odd(core, "TDEINTERLEAVE", SVC)
        else:
            check(SVC == 2 * VC, "TDEINTERLEAVE: src ValidCol == 2 * dst ValidCol (assert)", t,
                  f"src {SVC}, dst {VC}")
        if run_interleave(core, "deint1", [dst0, dst1], [src], VR, n=VC): return  # noqa: E701
        sem.execute(core, [dst0, dst1], [src], VR, sem.deinterleave1_map(VC))
        return
    _common(core, "TDEINTERLEAVE", dict(dst1=dst1, dst0=dst0, src1=src1, src0=src0))
    _same_valid(core, "TDEINTERLEAVE", "dst0", dst0, dict(dst1=dst1, src1=src1, src0=src0))
    VR, VC = dst0.valid_row, dst0.valid_col
    _odd(core, "TDEINTERLEAVE", VC)
    size = dst0.Element.itemsize
    if run_interleave(core, "deint2", [dst0, dst1], [src0, src1], VR, h=VC >> 1): return  # noqa: E701
    sem.execute(core, [dst0, dst1], [src0, src1], VR, sem.deinterleave2_map(core, VC, size))
