"""``pto.TSCATTER``: the index form ``TSCATTER(dst, src, indexes)`` and the mask form
``TSCATTER[MaskPattern, ScatterAxis](dst, src)`` (default P1111, SCATTER_ROW), with each
target's static checks (``PtoCheckError``) and run-time asserts, then the kernel backends'
launch or the NumPy semantics."""
from __future__ import annotations

from ...core import current_core
from ...enums import MaskPattern, ScatterAxis, TileType
from ...errors import PtoCheckError, asserts_live, check, runtime_assert
from ...ops.template import Forms
from ...semantics.tile_moves import hazard
from ...tile import Tile
from . import semantics as sem
from .kernels import run_index, run_mask


def _tiles(t: str, named: dict) -> None:
    for name, tile in named.items():
        if not isinstance(tile, Tile):
            raise PtoCheckError(f"{name} must be a Tile, got {type(tile).__name__}", rule="TSCATTER operands", target=t)


def check_index(core, dst, src, idx) -> None:
    """cpu/TScatter.hpp:22-26, a2a3:61-89, a5:82-110."""
    R, t = core.target.tscatter, core.target.name
    _tiles(t, dict(dst=dst, src=src, indexes=idx))
    check(idx.Element.kind in "iu", "TSCATTER: indexes must be an integral type", t,
          f"indexes hold {idx.DType}")
    if R.data_types is not None:
        check(dst.DType in R.data_types, "TSCATTER: Invalid data type.", t,
              f"{dst.DType} is not one of {', '.join(R.data_types)}")
    if R.same_dtype:
        check(dst.DType == src.DType, "TSCATTER: Data type of dst and src must be the same.", t,
              f"dst {dst.DType}, src {src.DType}")
    if R.index_types is not None:
        check(idx.DType in R.index_types and
              (R.pairs is None or (dst.Element.itemsize, idx.Element.itemsize) in R.pairs),
              "TSCATTER: Invalid data type of idx.", t,
              f"{idx.DType} indexes with {dst.DType} data (pairs of sizes: "
              f"{', '.join(f'{a}B data/{b}B index' for a, b in R.pairs or ())})")
    if R.vec_only:
        for name, tile in (("dst", dst), ("src", src), ("indexes", idx)):
            check(tile.Loc == TileType.Vec, "TSCATTER: TileType of src and dst tiles must be TileType::Vec.", t,
                  f"{name} is TileType.{tile.Loc.name}")


def check_mask(core, dst, src, pattern: MaskPattern, axis: ScatterAxis) -> None:
    """cpu/TScatter.hpp:92-106 (before its P1111 branch: they hold for P1111 too), a2a3:157-188,
    a5:221-252 (P1111 is TMOV_IMPL there, with TMOV's checks only)."""
    R, t = core.target.tscatter, core.target.name
    _tiles(t, dict(dst=dst, src=src))
    vec = lambda: [check(x.Loc == TileType.Vec, "TSCATTER: expect vec TileType", t,  # noqa: E731
                         f"{n} is TileType.{x.Loc.name}") for n, x in (("dst", dst), ("src", src))]
    if R.mask_cursor:
        check(src.Element.itemsize in R.mask_sizes, "TSCATTER: src element type must be 16 or 32-bit wide", t,
              f"sizeof({src.DType}) = {src.Element.itemsize}")
        vec()
        check(dst.isRowMajor and src.isRowMajor, "TSCATTER: expect row major", t, "a ColMajor tile")
        check(dst.Element.itemsize == src.Element.itemsize, "TSCATTER: expect same type size for dst and src", t,
              f"dst {dst.DType}, src {src.DType}")
        return
    if pattern == MaskPattern.P1111:
        check(dst.DType == src.DType, "TMOV: dst and src DType", t, f"dst {dst.DType}, src {src.DType}")
        return
    check((R.data_types is None or dst.DType in R.data_types) and src.Element.itemsize in R.mask_sizes,
          "TSCATTER: Invalid data type.", t, f"{dst.DType} ({src.Element.itemsize} bytes) is not one of "
          f"{', '.join(R.data_types or ())} (sizes {R.mask_sizes})")
    check(dst.DType == src.DType, "TSCATTER: Data type of dst and src must be the same.", t,
          f"dst {dst.DType}, src {src.DType}")
    vec()
    if not R.mask_debug_compiles and asserts_live(core):
        raise PtoCheckError("the _DEBUG build's PTO_ASSERT writes GetTimesByMask<mask> without () "
                            "(a2a3/TScatter.hpp:191-199, a5:254-262): the mask form does not compile with "
                            "asserts live", rule="TSCATTER mask form under _DEBUG", target=t)


def mask_asserts(core, dst, src, pattern: MaskPattern, axis: ScatterAxis) -> None:
    """The valid shapes each target asserts (the simulator: its CountSelected relation)."""
    kind = core.target.assert_macro
    F = pattern.factor
    if pattern == MaskPattern.P1111:
        want = (src.valid_row, src.valid_col)
    elif core.target.tscatter.mask_cursor:
        ok = (src.valid_col == pattern.count(dst.valid_col) and src.valid_row == dst.valid_row) if axis == 0 else \
            (src.valid_row == pattern.count(dst.valid_row) and src.valid_col == dst.valid_col)
        runtime_assert(core, ok, f"TSCATTER: {kind}(src valid shape == CountSelected(dst's))",
                       f"src {src.valid_row}x{src.valid_col}, dst {dst.valid_row}x{dst.valid_col}, {pattern.name}")
        return
    else:
        want = (src.valid_row, src.valid_col * F) if axis == 0 else (src.valid_row * F, src.valid_col)
    runtime_assert(core, (dst.valid_row, dst.valid_col) == want,
                   f"TSCATTER: {kind}(dst valid shape == src's times {F} along the axis)",
                   f"dst {dst.valid_row}x{dst.valid_col}, want {want[0]}x{want[1]}")


def _run(ops: tuple, enums: dict) -> None:
    core = current_core()
    t = core.target.name
    if len(ops) == 3 and not enums:
        dst, src, idx = ops
        check_index(core, dst, src, idx)
        for x in (dst, src, idx):
            x._bound()
        hazard("TSCATTER", {"dst": dst}, {"src": src, "indexes": idx})
        if run_index(core, dst, src, idx):
            return
        return sem.scatter_index(core, dst, src, idx)
    if len(ops) != 2:
        raise PtoCheckError(f"TSCATTER takes (dst, src, indexes) or, with a mask pattern, (dst, src): got "
                            f"{len(ops)} operands", rule="TSCATTER forms", target=t)
    dst, src = ops
    pattern = enums.get(MaskPattern, MaskPattern.P1111)
    axis = enums.get(ScatterAxis, ScatterAxis.SCATTER_ROW)
    check_mask(core, dst, src, pattern, axis)
    for x in (dst, src):
        x._bound()
    mask_asserts(core, dst, src, pattern, axis)
    hazard("TSCATTER", {"dst": dst}, {"src": src})
    if run_mask(core, dst, src, pattern, axis):
        return
    if pattern == MaskPattern.P1111:
        return sem.tmov(core, dst, src)
    sem.scatter_mask(core, dst, src, pattern, axis)


TSCATTER = Forms("TSCATTER", _run, (MaskPattern, ScatterAxis), 3, doc="""TSCATTER: UB -> UB scatter.

``TSCATTER(dst, src, indexes)``: ``dst_flat[indexes[i, j]] = src[i, j]`` over the index tile's
valid region (an index is an element offset from dst's base). A2/A3 and A5 zero the whole dst
tile first; the simulator does not. Colliding indices: the later element wins (A5: inside one
vscatter, the lowest lane). An index past UB is a PtoFault; inside UB it writes there.

``TSCATTER[pto.MaskPattern.P0101, pto.ScatterAxis.SCATTER_ROW](dst, src)``: src's elements to
every 2nd (P0101/P1010) or 4th (P0001..P1000) dst column (ROW) or row (COL), the rest zero;
P1111 is TMOV. docs/tgather.md has every target's rules.""")
