"""``TINTERLEAVE(dst1, dst0, src1, src0)`` and ``TDEINTERLEAVE`` (other-ops.md §B).

Outputs first, high half first, as in C++. The iteration domain is dst0's valid shape.
"""
from __future__ import annotations

from ...core import current_core
from ...enums import TileType
from ...errors import PtoCheckError, check, runtime_assert
from . import semantics as sem
from ...tile import Tile, require_valid_getters
from ...ops.events import instruction
from ...ops.template import TemplateFunction
from ...semantics.tile_moves import hazard
from .kernels import run_interleave


def _common(core, what: str, key: str, named: dict) -> None:
    """The static checks of the target's header, then bounds. Both targets' signatures take
    the two destinations (and the two sources) as one template type, so they must be the same
    Tile type. The CPU simulator asserts only RowMajor (any Loc; src and dst element types may
    differ: each element is converted by value); A5 also has its type list and dst T == src T."""
    t = core.target.name
    rules = core.target.interleave
    for name, tile in named.items():
        if not isinstance(tile, Tile):
            raise PtoCheckError(f"{name} must be a Tile, got {type(tile).__name__}",
                                rule=f"{what} operands", target=t)
    check(rules.supported, f"{what}: target support", t,
          f"{what} has no implementation on this target (A5, Kirin and the CPU simulator only)")
    for group in (("dst1", "dst0"), ("src1", "src0")):
        a, b = (named.get(k) for k in group)
        if a is not None and b is not None:
            check(type(a) is type(b), f"{what}: {group[0]} and {group[1]} are one Tile type "
                  "(template deduction)", t, f"{type(a).__name__} vs {type(b).__name__}")
    # whose GetValidRow/Col the code calls: dst0's, the rest's inside the run-time asserts only
    # (the one-src A5 form: src's; targets.ValidGetters)
    require_valid_getters(core, what, key, **{n: named[n] for n in ("dst0", "dst1", "src", "src0", "src1")
                                              if n in named})
    dst0 = named["dst0"]
    for name, tile in named.items():
        if rules.vec_only:
            check(tile.Loc == TileType.Vec, f"{what}: {name} is a Vec (UB) tile", t,
                  f"{name} is TileType.{tile.Loc.name}")
        check(tile.isRowMajor, f"{what}: TileData::isRowMajor", t, f"{name} is ColMajor")
        if rules.same_dtype:
            check(tile.DType == dst0.DType, f"{what}: src and dst DType match", t,
                  f"{name} holds {tile.DType}, dst0 holds {dst0.DType}")
    if rules.dtypes is not None:
        check(dst0.DType in rules.dtypes, f"{what}: DType", t,
              f"{dst0.DType} is not one of {', '.join(rules.dtypes)}")
    if not rules.same_dtype:                 # the simulator converts by value, where it can
        from ...semantics.sim_types import check_conversion
        for name, tile in named.items():
            if name.startswith("src"):
                check_conversion(tile.DType, dst0.DType, what, t)
    from ...semantics.cells import guard_region  # dynamic valid dims past the arena
    for tile in named.values():
        tile._bound()
        guard_region(core, core.arena(tile.space), tile.valid_row * tile.valid_col, tile.Element.itemsize, what)
    if rules.engine != "cpu_loop":
        # dst over a src on A5: later register chunks would read overwritten data (undefined);
        # the sources are read as they were before the instruction (the simulator's loop
        # order is emulated instead)
        hazard(what, {n: x for n, x in named.items() if n.startswith("dst")},
               {n: x for n, x in named.items() if n.startswith("src")})


def _asserts(core, what: str, ref_name: str, shape, named: dict, even: int | None) -> None:
    """The run-time asserts: valid shapes equal to ``shape`` (and ``even`` an even width)."""
    kind = core.target.assert_macro
    if even is not None:
        runtime_assert(core, even % 2 == 0, f"{what}: {kind}(validCol % 2 == 0)",
                       f"valid cols {even} are odd")
    for name, tile in named.items():
        runtime_assert(core, (tile.valid_row, tile.valid_col) == shape,
                       f"{what}: {kind}({name} valid shape == {ref_name}'s)",
                       f"{name} is {tile.valid_row}x{tile.valid_col}, want {shape[0]}x{shape[1]}")


def _cpu_plain(dsts, srcs, VR: int, VC: int) -> bool:
    """The kernels run the CPU loop where it equals their plain, same-type, alias-free form.
    The kernel stores in map order, the simulator in program order: they agree only where no
    byte is stored twice, so the two destinations' written spans (a dynamic valid width wider
    than Cols runs into the next rows, and past the tile) must not meet."""
    tiles = list(dsts) + list(srcs)
    from ...enums import SLayout
    span = lambda d: (d.addr, d.addr + ((VR - 1) * d.Cols + VC) * d.Element.itemsize)
    (a0, e0), (a1, e1) = span(dsts[0]), span(dsts[1])
    return (all(x.SLayout == SLayout.NoneBox and x.DType == tiles[0].DType and x.space == "ub"
                for x in tiles)
            and not any(a.shares_bytes(b) for i, a in enumerate(tiles) for b in tiles[i + 1:])
            and (VR == 0 or VC == 0 or e0 <= a1 or e1 <= a0))


@instruction("TINTERLEAVE")
def _tinterleave(dst1: Tile, dst0: Tile, src1: Tile, src0: Tile) -> None:
    """dst0 = first half, dst1 = second half of the stream src0[0], src1[0], src0[1], ..."""
    core = current_core()
    _common(core, "TINTERLEAVE", "tinterleave", dict(dst1=dst1, dst0=dst0, src1=src1, src0=src0))
    VR, VC = dst0.valid_row, dst0.valid_col
    cpu = core.target.interleave.engine == "cpu_loop"     # the simulator checks dst0's width
    _asserts(core, "TINTERLEAVE", "dst0", (VR, VC), dict(dst1=dst1, src1=src1, src0=src0),
             even=VC if cpu else _first_odd(VC, (src0, src1, dst1)))
    size = dst0.Element.itemsize
    if cpu:
        if _cpu_plain([dst0, dst1], [src0, src1], VR, VC) and run_interleave(
                core, "interleave", [dst0, dst1], [src0, src1], VR, vc=VC):
            return
        return sem.cpu_execute(core, [dst0, dst1], [src0, src1], VR, sem.cpu_statements("interleave", VR, VC))
    if run_interleave(core, "interleave", [dst0, dst1], [src0, src1], VR, vc=VC):  # native/cupy kernel
        return
    sem.execute(core, [dst0, dst1], [src0, src1], VR, sem.interleave_map(core, VC, size))


def _first_odd(VC: int, others) -> int:
    """A5 asserts every tile's valid width even: the first odd one (or VC)."""
    for t in others:
        if t.valid_col % 2:
            return t.valid_col
    return VC


@instruction("TDEINTERLEAVE")
def _tdeinterleave(dst1: Tile, dst0: Tile, src1: Tile, src0: Tile | None = None) -> None:
    """Inverse of TINTERLEAVE; ``TDEINTERLEAVE(dst1, dst0, src)`` splits one source into its
    even (dst0) and odd (dst1) elements."""
    core = current_core()
    cpu = core.target.interleave.engine == "cpu_loop"
    if src0 is None:
        src = src1
        _common(core, "TDEINTERLEAVE", "tdeinterleave_1src", dict(dst1=dst1, dst0=dst0, src=src))
        if cpu:     # the loop runs over dst0's valid shape; src must be twice as wide
            VR, VC = dst0.valid_row, dst0.valid_col
            _asserts(core, "TDEINTERLEAVE", "dst0", (VR, VC), dict(dst1=dst1), even=VC)
            _asserts(core, "TDEINTERLEAVE", "2 x dst0", (VR, 2 * VC), dict(src=src), even=None)
            if _cpu_plain([dst0, dst1], [src], VR, VC) and run_interleave(core, "deint1", [dst0, dst1], [src], VR, n=VC):
                return
            return sem.cpu_execute(core, [dst0, dst1], [src], VR, sem.cpu_statements("deint1", VR, VC))
        # A5: the loop runs over src's rows and half its valid cols
        VR, VC = src.valid_row, src.valid_col // 2
        _asserts(core, "TDEINTERLEAVE", "half of src", (VR, VC), dict(dst0=dst0, dst1=dst1), even=None)
        if run_interleave(core, "deint1", [dst0, dst1], [src], VR, n=VC): return  # noqa: E701
        sem.execute(core, [dst0, dst1], [src], VR, sem.deinterleave1_map(VC))
        return
    _common(core, "TDEINTERLEAVE", "tdeinterleave", dict(dst1=dst1, dst0=dst0, src1=src1, src0=src0))
    VR, VC = dst0.valid_row, dst0.valid_col
    _asserts(core, "TDEINTERLEAVE", "dst0", (VR, VC), dict(dst1=dst1, src1=src1, src0=src0),
             even=VC if cpu else None)
    size = dst0.Element.itemsize
    if cpu:
        if _cpu_plain([dst0, dst1], [src0, src1], VR, VC) and run_interleave(
                core, "deint2", [dst0, dst1], [src0, src1], VR, h=VC >> 1):
            return
        return sem.cpu_execute(core, [dst0, dst1], [src0, src1], VR, sem.cpu_statements("deint2", VR, VC))
    if run_interleave(core, "deint2", [dst0, dst1], [src0, src1], VR, h=VC >> 1): return  # noqa: E701
    sem.execute(core, [dst0, dst1], [src0, src1], VR, sem.deinterleave2_map(core, VC, size))


def _is(x, T) -> bool:
    return isinstance(x, T)


TINTERLEAVE = TemplateFunction(_tinterleave, "TINTERLEAVE", [("TileDataDst", (0, 1), _is), ("TileDataSrc", (2, 3), _is)])
"""``TINTERLEAVE(dst1, dst0, src1, src0)`` or ``TINTERLEAVE[DstT, SrcT](...)`` (pto_instr.hpp:2572-2579)."""
TDEINTERLEAVE = TemplateFunction(_tdeinterleave, "TDEINTERLEAVE",
                                 [("TileDataDst", (0, 1), _is), ("TileDataSrc", (2, 3), _is)])
"""``TDEINTERLEAVE(dst1, dst0, src1, src0)``, ``TDEINTERLEAVE(dst1, dst0, src)``, or either with
``[DstT, SrcT]`` spelled out (pto_instr.hpp:2581-2596)."""
