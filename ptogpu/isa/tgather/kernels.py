"""TGATHER's launch plans on the kernel backends (cuda_src/tgather.cu): the index form as
``tgather_index``, the mask forms as ``tile_mask`` (TSCATTER's too), the compare form as
``tgather_cmp``; one thread per instance, a check pass then a write pass. Returns False
(NumPy runs) on the numpy backend, for tiles with boxes or column-major layouts, and whenever
the check pass reports a fault or a read inside the bytes the call writes: the kernel wrote
nothing, so NumPy raises the same fault, or reads every source first, as on numpy."""
from __future__ import annotations

from ...backend.kernels import ParamBlock, all_clean, enum, launch_on, use_kernels
from ...enums import SLayout
from ...semantics.tile_moves import row_cols

MATH = {"logical": "GM_LOGICAL", "bytes32": "GM_BYTES32", "unsigned": "GM_UNSIGNED"}


def plain(core, *tiles) -> bool:
    """Tiles the kernel addresses as ``r*Cols + c``: bound to this core's UB, row-major, no boxes."""
    return all(getattr(t, "core", None) is core and t.addr is not None and t.space == "ub" and t.isRowMajor
               and t.SLayout == SLayout.NoneBox for t in tiles)


def two_passes(core, kernel: str, words) -> bool:
    """A check pass over every instance, then (where each is clean: no fault, no read of a
    written byte) the write pass; False when NumPy must run instead (it wrote nothing)."""
    if not all_clean(launch_on(core, kernel, words, passes=1, writes=())):
        return False
    launch_on(core, kernel, words, passes=2, writes=("ub",))
    return True


def params(core, dst, src0, idx, tmp) -> ParamBlock:
    R = core.target.tgather
    T = dst.Element.itemsize
    VC = dst.valid_col
    return ParamBlock("tgather.cu", "GI_", VR=dst.valid_row,
                      COLS=row_cols(R.wide_cols, T, VC), T=T,
                      ISZ=idx.Element.itemsize, ISIGNED=int(idx.Element.kind == "i"),
                      MATH=enum("tgather.cu", MATH[R.offset_math]), DST=dst.addr, DST_COLS=dst.Cols,
                      IDX=idx.addr, IDX_COLS=idx.Cols, SRC=src0.addr, SRC_NUMEL=src0.Rows * src0.Cols,
                      SCRATCH=tmp.addr if R.tmp_scratch and T == 2 else -1)


def run_index(core, dst, src0, idx, tmp) -> bool:
    if not use_kernels(core) or not plain(core, dst, src0, idx, tmp) or dst.valid_row * dst.valid_col == 0:
        return False
    return two_passes(core, "tgather_index", params(core, dst, src0, idx, tmp).words)


def run_map(core, dst, src, op: str, *, F: int = 1, pos: int = 0, T: int | None = None, svr: int | None = None,
            svc: int | None = None, clear: bool = False, off16: bool = False, wide: int | None = None) -> bool:
    """A mask-pattern form as ``tile_mask`` (``op``: its ``MO_*`` map), a check pass then a
    write pass; False where NumPy runs instead (module docstring)."""
    if not use_kernels(core) or not plain(core, dst, src) or dst.Element.itemsize != src.Element.itemsize:
        return False
    T = dst.Element.itemsize if T is None else T
    p = ParamBlock("tgather.cu", "MK_", OP=enum("tgather.cu", op), F=F, POS=pos, T=T,
                   SVR=src.valid_row if svr is None else svr, SVC=src.valid_col if svc is None else svc,
                   SRC=src.addr, SCOLS=src.Cols * src.Element.itemsize // T, DVR=dst.valid_row,
                   DVC=dst.valid_col, DST=dst.addr, DCOLS=dst.Cols * dst.Element.itemsize // T,
                   DBYTES=dst.Rows * dst.Cols * dst.Element.itemsize, CLEAR=int(clear), OFF16=int(off16),
                   WIDE=(1 << 40) if wide is None else wide).words
    return two_passes(core, "tile_mask", p)


def run_mask(core, dst, src, pattern, axis: int) -> bool:
    """TGATHER's mask form on the kernel backends."""
    R = core.target.tgather
    F, pos = pattern.factor, pattern.position
    if axis == 0:
        if dst.Element.itemsize == 8 and R.b64_row_stride:
            return run_map(core, dst, src, "MO_GROW_B64", F=F, pos=pos, wide=R.wide_cols or 64)
        return run_map(core, dst, src, "MO_GROW", F=F, pos=pos)
    return run_map(core, dst, src, "MO_GCOL_SEL" if R.col_rows == "selected" else "MO_GCOL_ALL", F=F, pos=pos)


KINDS = {"float32": "CK_F32", "half": "CK_F16", "int32": "CK_I32", "uint32": "CK_U32", "int16": "CK_I16",
         "uint16": "CK_U16", "int8": "CK_I8", "uint8": "CK_U8"}


def run_compare(core, dst, src0, k, cdst, mode, offset: int) -> bool:
    """The compare form as ``tgather_cmp``; False where NumPy runs instead."""
    if not use_kernels(core) or not plain(core, dst, src0) or src0.DType not in KINDS:
        return False
    if not all(getattr(t, "core", None) is core and t.addr is not None and t.space == "ub" for t in (k, cdst)):
        return False
    R = core.target.tgather
    a2a3 = R.compare == "a2a3"
    ksize = {"float32": 4, "half": 2}.get(src0.DType, k.Element.itemsize) if a2a3 else k.Element.itemsize
    ksigned = (src0.DType in ("float32", "half") or k.Element.kind == "i") if a2a3 else False
    p = ParamBlock("tgather.cu", "CM_", VR=src0.valid_row, VC=src0.valid_col, T=src0.Element.itemsize,
                   KIND=enum("tgather.cu", KINDS[src0.DType]), GT=int(mode.name == "GT"), A5=int(not a2a3),
                   SRC=src0.addr, SCOLS=src0.Cols, K=k.addr, KSIZE=ksize, KSIGNED=int(ksigned), DST=dst.addr,
                   DROW=dst.RowStride if a2a3 else dst.Cols, CDST=cdst.addr, CSIZE=cdst.Element.itemsize,
                   OFFSET=offset).words
    return two_passes(core, "tgather_cmp", p)
