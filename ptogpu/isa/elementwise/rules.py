"""The element-wise family's rules per target (the table ``target.elementwise`` reads; the
vendor's include/pto/cpu/ElementOp.h, ElementTileOp.h, TBinSOps.hpp, TAbs.hpp, TExpands.hpp,
TCI.hpp and include/pto/npu/{a2a3,a5}/T*.hpp, summarised per rule in docs/elementwise.md).

Where the vendor code hands a value to a vector intrinsic whose result the repository does not
define (NaN payloads, integer overflow, shift counts past the width), the table names the
model ptogpu runs, from the ISA pages (docs/elementwise.md says which, per rule)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

I8, U8, I16, U16, I32, U32, I64, U64 = "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"
F16, BF16, F32 = "half", "bfloat16", "float32"
INTS = (I8, U8, I16, U16, I32, U32, I64, U64)
ARITH = INTS + (F16, BF16, F32)
ANY = None          # every element type the C++ operator compiles for (the simulator)


@dataclass(frozen=True)
class ElementwiseRules:
    dtypes: Mapping[str, tuple[str, ...] | None]
    """Per call, the element types its static_assert accepts (None: what the C++ operator takes)."""
    bitwise_floats: tuple[str, ...]        # calls that take float tiles as raw bits (A5 TAND/TOR...)
    row_major: tuple[str, ...]             # calls whose static_assert wants row-major tiles
    any_loc: tuple[str, ...]               # calls with no TileType::Vec check
    one_tile_type: tuple[str, ...]         # calls whose operands are one C++ tile type (one template parameter)
    c_assert: tuple[str, ...] | None       # calls that assert equal valid shapes (the simulator's C assert;
                                           # None: every call, the NPUs' PTO_ASSERT)
    addressing: str                        # "layout" (GetTileElementOffset) | "row_stride" (base + r*RowStride + c)
    minmax: str                            # "std": std::max/min, src0 on NaN and ties | "vmax": NaN wins, else (a>b)?a:b
    minmax_scalar: str                     # "std" | "pseudo": the ISA page's (src > s) ? src : s
    shift: str                             # "c": promoted to int, count & 31 (& 63) | "vector": count >= width gives 0 / sign
    shift_scalar: str                      # the same, for TSHLS/TSHRS
    int_div: str                           # "c": truncation, /0 and MIN/-1 trap | "a5": truncation on every width
                                           # (8-byte: the long division's x/0 = 0, MIN/-1 = MIN; narrower lanes'
                                           # vdiv modelled the same, as the vendor's test expects)
    int_divs: str                          # TDIVS with an integer scalar: "c" | "scalar_unit" (/0 refused)
    neg: str                               # "c": -x | "muls": x * -1 (NaN keeps its sign, denormals flush)
    abs: str                               # "c": x < 0 ? -x : x | "vabs": the sign bit cleared
    ftz: bool                              # float arithmetic flushes denormal inputs and results to zero
    b64_cols: int | None                   # 8-byte integer elements: columns a row computes (A5: 64) ...
    b64_capped: tuple[str, ...]            # ... in these calls (A5's Int64Scalar / Int64Div / Int64Fill: one
                                           # register pair a row; Int64Binary loops over the columns)
    pad_byte: tuple[str, ...]              # 1-byte types, odd VC: the bitwise op also writes byte [r][VC]
    xor_tmp: bool                          # TXOR writes tmp = src0 | src1 over tmp's valid region
    subs_float: bool                       # TSUBS adds (T)(-(float)s)
    divs_inplace: bool                     # TDIVS float, dst == src: multiply by (T)(1.0f/(float)s); s/tile in place: s/s
    bitwise_s_inplace: bool                # TANDS/TORS give s, TXORS src & ~s when dst == src
    expands_flat: bool                     # TEXPANDS, a static ValidCol < Cols: fills VR*VC elements flat
    expands_b8_extra: bool                 # TEXPANDS int8, odd VC: one byte more per row (flat: at the end)
    tci_tmp: str                           # TCI's tmp form: "none" (no overload) | "neg" (-(S+i) descending) | "a5"
    tci_dtypes: tuple[str, ...] | None
    tci_desc_is_one: bool                  # TCI's descending flag counts down only when it is 1 (cpu), else when != 0
    rdivs_assert: bool                     # TDIVS(dst, scalar, src) asserts src != 0 per element (cpu)
    expands_mat_whole: bool                # TEXPANDS into a Mat tile fills the whole tile (pto_create_cbuf_matrix)


_CPU_INT_ONLY = ("TAND", "TOR", "TXOR", "TSHL", "TSHR", "TNOT", "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS")

TABLES = {
    # cpu/ElementOp.h, ElementTileOp.h:18-123, TAdd.hpp, TAbs.hpp:25, TBinSOps.hpp:26-250, TExpands.hpp, TCI.hpp
    "cpu": ElementwiseRules(
        dtypes={**{c: INTS for c in _CPU_INT_ONLY}, "TABS": (I8, I16, I32, I64, F16, BF16, F32), "TEXPANDS": ANY},
        bitwise_floats=(),
        row_major=("TADDS", "TMULS", "TDIVS", "TMAXS"),
        any_loc=("TXORS", "TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TAND", "TOR", "TXOR", "TSHL", "TSHR",
                 "TNOT", "TNEG", "TABS", "TEXPANDS", "TCI"),
        one_tile_type=("TADD", "TABS"),
        c_assert=("TMIN", "TAND", "TOR", "TXOR", "TSHL", "TSHR", "TNOT", "TNEG"),
        addressing="layout", minmax="std", minmax_scalar="std", shift="c", shift_scalar="c", int_div="c",
        int_divs="c", neg="c", abs="c", ftz=False, b64_cols=None, b64_capped=(), pad_byte=(), xor_tmp=False, subs_float=False,
        divs_inplace=False, bitwise_s_inplace=False, expands_flat=False, expands_b8_extra=False, tci_tmp="none",
        tci_dtypes=None, tci_desc_is_one=True, rdivs_assert=True, expands_mat_whole=False),
    # a2a3/TBinOp.hpp, TAdd.hpp ... TXor.hpp, TBinSOp.hpp, TSubS.hpp, TDivS.hpp, TBitwiseSOp.hpp, TExpandS.hpp, TCI.hpp
    "a2a3": ElementwiseRules(
        dtypes={**{c: (I32, I16, F16, F32) for c in ("TADD", "TSUB", "TMUL", "TMAX", "TMIN", "TNEG", "TADDS", "TSUBS",
                                                      "TMULS", "TDIVS", "TMAXS", "TMINS")},
                "TDIV": (F16, F32), "TABS": (F16, F32), "TSHL": (U8, I8, U16, I16, U32, I32),
                "TSHR": (U8, I8, U16, I16, U32, I32), "TSHLS": (I32, I16, U32, U16), "TSHRS": (I32, I16, U32, U16),
                **{c: (U8, I8, U16, I16, U32, I32, F16, BF16, F32)
                   for c in ("TAND", "TOR", "TXOR", "TNOT", "TANDS", "TORS", "TXORS", "TEXPANDS")}},
        bitwise_floats=("TAND", "TOR", "TXOR", "TNOT", "TANDS", "TORS", "TXORS"),
        row_major=("TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TAND", "TOR", "TXOR", "TABS"),
        any_loc=("TEXPANDS",),
        one_tile_type=(), c_assert=None,
        addressing="row_stride", minmax="vmax", minmax_scalar="pseudo", shift="c", shift_scalar="vector",
        int_div="refuse", int_divs="scalar_unit", neg="muls", abs="vabs", ftz=True, b64_cols=None, b64_capped=(),
        pad_byte=("TAND", "TOR", "TXOR", "TNOT"), xor_tmp=True, subs_float=True, divs_inplace=True,
        bitwise_s_inplace=True, expands_flat=True, expands_b8_extra=True, tci_tmp="neg", tci_dtypes=(I16, U16, I32, U32,
                                                                                                      F16, F32),
        tci_desc_is_one=False, rdivs_assert=False, expands_mat_whole=True),
    # a5/TBinOp.hpp, TAdd.hpp ... TXor.hpp, Int64Binary.hpp, TBinSOp.hpp, TDivS.hpp, TExpandS.hpp, Tci.hpp
    "a5": ElementwiseRules(
        dtypes={**{c: ARITH for c in ("TADD", "TSUB", "TMAX", "TMIN", "TADDS", "TSUBS", "TMAXS", "TMINS")},
                "TMUL": (U16, I16, U32, I32, U64, I64, F16, BF16, F32), "TMULS": (U16, I16, U32, I32, U64, I64, F16,
                                                                                  BF16, F32),
                "TDIV": (I16, U16, I32, U32, I64, U64, F16, F32), "TDIVS": (U16, I16, U32, I32, U64, I64, F16, F32),
                "TSHL": INTS, "TSHR": INTS, "TSHLS": INTS, "TSHRS": INTS,
                "TAND": (U8, I8, U16, I16, U32, I32, F16, BF16, F32), "TOR": (U8, I8, U16, I16, U32, I32, F16, BF16, F32),
                "TXOR": (U8, I8, U16, I16, U32, I32), "TNOT": (U8, I8, U16, I16, U32, I32),
                **{c: (U8, I8, U16, I16, U32, I32, F16, BF16, F32) for c in ("TANDS", "TORS", "TXORS")},
                "TABS": (I8, I16, I32, F16, F32), "TNEG": (I16, U16, I32, U32, I64, U64, F16, BF16, F32),
                "TEXPANDS": (U8, I8, U16, I16, U32, I32, I64, U64, F16, BF16, F32)},
        bitwise_floats=("TAND", "TOR", "TANDS", "TORS", "TXORS"),
        row_major=("TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TAND", "TOR", "TXOR", "TNOT", "TSHL", "TSHR",
                   "TABS", "TANDS", "TORS", "TXORS"),
        any_loc=("TEXPANDS",),
        one_tile_type=(), c_assert=None,
        addressing="row_stride", minmax="vmax", minmax_scalar="pseudo", shift="vector", shift_scalar="vector",
        int_div="a5", int_divs="scalar_unit", neg="muls", abs="vabs", ftz=True, b64_cols=64,
        b64_capped=("TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS", "TMINS", "TSHLS", "TSHRS", "TNEG", "TDIV", "TEXPANDS"),
        pad_byte=(),
        xor_tmp=False, subs_float=False, divs_inplace=False, bitwise_s_inplace=False, expands_flat=False,
        expands_b8_extra=False, tci_tmp="a5", tci_dtypes=(I16, U16, I32, U32),
        tci_desc_is_one=False, rdivs_assert=False, expands_mat_whole=True),
}
