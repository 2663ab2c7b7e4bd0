"""TGATHER's rules per target (the tables ``target.tgather`` reads; the vendor's
``include/pto/{cpu,npu/a2a3,npu/a5}/TGather.hpp``, summarised in docs/tgather.md)."""
from __future__ import annotations

from dataclasses import dataclass

_A5_MASK = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "half", "bfloat16",
            "float32", "float8_e4m3", "float8_e5m2", "hifloat8")


@dataclass(frozen=True)
class TGatherRules:
    # -- the index form TGATHER(dst, src0, indices, tmp)
    data_sizes: tuple[int, ...] | None     # sizeof(T) accepted (None: any)
    index_sizes: tuple[int, ...]           # sizeof(index) accepted
    b64_index_size: int | None             # 8-byte data needs this index size
    garbage_pairs: tuple[tuple[int, int], ...]   # (data, index) sizes that compile but give no defined bytes
    tmp_same_as_index: bool                # tmp's DType == the indices'
    oob: str                               # "zero": an index < 0 or >= src0's Rows*Cols gives 0;
                                           # "raw": UB at src0 + index*sizeof(T), whatever it holds
    offset_math: str                       # "logical": (i / Cols, i % Cols) through src0's layout;
                                           # "bytes32": (int32 index * sizeof T) mod 2^32 bytes;
                                           # "unsigned": the index's bits unsigned, an element offset
    addressing: str                        # idx/dst elements: "layout" | "row_major"
    loop: bool                             # the simulator's element loop: where dst shares bytes with
                                           # a source, a later element reads an earlier one's write
    tmp_scratch: bool                      # 2-byte data: byte offsets written to tmp + r*dst.Cols (int32)
    tmp_asserts: bool                      # PTO_ASSERT idx valid shape == tmp's
    wide_cols: int | None                  # 8-byte data: columns a row gathers (one 64-lane vector)
    # -- the mask form TGATHER<Dst, Src, MaskPattern, GatherAxis>(dst, src)
    mask_sizes: tuple[int, ...] | None     # sizeof(T) accepted (None: any)
    mask_types: tuple[str, ...] | None     # DType list (None: any)
    mask_vec_rowmajor: bool                # Vec and row-major tiles required
    row_dst_assert: bool                   # asserts dst.GetValidCol() == Cols (assert / PTO_ASSERT)
    b64_row_stride: bool                   # 8-byte ROW: rows at Dst::Cols/times, floor(VC/times) (<= 64) each
    col_rows: str                          # COL: "selected" (CountSelected rows) | "src_valid" (src.VR rows)
    col_asserts: str                       # "assert": dst.VR == n == Rows; "no_debug_build"; "none"
    b64_col: bool                          # 8-byte COL accepted
    # -- the compare form TGATHER<D, S, S1, C, Tmp, CmpMode>(dst, src0, k, cdst, tmp, offset)
    compare: str | None                    # None: no TGATHER_IMPL (the simulator); "a2a3" | "a5"


TABLES = {
    # cpu/TGather.hpp:84-178
    "cpu": TGatherRules(data_sizes=None, index_sizes=(4,), b64_index_size=None, garbage_pairs=(),
                        tmp_same_as_index=False, oob="zero", offset_math="logical", addressing="layout", loop=True,
                        tmp_scratch=False, tmp_asserts=False, wide_cols=None,
                        mask_sizes=None, mask_types=None, mask_vec_rowmajor=True, row_dst_assert=True,
                        b64_row_stride=False, col_rows="selected", col_asserts="assert", b64_col=True, compare=None),
    # a2a3/TGather.hpp:17-155 (index, mask), 160-318 (compare)
    "a2a3": TGatherRules(data_sizes=(2, 4), index_sizes=(4,), b64_index_size=None, garbage_pairs=(),
                         tmp_same_as_index=True, oob="raw", offset_math="bytes32", addressing="row_major", loop=False,
                         tmp_scratch=True, tmp_asserts=True, wide_cols=None,
                         mask_sizes=(2, 4), mask_types=None, mask_vec_rowmajor=True, row_dst_assert=True,
                         b64_row_stride=False, col_rows="src_valid", col_asserts="no_debug_build", b64_col=False,
                         compare="a2a3"),
    # a5/TGather.hpp:20-167 (index), 181-333 (mask), 341-971 (compare)
    "a5": TGatherRules(data_sizes=(1, 2, 4, 8), index_sizes=(2, 4), b64_index_size=4, garbage_pairs=((4, 2), (1, 4)),
                       tmp_same_as_index=False, oob="raw", offset_math="unsigned", addressing="row_major", loop=False,
                       tmp_scratch=False, tmp_asserts=False, wide_cols=64,
                       mask_sizes=(1, 2, 4, 8), mask_types=_A5_MASK, mask_vec_rowmajor=True, row_dst_assert=False,
                       b64_row_stride=True, col_rows="src_valid", col_asserts="none", b64_col=False, compare="a5"),
}
