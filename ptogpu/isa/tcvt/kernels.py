"""TCVT on the kernel backends (cuda_src/cvt.cu, ``tile_convert``): one thread per instance, a
check pass then the conversion. The kernel writes every rounding out itself (to an integral
value by the mode letter, to half and bfloat16 from the double's bits, the directed steps, each
type's NaN) and the target's model (the NPUs' rules or the simulator's C++ casts); it is sent
only the letter and the saturation the target's pair table gives, the 8-bit floats' model
(A5's vcvt, the simulator's MXType / hifloat8_t) and whether the NonSatTorch tmp form runs.
Plain tiles (this core's, in UB, row-major, no boxes) of the integer types up to int64, the
three float types and the three 8-bit ones; uint64 runs NumPy. Returns False where NumPy must
run (it wrote nothing)."""
from __future__ import annotations

from ...backend import kernel_ok
from ...backend.kernels import ParamBlock, all_clean, enum, launch_on, use_kernels
from ...enums import SLayout

F = "cvt.cu"
KINDS = {"int8": "VK_I8", "uint8": "VK_U8", "int16": "VK_I16", "uint16": "VK_U16", "int32": "VK_I32",
         "uint32": "VK_U32", "int64": "VK_I64", "half": "VK_F16", "bfloat16": "VK_BF16", "float32": "VK_F32",
         "float8_e4m3": "VK_E4M3", "float8_e5m2": "VK_E5M2", "hifloat8": "VK_HIF8"}
LETTERS = {"R": "L_R", "A": "L_A", "F": "L_F", "C": "L_C", "Z": "L_Z", "O": "L_O", "N": "L_N"}
MODELS = {None: "MF_NONE", "vcvt": "MF_VCVT", "mx": "MF_MX"}


def _plain(core, t) -> bool:
    return (getattr(t, "core", None) is core and t.addr is not None and t.space == "ub"
            and t.SLayout == SLayout.NoneBox and t.isRowMajor)


def run(core, dst, src, letter: str, sat: bool, torch: bool = False) -> bool:
    """``dst = convert(src)`` over the target's region as the kernel; False: NumPy."""
    R = core.target.tcvt
    if src.DType not in KINDS or dst.DType not in KINDS or letter not in LETTERS:
        return False
    if not (_plain(core, dst) and _plain(core, src)) or not use_kernels(core) or not kernel_ok(core, dst, src):
        return False
    region = src if R.region == "src" else dst
    p = ParamBlock(F, "CV_", S=enum(F, KINDS[src.DType]), D=enum(F, KINDS[dst.DType]), LETTER=enum(F, LETTERS[letter]),
                   SAT=int(sat), CPU=int(R.cpu_casts), VR=region.valid_row, VC=region.valid_col, SRC=src.addr,
                   SC=src.Cols, DST=dst.addr, DC=dst.Cols, MF=enum(F, MODELS[R.minifloats]), TORCH=int(torch))
    if not all_clean(launch_on(core, "tile_convert", p.words, passes=1, writes=())):
        return False
    launch_on(core, "tile_convert", p.words, passes=2, writes=("ub",))
    return True
