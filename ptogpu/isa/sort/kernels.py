"""TSORT32 and TMRGSORT on the kernel backends (cuda_src/sort.cu, ``tile_sort32``,
``tile_mrgsort``): one thread per instance, a check pass then the sort or merge. The kernels
work out the rows, blocks, lanes, merge destination and tie rule each target has from its rule
words, not from the NumPy semantics they are checked against. Plain tiles only (this core's, in
UB, row-major, no boxes) and neither modelled TSORT32 vendor bug (rows of 255 * k blocks on the
NPUs, the simulator's 2-byte block offsets): those run NumPy, as do TMRGSORT on the 8-bit float
types and a merge whose reads overlap its writes where the target reads every list first.
Returns False where NumPy must run (it wrote nothing)."""
from __future__ import annotations

import numpy as np

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


MRG_KINDS = {"float32": "MK_F32", "half": "MK_F16", "bfloat16": "MK_BF16", "int8": "MK_I8",
             "uint8": "MK_U8", "int16": "MK_I16", "uint16": "MK_U16", "int32": "MK_I32", "uint32": "MK_U32",
             "int64": "MK_I64", "uint64": "MK_U64"}


def _mrg_launch(core, tiles, **fields):
    """The merge's two passes; the records, or None where NumPy must run."""
    R = core.target.sort
    T = tiles[0].DType
    if T not in MRG_KINDS or not all(_plain(core, x) for x in tiles):
        return None
    if not use_kernels(core) or not kernel_ok(core, *tiles):
        return None
    p = ParamBlock(F, "MG_", KIND=enum(F, MRG_KINDS[T]),
                   MERGE=enum(F, "MERGE_DST" if R.merge_into == "dst" else "MERGE_TMP"),
                   COUNTS_ALWAYS=int(R.counts_always), SINGLE_FROM_DST=int(R.single_from == "dst"),
                   SINGLE_CHECKS=int(R.single_checks), **fields)
    if not all_clean(launch_on(core, "tile_mrgsort", p.words, passes=1, writes=())):
        return None
    return launch_on(core, "tile_mrgsort", p.words, passes=2, writes=("ub",))


def run_tmrgsort(core, dst, counts, tmp, srcs: list, exhausted: bool) -> bool:
    """``TMRGSORT(dst, counts, tmp, src0, src1[, src2[, src3]])`` as the kernel, counts included."""
    lists = {}
    for j, s in enumerate(srcs):
        lists[f"S{j}"], lists[f"V{j}"] = s.addr, s.valid_col
    recs = _mrg_launch(core, [dst, tmp, *srcs], FORM=enum(F, "FORM_LISTS"), NL=len(srcs), DST=dst.addr,
                       DVC=dst.valid_col, TMP=tmp.addr, EXH=int(exhausted), **lists)
    if recs is None:
        return False
    if counts is not None:
        ks = core.step_instances()
        got = recs[:, 2] == 1
        if got.any():
            h = recs[got, 1].astype(np.uint64)
            heads = np.stack([(h >> np.uint64(16 * j)) & np.uint64(0xFFFF) for j in range(4)], 1).astype(np.int64)
            counts._set(ks[got], heads)
    return True


def run_tmrgsort_single(core, dst, src, block_len: int) -> bool:
    """``TMRGSORT(dst, src, blockLen)`` as the kernel."""
    return _mrg_launch(core, [dst, src], FORM=enum(F, "FORM_SINGLE"), DST=dst.addr, DVC=dst.valid_col,
                       SRC=src.addr, SVC=src.valid_col, BLOCK=block_len) is not None
