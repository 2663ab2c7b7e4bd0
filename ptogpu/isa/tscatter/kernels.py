"""TSCATTER's launch plan on the kernel backends: the index form as ``tscatter_index``
(cuda_src/tgather.cu), one thread per instance, a check pass then a write pass. Returns False
(NumPy runs) on the numpy backend, for tiles with boxes or column-major layouts, for a value
conversion (the simulator's dst and src types may differ), and whenever the check pass reports
a fault or a read inside the bytes the call writes."""
from __future__ import annotations

from ...backend.kernels import ParamBlock, all_clean, enum, launch_on, use_kernels
from ..tgather.kernels import plain

CAST = {"u32": "SC_U32", "native": "SC_NATIVE", "unsigned": "SC_UNSIGNED"}


def params(core, dst, src, idx) -> ParamBlock:
    R = core.target.tscatter
    T = dst.Element.itemsize
    VC = idx.valid_col
    cols = VC if R.wide_cols is None or T != 8 else min(VC, R.wide_cols)
    lowest = R.lane_order == "lowest_lane"
    lanes = (256 // max(idx.Element.itemsize, 2) if T != 8 else 64) if lowest else max(cols, 1)
    return ParamBlock("tgather.cu", "SI_", VR=idx.valid_row, COLS=cols, T=T, ISZ=idx.Element.itemsize,
                      ISIGNED=int(idx.Element.kind == "i"), CAST=enum("tgather.cu", CAST[R.index_cast]),
                      CLEAR=int(R.clear), LANES=lanes, LOWEST=int(lowest), DST=dst.addr,
                      DST_BYTES=dst.Rows * dst.Cols * T, SRC=src.addr, SRC_COLS=src.Cols, IDX=idx.addr,
                      IDX_COLS=idx.Cols)


def run_index(core, dst, src, idx) -> bool:
    if not use_kernels(core) or not plain(core, dst, src, idx) or dst.DType != src.DType:
        return False
    p = params(core, dst, src, idx).words
    if not all_clean(launch_on(core, "tscatter_index", p, passes=1, writes=())):
        return False
    launch_on(core, "tscatter_index", p, passes=2, writes=("ub",))
    return True
