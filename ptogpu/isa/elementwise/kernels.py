"""The element-wise calls on the kernel backends (cuda_src/elementwise.cu, ``tile_elementwise``):
one thread per instance, a check pass then a write pass. Integers of 1 to 8 bytes and float32
(half and bfloat16 run the NumPy semantics); the calls whose target code does more than the
element's operation -- A2/A3's pad byte, TXOR's tmp, its float TSUBS and in-place quirks,
integer division -- run NumPy too, as do tiles of another core, outside UB, misaligned, boxed,
or (on the simulator) column-major. Returns False where NumPy must run (it wrote nothing)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...backend import kernel_ok
from ...backend.kernels import ParamBlock, all_clean, enum, launch_on, use_kernels
from ...enums import SLayout

KINDS = {"int8": "K_I8", "uint8": "K_U8", "int16": "K_I16", "uint16": "K_U16", "int32": "K_I32",
         "uint32": "K_U32", "int64": "K_I64", "uint64": "K_U64", "float32": "K_F32"}
OPS = {"add": "OP_ADD", "sub": "OP_SUB", "mul": "OP_MUL", "div": "OP_DIV", "max": "OP_MAX", "min": "OP_MIN",
       "and": "OP_AND", "or": "OP_OR", "xor": "OP_XOR", "shl": "OP_SHL", "shr": "OP_SHR", "not": "OP_NOT",
       "neg": "OP_NEG", "abs": "OP_ABS"}
MINMAX = {"std": "MM_STD", "vmax": "MM_VMAX", "pseudo": "MM_PSEUDO"}
F = "elementwise.cu"


def model_words(R, op: str, T: str, scalar_form: bool) -> dict[str, int]:
    """The EW_* words of the operation and the target's models (``R``: its element-wise table):
    what ew_apply reads, for the kernel and for the campaign engine (campaign.py)."""
    return dict(OP=enum(F, OPS[op]), KIND=enum(F, KINDS[T]), FTZ=int(R.ftz),
                MINMAX=enum(F, MINMAX[R.minmax_scalar if scalar_form else R.minmax]),
                SHIFT=enum(F, "SH_C" if (R.shift_scalar if scalar_form else R.shift) == "c" else "SH_VECTOR"),
                NEG=enum(F, "SG_C" if R.neg == "c" else "SG_NPU"), ABS=enum(F, "SG_C" if R.abs == "c" else "SG_NPU"))


def plain_call(R, call: str, T: str, VC: int) -> bool:
    """Does the call compute the element's operation only (what ew_apply does) on a target with
    table ``R``, for separate dst and source tiles? Not A2/A3's extra writes (the pad byte of
    1-byte bitwise ops at an odd width, TXOR's and TXORS's tmp) nor its float TSUBS (api.py
    takes those paths; the campaign engine checks its classes against the batch path's)."""
    if call in R.pad_byte and dtypes.as_dtype(T).itemsize == 1 and VC % 2:
        return False
    if call in ("TXOR", "TXORS") and R.xor_tmp:
        return False
    return not (call == "TSUBS" and R.subs_float)


def _plain(core, tiles) -> bool:
    layout = core.target.elementwise.addressing == "layout"
    return all(getattr(t, "core", None) is core and t.addr is not None and t.space == "ub"
               and t.SLayout == SLayout.NoneBox and (t.isRowMajor or not layout) for t in tiles)


def run(core, op: str, scalar_form: bool, dst, srcs: list, VR: int, VC: int, scalar_bits=None) -> bool:
    """``dst = op(srcs[0], srcs[1] | scalar)`` over VR x VC as ``tile_elementwise``; False: NumPy."""
    R = core.target.elementwise
    T = dst.DType
    if T not in KINDS or op not in OPS or (op == "div" and T != "float32"):
        return False
    if scalar_bits is not None and np.size(scalar_bits) != 1:      # one scalar a launch: per instance, NumPy
        return False
    if not use_kernels(core) or not kernel_ok(core, dst, *srcs) or not _plain(core, [dst, *srcs]):
        return False
    if VR * VC == 0:
        return True

    def rs(t) -> int:
        return t.Cols if t.isRowMajor else 1
    s1 = srcs[1] if len(srcs) > 1 else None
    scalar = 0 if scalar_bits is None else int(scalar_bits.astype("u8"))
    p = ParamBlock(F, "EW_", VR=VR, VC=VC, DST=dst.addr, DRS=rs(dst), S0=srcs[0].addr, S0RS=rs(srcs[0]),
                   S1=-1 if s1 is None else s1.addr, S1RS=0 if s1 is None else rs(s1), SCALAR=scalar,
                   **model_words(R, op, T, scalar_form))
    if not all_clean(launch_on(core, "tile_elementwise", p.words, passes=1, writes=())):
        return False
    launch_on(core, "tile_elementwise", p.words, passes=2, writes=("ub",))
    return True
