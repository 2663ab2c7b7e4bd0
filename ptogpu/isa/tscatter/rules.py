"""TSCATTER's rules per target (the tables ``target.tscatter`` reads; spec: the vendor's
``include/pto/{cpu,npu/a2a3,npu/a5}/TScatter.hpp``, summarised in docs/tgather.md)."""
from __future__ import annotations

from dataclasses import dataclass

_NPU10 = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "half", "bfloat16", "float32")


@dataclass(frozen=True)
class TScatterRules:
    data_types: tuple[str, ...] | None     # dst DType list (None: any: the simulator)
    index_types: tuple[str, ...] | None    # None: any integral type
    pairs: tuple[tuple[int, int], ...] | None   # (data size, index size) pairs allowed; None: any
    same_dtype: bool                       # dst DType == src DType (else a value conversion)
    vec_only: bool                         # every operand a Vec tile
    index_cast: str                        # "u32": static_cast<unsigned>; "native": the index type's
                                           # value (negative reaches below dst); "unsigned": the
                                           # index bits as an unsigned lane offset
    addressing: str                        # src/idx elements: "layout" (GetTileElementOffset) |
                                           # "row_major" (i*Cols + j whatever the layout)
    loop: bool                             # a scalar element loop (the simulator's; A2/A3's after its
                                           # clear): where a write lands in src or the indices, a later
                                           # element reads it
    clear: bool                            # the whole dst tile is zeroed first (index form, masks but P1111)
    lane_order: str                        # within one vscatter: "last" (program order) | "lowest_lane"
    wide_cols: int | None                  # 8-byte T: columns a row scatters (A5: one 64-lane mask)
    mask_sizes: tuple[int, ...]            # element sizes the mask form takes
    mask_cursor: bool                      # ROW: src read through one cursor wrapping at src.Cols
    col_unit_b16: bool                     # COL: VC units of int16 copied for 1-byte T (2*VC bytes)
    col_offset_bits: int | None            # COL: the dst element offset held in uint16 (wraps)
    mask_debug_compiles: bool              # the non-P1111 mask form compiles with the asserts live


TABLES = {
    # cpu/TScatter.hpp:22-45 (index), 47-118 (mask; static checks apply to P1111 too)
    "cpu": TScatterRules(data_types=None, index_types=None, pairs=None, same_dtype=False, vec_only=False,
                         index_cast="u32", addressing="layout", loop=True, clear=False, lane_order="last", wide_cols=None,
                         mask_sizes=(2, 4), mask_cursor=True, col_unit_b16=False, col_offset_bits=None,
                         mask_debug_compiles=True),
    # a2a3/TScatter.hpp:35-89 (index: vector_dup clear, scalar loop), 118-203 (mask)
    "a2a3": TScatterRules(data_types=_NPU10, index_types=("uint16", "uint32", "int16", "int32"),
                          pairs=((4, 4), (2, 2), (1, 2)), same_dtype=True, vec_only=True, index_cast="native",
                          addressing="row_major", loop=True, clear=True, lane_order="last", wide_cols=None,
                          mask_sizes=(1, 2, 4), mask_cursor=False, col_unit_b16=True, col_offset_bits=16,
                          mask_debug_compiles=False),
    # a5/TScatter.hpp:41-115 (vscatter per row chunk; Int64Rearrange.hpp:93-160), 174-262 (mask)
    "a5": TScatterRules(data_types=_NPU10 + ("int64", "uint64"), index_types=("uint16", "uint32", "int16", "int32"),
                        pairs=((4, 4), (2, 2), (1, 2), (8, 4)), same_dtype=True, vec_only=True, index_cast="unsigned",
                        addressing="row_major", loop=False, clear=True, lane_order="lowest_lane", wide_cols=64,
                        mask_sizes=(1, 2, 4, 8), mask_cursor=False, col_unit_b16=False, col_offset_bits=16,
                        mask_debug_compiles=False),
}
