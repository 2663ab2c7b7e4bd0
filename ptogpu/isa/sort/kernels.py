"""TSORT32 on the kernel backends (cuda_src/sort.cu, ``tile_sort32``): one thread per instance,
a check pass then the sort. The kernel works out the rows, blocks and lanes each target sorts
and its tie rule from the target's rule words, not from the NumPy semantics it is checked
against. Plain tiles only (this core's, in UB, row-major, no boxes) and neither modelled
vendor bug (rows of 255 * k blocks on the NPUs, the simulator's 2-byte block offsets): those,
and TMRGSORT, run NumPy. Returns False where NumPy must run (it wrote nothing)."""
from __future__ import annotations

from ...backend import kernel_ok
from ...backend.kernels import ParamBlock, all_clean, enum, launch_on, use_kernels
from ...enums import SLayout

F = "sort.cu"
KINDS = {"float32": "SK_F32", "half": "SK_F16", "bfloat16": "SK_BF16", "int32": "SK_I32", "int16": "SK_I16"}


def _plain(core, t) -> bool:
    return (getattr(t, "core", None) is core and t.addr is not None and t.space == "ub"
            and t.SLayout == SLayout.NoneBox and t.isRowMajor)


def run_tsort32(core, dst, src, idx, tmp) -> bool:
    """``TSORT32(dst, src, idx[, tmp])``'s sort as the kernel (tmp's tail: the caller's)."""
    R = core.target.sort
    T = src.DType
    if T not in KINDS or not all(_plain(core, x) for x in (dst, src, idx)):
        return False
    if (R.half_block_bug and src.Element.itemsize == 2) or (R.chunk_bug and src.valid_col >= 255 * 32):
        return False
    if not use_kernels(core) or not kernel_ok(core, dst, src, idx):
        return False
    p = ParamBlock(F, "SO_", KIND=enum(F, KINDS[T]), SRC=src.addr, SC=src.Cols, SVR=src.valid_row,
                   SVC=src.valid_col, IDX=idx.addr, IC=idx.Cols, IVR=idx.valid_row, IVC=idx.valid_col, DST=dst.addr,
                   DC=dst.Cols, DVR=dst.valid_row, TAIL=enum(F, "TAIL_PARTIAL" if R.tail == "partial" else "TAIL_DROP"),
                   HAS_TMP=int(tmp is not None), TIES=enum(F, "TIES_IDX" if R.ties == "idx" else "TIES_POSITION"),
                   ROWS_DST=int(R.rows_from == "dst"), IDX_BCAST=int(R.idx_broadcast),
                   IDX_SAME=int(R.idx_same_shape))
    if not all_clean(launch_on(core, "tile_sort32", p.words, passes=1, writes=())):
        return False
    launch_on(core, "tile_sort32", p.words, passes=2, writes=("ub",))
    return True
