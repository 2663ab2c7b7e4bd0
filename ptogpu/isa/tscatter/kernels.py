"""TSCATTER's launch plan on the kernel backends: the index form as ``tscatter_index``
(cuda_src/tgather.cu), one thread per instance, a check pass then a write pass. Returns False
(NumPy runs) on the numpy backend, for tiles with boxes or column-major layouts, for a value
conversion (the simulator's dst and src types may differ), and whenever the check pass reports
a fault or a read inside the bytes the call writes."""
from __future__ import annotations

from ...backend.kernels import ParamBlock, enum, use_kernels
from ...semantics.tile_moves import row_cols, vscatter_lanes
from ..tgather.kernels import plain, run_map, two_passes

CAST = {"u32": "SC_U32", "native": "SC_NATIVE", "unsigned": "SC_UNSIGNED"}


def params(core, dst, src, idx) -> ParamBlock:
    R = core.target.tscatter
    T = dst.Element.itemsize
    VC = idx.valid_col
    cols = row_cols(R.wide_cols, T, VC)
    lowest = R.lane_order == "lowest_lane"
    lanes = vscatter_lanes(T, idx.Element.itemsize) if lowest else max(cols, 1)
    return ParamBlock("tgather.cu", "SI_", VR=idx.valid_row, COLS=cols, T=T, ISZ=idx.Element.itemsize,
                      ISIGNED=int(idx.Element.kind == "i"), CAST=enum("tgather.cu", CAST[R.index_cast]),
                      CLEAR=int(R.clear), LANES=lanes, LOWEST=int(lowest), DST=dst.addr,
                      DST_BYTES=dst.Rows * dst.Cols * T, SRC=src.addr, SRC_COLS=src.Cols, IDX=idx.addr,
                      IDX_COLS=idx.Cols)


def run_index(core, dst, src, idx) -> bool:
    if not use_kernels(core) or not plain(core, dst, src, idx) or dst.DType != src.DType:
        return False
    return two_passes(core, "tscatter_index", params(core, dst, src, idx).words)


def run_mask(core, dst, src, pattern, axis: int) -> bool:
    """TSCATTER's mask form (and P1111, TMOV: the rows copied as they are) on the kernel backends."""
    R = core.target.tscatter
    F, pos = pattern.factor, pattern.position
    if dst.DType != src.DType:
        return False                        # the simulator's value conversion: NumPy
    if F == 1:
        return run_map(core, dst, src, "MO_GCOL_SEL")
    T = dst.Element.itemsize
    wide = R.wide_cols if R.wide_cols is not None and T == 8 else None
    if R.mask_cursor:
        return run_map(core, dst, src, "MO_SROW_CUR" if axis == 0 else "MO_SCOL_SEL", F=F, pos=pos)
    if axis == 0:
        return run_map(core, dst, src, "MO_SROW", F=F, pos=pos, clear=R.clear, wide=wide)
    off16 = R.col_offset_bits == 16
    if R.col_unit_b16 and T == 1:           # VC int16 units: 2*VC bytes a row
        return run_map(core, dst, src, "MO_SCOL", F=F, pos=pos, svc=2 * src.valid_col, clear=R.clear, off16=off16)
    svc = src.valid_col if wide is None else min(src.valid_col, wide)
    return run_map(core, dst, src, "MO_SCOL", F=F, pos=pos, svc=svc, clear=R.clear, off16=off16)
