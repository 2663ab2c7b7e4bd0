"""TCMP / TCMPS / TSEL / TSELS on the kernel backends (cuda_src/compare.cu, ``tile_compare``):
one thread per instance, a check pass then a write pass. The kernel works out the target's
comparison, packing and mask walk from the rule words it is sent (``target.compare``), not from
the NumPy semantics it is checked against. Plain tiles only -- this core's, in UB, row-major,
without boxes -- and one scalar a launch; the TCMPS tile form runs NumPy. Each ``run_*`` returns
False where NumPy must run (it wrote nothing): another backend, such an operand, a fault (NumPy
raises it) or a read of the bytes the call writes."""
from __future__ import annotations

import numpy as np

from ...backend import kernel_ok
from ...backend.kernels import ParamBlock, all_clean, enum, launch_on, use_kernels
from ...enums import CmpMode, SLayout

F = "compare.cu"
KINDS = {"int8": "CK_I8", "uint8": "CK_U8", "int16": "CK_I16", "uint16": "CK_U16", "int32": "CK_I32",
         "uint32": "CK_U32", "int64": "CK_I64", "uint64": "CK_U64", "half": "CK_F16", "bfloat16": "CK_BF16",
         "float32": "CK_F32"}
MODES = {CmpMode.EQ: "CMP_EQ", CmpMode.NE: "CMP_NE", CmpMode.LT: "CMP_LT", CmpMode.GT: "CMP_GT",
         CmpMode.GE: "CMP_GE", CmpMode.LE: "CMP_LE"}
WALKS = {"flat": "WALK_FLAT", "words": "WALK_WORDS", "rows": "WALK_ROWS", "rows_elems": "WALK_ROWS_ELEMS"}


def _plain(core, tiles) -> bool:
    return all(getattr(t, "core", None) is core and t.addr is not None and t.space == "ub"
               and t.SLayout == SLayout.NoneBox and t.isRowMajor for t in tiles)


def _ok(core, T: str, tiles, scalar_bits=None) -> bool:
    if T not in KINDS or (scalar_bits is not None and np.size(scalar_bits) != 1):
        return False
    return use_kernels(core) and kernel_ok(core, *tiles) and _plain(core, tiles)


def _launch(core, words: dict) -> bool:
    p = ParamBlock(F, "CP_", **words)
    if not all_clean(launch_on(core, "tile_compare", p.words, passes=1, writes=())):
        return False
    launch_on(core, "tile_compare", p.words, passes=2, writes=("ub",))
    return True


def _common(core, op: str, T: str, src0, src1, dst, VR: int, VC: int, mode=CmpMode.EQ, scalar_bits=None) -> dict:
    R = core.target.compare
    return dict(OP=enum(F, op), KIND=enum(F, KINDS[T]), VR=VR, VC=VC, MODE=enum(F, MODES.get(mode, "CMP_EQ")),
                EQ_I32=int(R.int32_eq_only), NE_NOT=int(R.ne_by_not), TOLERANT=int(R.cmps_eq_tolerance),
                SCALAR_ON=int(scalar_bits is not None),
                SCALAR=0 if scalar_bits is None else int(np.asarray(scalar_bits).astype("u8").reshape(-1)[0]),
                S0=src0.addr, S0C=src0.Cols, S0R=src0.Rows, S1=-1 if src1 is None else src1.addr,
                S1C=0 if src1 is None else src1.Cols, DST=dst.addr, DSTC=dst.Cols, DROWS=dst.Rows,
                DSIZE=dst.Element.itemsize, DVR=dst.valid_row, DVC=dst.valid_col,
                PACK=enum(F, "PK_REPEATS" if R.packing == "repeats" else "PK_CHUNKS"), B64COLS=R.b64_cols or 0)


def run_npu_rows(core, dst, src0, src1, mode: CmpMode, scalar_bits=None, half_bits: bool = False) -> bool:
    """The NPUs' TCMP (``src1`` a tile) or TCMPS scalar form (``scalar_bits``) as the kernel."""
    T = src0.DType
    tiles = [dst, src0] + ([src1] if src1 is not None else [])
    if not _ok(core, T, tiles, scalar_bits):
        return False
    w = _common(core, "CP_NPU_ROWS", T, src0, src1, dst, src0.valid_row, src0.valid_col, mode, scalar_bits)
    w["HALF_BITS"] = int(half_bits)
    return _launch(core, w)


def run_cpu_words(core, dst, src0, src1, mode: CmpMode) -> bool:
    """The simulator's TCMP (words of 8 or 32 bits, dst zeroed first) as the kernel."""
    T = src0.DType
    if not _ok(core, T, [dst, src0, src1]):
        return False
    return _launch(core, _common(core, "CP_CPU_WORDS", T, src0, src1, dst, src0.valid_row, src0.valid_col, mode))


def run_cpu_reflow(core, dst, src0, mode: CmpMode, scalar_bits) -> bool:
    """The simulator's TCMPS scalar form (its flat byte stream) as the kernel."""
    T = src0.DType
    if not _ok(core, T, [dst, src0], scalar_bits) or src0.Cols % 8:
        return False
    return _launch(core, _common(core, "CP_CPU_REFLOW", T, src0, None, dst, src0.valid_row, src0.valid_col, mode,
                                 scalar_bits))


def run_select(core, dst, mask, src0, src1, scalar_bits, walk: str) -> bool:
    """TSEL (``src1`` a tile) or TSELS (``scalar_bits``) with the target's mask walk."""
    T = dst.DType
    tiles = [dst, mask, src0] + ([src1] if src1 is not None else [])
    if not _ok(core, T, tiles, scalar_bits) or walk not in WALKS:
        return False
    w = _common(core, "CP_SELECT", T, src0, src1, dst, dst.valid_row, dst.valid_col, scalar_bits=scalar_bits)
    w.update(WALK=enum(F, WALKS[walk]), MASK=mask.addr, MASKC=mask.Cols, MSIZE=mask.Element.itemsize,
             MVC=mask.valid_col)
    return _launch(core, w)
