"""``pto.TGATHER``: the index form ``TGATHER(dst, src0, indices, tmp)``, the mask form
``TGATHER[MaskPattern, GatherAxis](dst, src)`` (default P1111, GATHER_ROW) and the compare form
``TGATHER[CmpMode](dst, src0, k_value, cdst, tmp, offset)``, each with every target's static
checks (``PtoCheckError``) and run-time asserts; then the kernel backends' launch or the NumPy
semantics."""
from __future__ import annotations


from ...core import current_core
from ...enums import CmpMode, GatherAxis, MaskPattern, TileType
from ...errors import PtoCheckError, asserts_live, check, runtime_assert
from ...ops.template import Forms
from ...semantics.tile_moves import hazard
from ...tile import Tile
from . import semantics as sem
from .kernels import run_compare, run_index, run_mask


def _tiles(t: str, named: dict) -> None:
    for name, tile in named.items():
        if not isinstance(tile, Tile):
            raise PtoCheckError(f"{name} must be a Tile, got {type(tile).__name__}", rule="TGATHER operands", target=t)


def check_index(core, dst, src0, idx, tmp) -> None:
    """cpu/TGather.hpp:84-90, a2a3:17-29 and 96-97, a5:20-34."""
    R, t = core.target.tgather, core.target.name
    _tiles(t, dict(dst=dst, src0=src0, indices=idx, tmp=tmp))
    T, isz = dst.Element.itemsize, idx.Element.itemsize
    if R.data_sizes is not None:
        check(T in R.data_sizes, "TGATHER expect b8/b16/b32/b64" if 1 in R.data_sizes else "TGATHER expect b16/b32",
              t, f"sizeof({dst.DType}) = {T}")
    check(isz in R.index_sizes, "TGATHER expect b32" if R.index_sizes == (4,) else "TGATHER expect b16/b32 indices",
          t, f"sizeof({idx.DType}) = {isz}")
    check(idx.Element.kind in "iu", "TGATHER: integral indices (ptogpu's own rule)", t,
          f"indices hold {idx.DType}: a float index tile of the right size compiles (the simulator converts "
          "its value, the NPUs read its bits); ptogpu does not emulate that and refuses it")
    if R.b64_index_size and T == 8:
        check(isz == R.b64_index_size, "TGATHER expects b32 indices for b64 data", t, f"{idx.DType} indices")
    check(dst.DType == src0.DType, "TGATHER expect same datatype for src and dst", t,
          f"dst {dst.DType}, src0 {src0.DType}")
    if R.tmp_same_as_index:
        check(tmp.DType == idx.DType, "TGATHER expect same datatype for tmp buffer and indice", t,
              f"tmp {tmp.DType}, indices {idx.DType}")
    if (T, isz) in R.garbage_pairs:
        raise PtoCheckError(f"{T}-byte data with {isz}-byte indices compiles, but a5/TGather.hpp reinterprets the "
                            "index register in lanes of the other width: the bytes are not defined by the code, so "
                            "ptogpu refuses the call", rule="TGATHER index width for this data width", target=t)


def check_mask(core, dst, src, pattern: MaskPattern, axis: GatherAxis) -> None:
    """cpu:161-168, a2a3:144-155, a5:310-333."""
    R, t = core.target.tgather, core.target.name
    _tiles(t, dict(dst=dst, src=src))
    if R.mask_sizes is not None:
        check(src.Element.itemsize in R.mask_sizes, "TGATHER src element type size", t,
              f"sizeof({src.DType}) = {src.Element.itemsize}, not one of {R.mask_sizes}")
    if R.mask_types is not None:
        for n, x in (("Src", src), ("Dst", dst)):
            check(x.DType in R.mask_types, f"TGATHER {n} data type", t, f"{x.DType} is not one of {', '.join(R.mask_types)}")
    check(dst.Element.itemsize == src.Element.itemsize, "TGATHER: expect same type size for dst and src", t,
          f"dst {dst.DType}, src {src.DType}")
    for n, x in (("dst", dst), ("src", src)):
        check(x.Loc == TileType.Vec, "TGATHER: expect vec TileType", t, f"{n} is TileType.{x.Loc.name}")
        check(x.isRowMajor, "TGATHER: expect row major", t, f"{n} is ColMajor")
    if axis == GatherAxis.GATHER_COL:
        check(src.Element.itemsize != 8 or R.b64_col, "TGATHER B64 pattern currently supports row gather.", t,
              f"{src.DType} with GATHER_COL")
        if R.col_asserts == "no_debug_build" and asserts_live(core):
            raise PtoCheckError("the _DEBUG build's PTO_ASSERT multiplies by GetTimesByMask<maskPattern> without () "
                                "(a2a3/TGather.hpp:152-155): GATHER_COL does not compile with asserts live",
                                rule="TGATHER GATHER_COL under _DEBUG", target=t)


def mask_asserts(core, dst, src, pattern: MaskPattern, axis: GatherAxis) -> None:
    R = core.target.tgather
    kind = core.target.assert_macro
    if axis == GatherAxis.GATHER_ROW:
        if R.row_dst_assert:
            runtime_assert(core, dst.valid_col == dst.Cols, f"TGATHER: {kind}(dst.GetValidCol() == Cols)",
                           f"dst valid cols {dst.valid_col}, Cols {dst.Cols} (the stream needs continuous dst)")
        return
    if R.col_asserts == "assert":
        n = pattern.count(src.valid_row)
        runtime_assert(core, dst.valid_row == n and dst.valid_row == dst.Rows,
                       f"TGATHER: {kind}(dst.GetValidRow() == CountSelected == Rows)",
                       f"dst valid rows {dst.valid_row}, Rows {dst.Rows}, {n} rows selected")


def check_compare(core, dst, src0, k, cdst, tmp, mode: CmpMode) -> None:
    """a2a3:306-315, a5:956-968; the simulator has no compare form."""
    R, t = core.target.tgather, core.target.name
    if R.compare is None:
        raise PtoCheckError("the CPU simulator defines no TGATHER_IMPL for the compare form "
                            "(cpu/TGather.hpp: the index and mask forms only)", rule="TGATHER compare form", target=t)
    _tiles(t, dict(dst=dst, src0=src0, k_value=k, cdst=cdst, tmp=tmp))
    check(dst.DType in ("int32", "uint32"), "TGATHER Dst data type must be int32_t/uint32_t.", t, dst.DType)
    check(mode in (CmpMode.GT, CmpMode.EQ), "TGATHER only support GT or EQ mode", t, mode.name)
    if R.compare == "a2a3":
        check(src0.DType in ("float32", "half") or (src0.DType == "int32" and mode == CmpMode.EQ),
              "TGATHER Src data type must be half/float or int32_t while cmpMode is EQ.", t, src0.DType)
        for n, x in (("dst", dst), ("src0", src0)):
            check(x.Loc == TileType.Vec, "TGATHER expect vec TileType", t, f"{n} is TileType.{x.Loc.name}")
    else:
        check(src0.DType in ("float32", "uint32", "int32", "uint16", "int16", "half", "int8", "uint8"),
              "TGATHER Src data type must be int8_t/uint8_t/int16_t/uint16_t/int32_t/uint32_t/half/float.", t,
              src0.DType)
        check(k.DType in ("uint16", "uint32"), "TGATHER k_value tile must be uint16_t/uint32_t", t, k.DType)


def _run(ops: tuple, enums: dict) -> None:
    core = current_core()
    t = core.target.name
    if CmpMode in enums or len(ops) == 6:
        if len(ops) != 6 or CmpMode not in enums:
            raise PtoCheckError("the compare form is TGATHER<D, S, S1, C, Tmp, CmpMode>(dst, src0, k_value, cdst, "
                                "tmp, offset): cmpMode has no default", rule="TGATHER forms", target=t)
        dst, src0, k, cdst, tmp, offset = ops
        mode = enums[CmpMode]
        check_compare(core, dst, src0, k, cdst, tmp, mode)
        for x in (dst, src0, k, cdst):
            x._bound()
        hazard("TGATHER", {"dst": dst, "cdst": cdst}, {"src0": src0, "k_value": k})
        if run_compare(core, dst, src0, k, cdst, mode, int(offset)):
            return
        return sem.gather_compare(core, dst, src0, k, cdst, mode, int(offset))
    if len(ops) == 4:
        dst, src0, idx, tmp = ops
        check_index(core, dst, src0, idx, tmp)
        for x in (dst, src0, idx, tmp):
            x._bound()
        if core.target.tgather.tmp_asserts:
            runtime_assert(core, (idx.valid_row, idx.valid_col) == (tmp.valid_row, tmp.valid_col),
                           f"TGATHER: {core.target.assert_macro}(same rows and cols for indice and tmp buffer)",
                           f"indices {idx.valid_row}x{idx.valid_col}, tmp {tmp.valid_row}x{tmp.valid_col}")
        hazard("TGATHER", {"dst": dst}, {"src0": src0, "indices": idx})
        if run_index(core, dst, src0, idx, tmp):
            return
        return sem.gather_index(core, dst, src0, idx, tmp)
    if len(ops) == 3:
        raise PtoCheckError("TGATHER(dst, src0, indices) has no overload: the index form takes tmp "
                            "(TGATHER(dst, src0, indices, tmp); pto_instr.hpp:1206-1213)", rule="TGATHER forms", target=t)
    if len(ops) != 2:
        raise PtoCheckError(f"TGATHER takes 2 (mask), 4 (index) or 6 (compare) operands, got {len(ops)}",
                            rule="TGATHER forms", target=t)
    dst, src = ops
    pattern = enums.get(MaskPattern, MaskPattern.P1111)
    axis = enums.get(GatherAxis, GatherAxis.GATHER_ROW)
    check_mask(core, dst, src, pattern, axis)
    for x in (dst, src):
        x._bound()
    mask_asserts(core, dst, src, pattern, axis)
    hazard("TGATHER", {"dst": dst}, {"src": src})
    if run_mask(core, dst, src, pattern, axis):
        return
    sem.gather_mask(core, dst, src, pattern, axis)


TGATHER = Forms("TGATHER", _run, (MaskPattern, GatherAxis, CmpMode), 6, doc="""TGATHER: UB -> UB gather.

``TGATHER(dst, src0, indices, tmp)``: ``dst[r, c] = src0_flat[indices[r, c]]`` over dst's valid
region (an index is an element offset from src0's base). The simulator gives 0 for an index
outside src0; A2/A3 and A5 read whatever UB holds there (past UB: PtoFault).

``TGATHER[pto.MaskPattern.P0101, pto.GatherAxis.GATHER_ROW](dst, src)``: every 2nd/4th element
of each src row (ROW, packed from dst's base) or row (COL); P1111 copies.

``TGATHER[pto.CmpMode.GT](dst, src0, k_value, cdst, tmp, offset)`` (A2/A3, A5): per src0 row i,
the indices of the columns where ``src0[i, j] > k[i]`` (or ==), left-packed into dst row i, and
their count into cdst[i]. docs/tgather.md has every target's rules.""")
