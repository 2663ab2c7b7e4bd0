"""TGATHER's launch plan on the kernel backends: the index form as ``tgather_index``
(cuda_src/tgather.cu), one thread per instance, a check pass then a write pass. Returns False
(NumPy runs) on the numpy backend, for tiles with boxes or column-major layouts, and whenever
the check pass reports a fault or a read inside the bytes the call writes: the kernel wrote
nothing, so NumPy raises the same fault, or reads every source first, as on numpy."""
from __future__ import annotations

from ...backend.kernels import ParamBlock, all_clean, enum, launch_on, use_kernels
from ...enums import SLayout

MATH = {"logical": "GM_LOGICAL", "bytes32": "GM_BYTES32", "unsigned": "GM_UNSIGNED"}


def plain(core, *tiles) -> bool:
    """Tiles the kernel addresses as ``r*Cols + c``: bound to this core's UB, row-major, no boxes."""
    return all(getattr(t, "core", None) is core and t.addr is not None and t.space == "ub" and t.isRowMajor
               and t.SLayout == SLayout.NoneBox for t in tiles)


def params(core, dst, src0, idx, tmp) -> ParamBlock:
    R = core.target.tgather
    T = dst.Element.itemsize
    VC = dst.valid_col
    return ParamBlock("tgather.cu", "GI_", VR=dst.valid_row,
                      COLS=VC if R.wide_cols is None or T != 8 else min(VC, R.wide_cols), T=T,
                      ISZ=idx.Element.itemsize, ISIGNED=int(idx.Element.kind == "i"),
                      MATH=enum("tgather.cu", MATH[R.offset_math]), DST=dst.addr, DST_COLS=dst.Cols,
                      IDX=idx.addr, IDX_COLS=idx.Cols, SRC=src0.addr, SRC_NUMEL=src0.Rows * src0.Cols,
                      SCRATCH=tmp.addr if R.tmp_scratch and T == 2 else -1)


def run_index(core, dst, src0, idx, tmp) -> bool:
    if not use_kernels(core) or not plain(core, dst, src0, idx, tmp) or dst.valid_row * dst.valid_col == 0:
        return False
    p = params(core, dst, src0, idx, tmp).words
    if not all_clean(launch_on(core, "tgather_index", p, passes=1, writes=())):
        return False
    launch_on(core, "tgather_index", p, passes=2, writes=("ub",))
    return True
