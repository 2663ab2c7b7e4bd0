"""TCMP / TCMPS / TSEL / TSELS per target (the table ``target.compare`` reads; the vendor's
include/pto/cpu/TCmp.h, TCmps.hpp, TSel.hpp, TSelS.hpp and include/pto/npu/{a2a3,a5}/TCmp.hpp,
TCmps.hpp, TSel.hpp, TSels.hpp, summarised per rule in docs/compare.md)."""
from __future__ import annotations

from dataclasses import dataclass

_ALL11 = ("int64", "uint64", "int32", "uint32", "float32", "int16", "uint16", "half", "uint8", "int8", "bfloat16")


@dataclass(frozen=True)
class CompareRules:
    packing: str                          # how TCMP packs a row's bits: "words" (the simulator: uint8/uint32
                                          # words of 8/32 bits, the tile zeroed first), "repeats" (A2/A3: whole
                                          # 256-byte repeats, padding lanes compared), "chunks" (A5: predicated
                                          # chunks, bits past VC zero)
    cmp_src: tuple[str, ...] | None       # TCMP src types (None: by the mask type, the simulator's two lists)
    cmp_dst: tuple[str, ...] | None       # TCMP mask (dst) types (None: any)
    cmps_src: tuple[str, ...] | None      # TCMPS src types (None: unchecked)
    int32_eq_only: bool                   # int32 compares are EQ whatever the mode (vcmpv_eq)
    ne_by_not: bool                       # NE = EQ, then vnot over VR * Dst::Cols bytes
    half_bits_16: bool                    # TCMPS on 16-bit integers compares them as half bit patterns
    cmps_layout: str                      # "reflow" (the simulator's flat byte stream) | "rows"
    cmps_eq_tolerance: bool               # EQ / NE as |a - b| < 1e-9 in double (the simulator)
    cmps_tile: str                        # the tile form's src1: "elementwise" | "first" | "first_b64_elementwise"
    sel_sizes: tuple[int, ...] | None     # TSEL element sizes (None: unchecked)
    sel_walk: str                         # "flat" (one bit stream, low 8 bits of each mask element) |
                                          # "rows" (row r at r * RowStride * sizeof(MaskT) bytes) |
                                          # "rows_elems" (A5: r * RowStride bytes; b8 chunks 16 bytes apart)
    sel_tmp: bool                         # TSEL writes the mask row's UB address into tmp (set_cmpmask)
    sels_types: tuple[str, ...] | None    # TSELS element types (None: any)
    sels_sizes: tuple[int, ...] | None
    sels_tmp: bool                        # TSELS stores the scalar in tmp[0]
    b64_cols: int | None                  # 8-byte elements: columns a row handles (A5: 64)
    row_major: bool                       # TSEL / TSELS want row-major dst and src (TCMPS: dst)
    cmp_row_major: bool                   # TCMP wants row-major dst, src0, src1 (A5)
    cmp_asserts: bool                     # TCMP asserts equal src valid shapes and src0/dst valid rows (A2/A3)
    cmps_rows_assert: bool                # TCMPS asserts src0 and dst valid rows equal (the NPUs)
    sels_mask_row_major: bool             # TSELS wants a row-major mask too (A5)
    sels_walk: str                        # TSELS's mask walk: "words" (the simulator) | "rows" (per row)


TABLES = {
    # cpu/TCmp.h:20-125, TCmps.hpp:23-176, TSel.hpp:21-56, TSelS.hpp:25-43
    "cpu": CompareRules(packing="words", cmp_src=None, cmp_dst=("uint8", "uint32"), cmps_src=None,
                        int32_eq_only=False, ne_by_not=False, half_bits_16=False, cmps_layout="reflow",
                        cmps_eq_tolerance=True, cmps_tile="elementwise", sel_sizes=None, sel_walk="flat",
                        sel_tmp=False, sels_types=None, sels_sizes=None, sels_tmp=False, b64_cols=None,
                        row_major=False, cmp_row_major=False, cmp_asserts=False, cmps_rows_assert=False,
                        sels_mask_row_major=False, sels_walk="words"),
    # a2a3/TCmp.hpp:20-142, TCmps.hpp:22-198, TSel.hpp:24-76, TSels.hpp:19-65
    "a2a3": CompareRules(packing="repeats", cmp_src=("int32", "half", "float32"), cmp_dst=("uint8",),
                         cmps_src=("int32", "float32", "half", "uint16", "int16"), int32_eq_only=True,
                         ne_by_not=True, half_bits_16=True, cmps_layout="rows", cmps_eq_tolerance=False,
                         cmps_tile="first", sel_sizes=(2, 4), sel_walk="rows", sel_tmp=True, sels_types=None,
                         sels_sizes=(2, 4), sels_tmp=True, b64_cols=None, row_major=True,
                         cmp_row_major=False, cmp_asserts=True, cmps_rows_assert=True, sels_mask_row_major=False,
                         sels_walk="rows"),
    # a5/TCmp.hpp:52-171, TCmps.hpp:22-274, TSel.hpp:19-130, TSels.hpp:20-141, Int64Binary.hpp:20-364
    "a5": CompareRules(packing="chunks", cmp_src=_ALL11, cmp_dst=None, cmps_src=_ALL11, int32_eq_only=False,
                       ne_by_not=False, half_bits_16=False, cmps_layout="rows", cmps_eq_tolerance=False,
                       cmps_tile="first_b64_elementwise", sel_sizes=(1, 2, 4, 8), sel_walk="rows_elems",
                       sel_tmp=False,
                       sels_types=("int64", "uint64", "int8", "int16", "int32", "half", "float32", "uint8", "uint16",
                                   "uint32"), sels_sizes=(1, 2, 4, 8), sels_tmp=False, b64_cols=64, row_major=True,
                       cmp_row_major=True, cmp_asserts=False, cmps_rows_assert=True, sels_mask_row_major=True,
                       sels_walk="rows"),
}
