"""``TCMP(dst, src0, src1, mode)``, ``TCMPS(dst, src0, scalar | src1, mode)``, ``TSEL(dst, mask,
src0, src1, tmp)`` and ``TSELS(dst, mask, src, tmp, scalar)``, with every target's static checks
(``PtoCheckError``) and run-time asserts, then the NumPy semantics (docs/compare.md)."""
from __future__ import annotations

import numpy as np

from ...core import current_core
from ...enums import CmpMode, TileType
from ...errors import PtoCheckError, check, runtime_assert
from ...ops.events import instruction
from ...semantics.tile_moves import hazard
from ...tile import Tile
from ..elementwise.api import scalar as scalar_bits
from . import kernels as K, semantics as S

_CPU_U32_SRC = ("uint32", "int32", "uint16", "int16", "uint8", "int8", "float32", "half", "bfloat16")


def _tiles(call: str, t: str, named: dict) -> None:
    for name, x in named.items():
        if not isinstance(x, Tile):
            raise PtoCheckError(f"{name} must be a Tile, got {type(x).__name__}", rule=f"{call} operands", target=t)


def _mode(call: str, t: str, mode) -> CmpMode:
    if not isinstance(mode, CmpMode):
        raise PtoCheckError(f"{call}'s cmpMode is a pto.CmpMode, got {type(mode).__name__}", rule=f"{call} operands",
                            target=t)
    return mode


def _vec(call: str, t: str, named: dict, msg: str = "TileType of tile must be TileType::Vec") -> None:
    for name, x in named.items():
        check(x.Loc == TileType.Vec, f"{call}: {msg}", t, f"{name} is TileType.{x.Loc.name}")


def _row_major(call: str, t: str, named: dict) -> None:
    for name, x in named.items():
        check(x.isRowMajor, f"{call}: not supported Layout type", t, f"{name} is ColMajor")


def _bound(*tiles) -> None:
    for x in tiles:
        x._bound()


@instruction("TCMP")
def TCMP(dst: Tile, src0: Tile, src1: Tile, mode: CmpMode) -> None:
    """Per src0 valid row, one bit per column (bit c at byte c/8, bit c%8), set where
    ``src0 mode src1``; each target packs the rows its own way (docs/compare.md)."""
    core = current_core()
    R, t = core.target.compare, core.target.name
    _tiles("TCMP", t, dict(dst=dst, src0=src0, src1=src1))
    mode = _mode("TCMP", t, mode)
    T = src0.DType
    check(src1.DType == T, "TCMP: src0 and src1 must have same type", t, f"src0 {T}, src1 {src1.DType}")
    if R.cmp_dst is not None:
        check(dst.DType in R.cmp_dst, "TCMP: dst data type must be " + "/".join(R.cmp_dst), t, dst.DType)
    allowed = R.cmp_src if R.cmp_src is not None else (_CPU_U32_SRC if dst.DType == "uint32"
                                                        else ("int32", "half", "float32"))
    check(T in allowed, "TCMP: Invalid data type", t, f"{T} is not one of {', '.join(allowed)}")
    _vec("TCMP", t, dict(dst=dst, src0=src0, src1=src1))
    if R.cmp_row_major:
        _row_major("TCMP", t, dict(dst=dst, src0=src0, src1=src1))
    _bound(dst, src0, src1)
    if R.cmp_asserts:
        macro = core.target.assert_macro
        runtime_assert(core, (src0.valid_row, src0.valid_col) == (src1.valid_row, src1.valid_col),
                       f"TCMP: {macro}(src0 and src1 valid shapes are the same)",
                       f"src0 {src0.valid_row}x{src0.valid_col}, src1 {src1.valid_row}x{src1.valid_col}")
        runtime_assert(core, src0.valid_row == dst.valid_row, f"TCMP: {macro}(src0 and dst valid rows)",
                       f"src0 {src0.valid_row}, dst {dst.valid_row}")
    hazard("TCMP", {"dst": dst}, {"src0": src0, "src1": src1}, in_place_ok=True)
    if R.packing == "words":
        if K.run_cpu_words(core, dst, src0, src1, mode): return  # noqa: E701 (native/cupy kernel)
        return S.cpu_words(core, dst, src0, src1, mode)
    if K.run_npu_rows(core, dst, src0, src1, mode): return  # noqa: E701
    S.npu_rows(core, dst, src0, src1, mode)


@instruction("TCMPS")
def TCMPS(dst: Tile, src0: Tile, src1, mode: CmpMode) -> None:
    """``TCMPS(dst, src0, scalar, mode)`` or ``TCMPS(dst, src0, src1_tile, mode)``: TCMP against a
    scalar (the tile form: src1's first element on the NPUs, element by element on the
    simulator and for A5's 8-byte types)."""
    core = current_core()
    R, t = core.target.compare, core.target.name
    _tiles("TCMPS", t, dict(dst=dst, src0=src0))
    mode = _mode("TCMPS", t, mode)
    T = src0.DType
    tile_form = isinstance(src1, Tile)
    if tile_form:
        check(src1.DType == T, "TCMPS: The input data type must be consistent with the scalar data type", t,
              f"src0 {T}, src1 {src1.DType}")
    if R.cmps_src is not None:
        check(T in R.cmps_src, "TCMPS: Invalid data type", t, f"{T} is not one of {', '.join(R.cmps_src)}")
        check(dst.isRowMajor, "TCMPS: not supported Layout type", t, "dst is ColMajor")
        _vec("TCMPS", t, dict(dst=dst, src0=src0))
        if R.cmp_dst is not None:
            check(dst.DType in R.cmp_dst, "TCMPS: dst data type (vcmpvs_* takes __ubuf__ uint8_t*)", t, dst.DType)
    _bound(dst, src0, *((src1,) if tile_form else ()))
    if R.cmps_rows_assert:
        runtime_assert(core, src0.valid_row == dst.valid_row,
                       f"TCMPS: {core.target.assert_macro}(Number of rows of src and dst must be the same.)",
                       f"src {src0.valid_row}, dst {dst.valid_row}")
    sb = None if tile_form else scalar_bits(core, "TCMPS", T, src1)
    hazard("TCMPS", {"dst": dst}, {"src0": src0, **({"src1": src1} if tile_form else {})}, in_place_ok=True)
    if R.cmps_layout == "reflow":
        if not tile_form and K.run_cpu_reflow(core, dst, src0, mode, sb): return  # noqa: E701
        return S.cpu_cmps(core, dst, src0, src1 if tile_form else None, mode, sb)
    if tile_form:
        size = src0.Element.itemsize
        if R.cmps_tile == "first_b64_elementwise" and size == 8:
            return S.npu_rows(core, dst, src0, src1, mode)
        first = S.read(core, src1, np.array([src1.addr], np.int64), size, "TCMPS src1 read")[:, 0]
        return S.npu_rows(core, dst, src0, None, mode, scalar=first, elementwise=False,
                          half_bits=R.half_bits_16)
    if K.run_npu_rows(core, dst, src0, None, mode, sb, R.half_bits_16): return  # noqa: E701
    S.npu_rows(core, dst, src0, None, mode, scalar=sb, elementwise=False, half_bits=R.half_bits_16)


@instruction("TSEL")
def TSEL(dst: Tile, mask: Tile, src0: Tile, src1: Tile, tmp: Tile) -> None:
    """dst = mask bit ? src0 : src1 over dst's valid region (how each target walks the mask:
    docs/compare.md)."""
    core = current_core()
    R, t = core.target.compare, core.target.name
    _tiles("TSEL", t, dict(dst=dst, mask=mask, src0=src0, src1=src1, tmp=tmp))
    for name, x in (("src0", src0), ("src1", src1)):
        check(type(x) is type(dst), "TSEL: dst, src0 and src1 are one tile type (one template parameter)", t,
              f"{name} is {type(x).__name__}, dst {type(dst).__name__}")
    size = dst.Element.itemsize
    if R.sel_sizes is not None:
        check(size in R.sel_sizes, f"Fix: TSEL only support {'/'.join(str(8 * s) for s in R.sel_sizes)}-bit data type", t,
              f"{dst.DType}")
    if R.row_major:
        check(dst.isRowMajor, "Fix: TSEL only support RowMajor layout type.", t, "dst is ColMajor")
    _bound(dst, mask, src0, src1, tmp)
    hazard("TSEL", {"dst": dst}, {"mask": mask, "src0": src0, "src1": src1}, in_place_ok=True)
    if R.sel_tmp and dst.valid_row:              # a2a3/TSel.hpp:24-62: the mask row's UB address, for set_cmpmask
        n = 4 if size == 2 else 2
        last = mask.addr + (dst.valid_row - 1) * mask.Cols * mask.Element.itemsize
        S.write(core, tmp, tmp.addr + np.arange(n, dtype=np.int64) * 4, np.full(n, last, np.uint32), 4,
                "TSEL tmp write")
    if K.run_select(core, dst, mask, src0, src1, None, R.sel_walk): return  # noqa: E701
    S.select(core, "TSEL", dst, mask, src0, src1, None, R.sel_walk)


@instruction("TSELS")
def TSELS(dst: Tile, mask: Tile, src: Tile, tmp: Tile, scalar) -> None:
    """dst = mask bit ? src : scalar over dst's valid region, the mask per row."""
    core = current_core()
    R, t = core.target.compare, core.target.name
    _tiles("TSELS", t, dict(dst=dst, mask=mask, src=src, tmp=tmp))
    check(src.DType == dst.DType, "TSELS: dst and src have one data type", t, f"dst {dst.DType}, src {src.DType}")
    size = dst.Element.itemsize
    if R.sels_types is not None:
        check(dst.DType in R.sels_types, "TSELS: Invalid data type", t, dst.DType)
    if R.sels_sizes is not None:
        check(size in R.sels_sizes, "Fix: TSEL only support 16B and 32B data type.", t, dst.DType)
    if R.row_major:
        for name, x in (("dst", dst), ("src", src)) + ((("mask", mask),) if R.sels_mask_row_major else ()):
            check(x.isRowMajor, "TSELS: not supported Layout type", t, f"{name} is ColMajor")
    _bound(dst, mask, src, tmp)
    macro = core.target.assert_macro
    runtime_assert(core, (src.valid_row, src.valid_col) == (dst.valid_row, dst.valid_col),
                   f"TSELS: {macro}(src and dst valid shapes are the same)",
                   f"src {src.valid_row}x{src.valid_col}, dst {dst.valid_row}x{dst.valid_col}")
    sb = scalar_bits(core, "TSELS", dst.DType, scalar)
    hazard("TSELS", {"dst": dst}, {"mask": mask, "src": src}, in_place_ok=True)
    if R.sels_tmp:                               # a2a3/TSels.hpp:19-48: the scalar goes to tmp[0]
        S.write(core, tmp, np.array([tmp.addr], np.int64), sb.reshape(-1, 1), size, "TSELS tmp write")
    if K.run_select(core, dst, mask, src, None, sb, R.sels_walk): return  # noqa: E701
    S.select(core, "TSELS", dst, mask, src, None, sb, R.sels_walk)
