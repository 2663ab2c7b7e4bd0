"""TCVT per target (the table ``target.tcvt`` reads; the vendor's include/pto/cpu/TCvt.hpp,
include/pto/npu/a2a3/TCvt.hpp, include/pto/npu/a5/TCvt.hpp, summarised in docs/tcvt.md).

``pairs`` maps (src, dst) to the round modes the pair's intrinsics take (the letters R A F C Z O
of RINT ROUND FLOOR CEIL TRUNC ODD; "" the pair ignores the mode) and the mode CAST_NONE (and
a mode the pair lacks) falls back to (None: the intrinsic without a suffix, modelled as R)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

F32, F16, BF16, I64, I32, I16, I8, U8, U16, U32 = ("float32", "half", "bfloat16", "int64", "int32", "int16", "int8",
                                                    "uint8", "uint16", "uint32")
E4M3, E5M2, H8 = "float8_e4m3", "float8_e5m2", "hifloat8"
S4, E2M1, E1M2 = "int4", "float4_e2m1x2", "float4_e1m2x2"
RAFCZ = "RAFCZ"


@dataclass(frozen=True)
class TcvtRules:
    region: str                                 # "src": src's valid region | "dst": dst's
    pairs: Mapping[tuple[str, str], tuple[str, str | None]] | None   # None: every pair C++ converts
    unsupported: str                            # a pair the code lacks: "noop" (compiles, writes nothing) | "error"
    sat_default_on: bool                        # without a SaturationMode argument: ON (except ``narrowing``)
    narrowing: tuple[tuple[str, str], ...]      # the pairs that default to OFF
    explicit_off_only_narrowing: bool           # the no-tmp form forces ON for every other pair (A2/A3)
    odd_only: tuple[tuple[str, str], ...] | None  # ODD is honoured only for these pairs (A5: f32->f16)
    none_float_to_int: str                      # what CAST_NONE / a missing mode runs for float->int
    none_other: str                             # ... for everything else
    cpu_casts: bool                             # the simulator: the mode applies to float->int only;
                                                # out of range without saturation as x86's cvtt* give it
    f32_to_f32_rounds: bool                     # f32->f32 rounds to an integral value (vconv / vtrc)
    tmp_form: str                               # TCVT(dst, src, tmp, ...): "none" (does not build) |
                                                # "ignored" (tmp unused) | "torch" (saturation honoured for
                                                # every pair; OFF: the NonSatTorch paths of ``torch_pairs``)
    torch_pairs: tuple[tuple[str, str], ...] = ()   # OFF: the low bits of the saturated int32
    minifloats: str | None = None               # the 8-bit floats (semantics_minifloats.py): "mx" (the simulator's
                                                # MXType / hifloat8_t casts) | "vcvt" (A5) | None (no such types)
    four_bit: str | None = None                 # the 4-bit types (semantics_fourbit.py): "sim" (GetElement /
                                                # convert_value) | "s4" (A2/A3's packed int4) | "fp4" (A5's vcvt)


_A2A3 = {
    (F32, F16): ("RAFCZO", "R"), (F32, F32): (RAFCZ, "R"), (F32, I64): (RAFCZ, "Z"), (F32, I32): (RAFCZ, "Z"),
    (F32, I16): (RAFCZ, "Z"), (F32, BF16): (RAFCZ, "R"), (F16, I32): (RAFCZ, "Z"), (F16, I16): (RAFCZ, "Z"),
    (F16, I8): (RAFCZ, "Z"), (F16, U8): (RAFCZ, "Z"), (BF16, I32): (RAFCZ, "Z"), (I16, F16): (RAFCZ, None),
    (I32, F32): (RAFCZ, None), (I64, F32): (RAFCZ, "R"),
    **{p: ("", None) for p in ((F16, F32), (BF16, F32), (U8, F16), (I8, F16), (I16, F32), (I64, I32), (I32, I64),
                               (I32, I16), (I32, F16))},
    # int4b_t (a2a3/TCvt.hpp:595-636): vconv_f162s4{r,a,f,c,z}, the suffixless one for NONE and ODD
    (F16, S4): (RAFCZ, "R"), (S4, F16): ("", None),
}
_A5 = {
    (F32, F32): (RAFCZ, None), (F32, F16): ("RAFCZO", None), (F32, BF16): (RAFCZ, None), (F32, I16): (RAFCZ, None),
    (F32, I32): (RAFCZ, None), (F32, I64): (RAFCZ, None), (F16, F32): ("", None), (F16, I32): (RAFCZ, None),
    (F16, I16): (RAFCZ, None), (F16, I8): (RAFCZ, None), (F16, U8): (RAFCZ, None), (BF16, F32): ("", None),
    (BF16, I32): (RAFCZ, None), (BF16, F16): (RAFCZ, None), (U8, F16): ("", None), (U8, U16): ("", None),
    (I8, F16): ("", None), (I8, I16): ("", None), (I8, I32): ("", None), (I16, U8): ("", None),
    (I16, F16): (RAFCZ, None), (I16, F32): ("", None), (I16, U32): ("", None), (I16, I32): ("", None),
    (I32, F32): (RAFCZ, None), (I32, I16): ("", None), (I32, U16): ("", None), (I32, I64): ("", None),
    (I32, U8): ("", None), (U32, U8): ("", None), (U32, U16): ("", None), (U32, I16): ("", None),
    (I64, F32): (RAFCZ, None), (I64, I32): ("", None),
    # the 8-bit floats (a5/TCvt.hpp:1311-1396, 1509-1540, 2229-2278): the kernels ignore the mode
    (F32, E4M3): ("", "R"), (F32, E5M2): ("", "R"), (F32, H8): ("", "A"), (F16, H8): ("", "A"),
    (E4M3, F32): ("", None), (E5M2, F32): ("", None), (H8, F32): ("", None),
    # the float4 types (a5/TCvt.hpp:1789-1859, 2938-2976): bf16 -> fp4 takes every mode (ODD and NONE: R),
    # fp4 -> bf16 is exact
    (BF16, E2M1): (RAFCZ, "R"), (BF16, E1M2): (RAFCZ, "R"), (E2M1, BF16): ("", None), (E1M2, BF16): ("", None),
}
_NARROWING = ((F16, U8), (F16, I8), (F32, I16), (F16, I16), (I64, I32), (I32, I16))

TABLES = {
    # cpu/TCvt.hpp:56-234
    "cpu": TcvtRules(region="src", pairs=None, unsupported="error", sat_default_on=False, narrowing=(),
                     explicit_off_only_narrowing=False, odd_only=None, none_float_to_int="Z", none_other="R",
                     cpu_casts=True, f32_to_f32_rounds=False, tmp_form="none", minifloats="mx", four_bit="sim"),
    # a2a3/TCvt.hpp:752-1323 (the 8-bit float types are void there: common/arch_capability.hpp:44-90)
    "a2a3": TcvtRules(region="dst", pairs=_A2A3, unsupported="noop", sat_default_on=True, narrowing=_NARROWING,
                      explicit_off_only_narrowing=True, odd_only=None, none_float_to_int="Z", none_other="R",
                      cpu_casts=False, f32_to_f32_rounds=True, tmp_form="torch",
                      torch_pairs=((F32, I16), (F16, I16), (F16, I8)), four_bit="s4"),
    # a5/TCvt.hpp:1157-3086
    "a5": TcvtRules(region="dst", pairs=_A5, unsupported="error", sat_default_on=True, narrowing=_NARROWING,
                    explicit_off_only_narrowing=False, odd_only=((F32, F16),), none_float_to_int="Z", none_other="R",
                    cpu_casts=False, f32_to_f32_rounds=True, tmp_form="ignored", minifloats="vcvt",
                    four_bit="fp4"),
}
