"""TSORT32 / TMRGSORT per target (the table ``target.sort`` reads; the vendor's
include/pto/{cpu,npu/a2a3,npu/a5}/TSort32.hpp and TMrgSort.hpp, summarised in docs/sort.md)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SortRules:
    dtypes: tuple[str, ...] | None        # TSORT32 value types (None: any)
    mrg_dtypes: tuple[str, ...] | None    # TMRGSORT types (None: any whose size divides 8)
    rows_from: str                        # TSORT32's rows: "src" valid rows | "dst" valid rows
    idx_broadcast: bool                   # an idx tile of one valid row serves every row
    idx_same_shape: bool                  # idx's valid shape must be src's, else nothing is written
    tail: str                             # a partial last block: "partial" (its n pairs, the simulator) |
                                          # "drop" (3 operands: not read, not written) with tmp "pad"ded to 32
    ties: str                             # equal values: "idx" (by the idx value) | "position" (stable)
    half_block_bug: bool                  # 2-byte values: block j written at half offset 64 j (overlapping)
    chunk_bug: bool                       # a row's block count a multiple of 255: the last 255 go unsorted
    pad_tmp_extra: int                    # the tail pad also writes this many more tmp elements (A2/A3: 32)
    merge_into: str                       # TMRGSORT: "dst" directly, at most dst's pairs | "tmp" (every pair), then
                                          # whole 32-byte blocks of tmp to dst
    counts_always: bool                   # executedNumList written even without exhausted
    single_from: str                      # the single-list form's group count: from "dst" or "src" valid columns
    single_checks: bool                   # the single-list form returns on blockLen 0 or not a multiple of a pair
    sim_checks: bool                      # the simulator's checks: NoneBox tiles, src Cols == idx Cols, any Loc; else
                                          # Vec tiles; TMRGSORT: every tile (src3 too) one row
    large_tmp_unit: str                   # TSORT32 with tmp and a tail: a row of more than 8160 "bytes" (or
                                          # "elements", A2/A3) takes LargeTmpBufferImpl


TABLES = {
    # cpu/TSort32.hpp:44-134, cpu/TMrgSort.hpp:33-326
    "cpu": SortRules(dtypes=("int32", "int16", "half", "bfloat16", "float32"), mrg_dtypes=None, rows_from="src",
                     idx_broadcast=False, idx_same_shape=True, tail="partial", ties="idx", half_block_bug=True,
                     chunk_bug=False, pad_tmp_extra=0, merge_into="dst", counts_always=True, single_from="dst",
                     single_checks=True, sim_checks=True, large_tmp_unit="bytes"),
    # a2a3/TSort32.hpp:18-208, a2a3/TMrgSort.hpp:17-318
    "a2a3": SortRules(dtypes=("half", "float32"), mrg_dtypes=("half", "float32"), rows_from="dst", idx_broadcast=True,
                      idx_same_shape=False, tail="drop", ties="position", half_block_bug=False, chunk_bug=True,
                      pad_tmp_extra=32, merge_into="tmp", counts_always=False, single_from="src",
                      single_checks=False, sim_checks=False, large_tmp_unit="elements"),
    # a5/TSort32.hpp:27-225, a5/TMrgSort.hpp:20-293
    "a5": SortRules(dtypes=("half", "float32"), mrg_dtypes=("half", "float32"), rows_from="dst", idx_broadcast=True,
                    idx_same_shape=False, tail="drop", ties="position", half_block_bug=False, chunk_bug=True,
                    pad_tmp_extra=0, merge_into="tmp", counts_always=False, single_from="src", single_checks=False,
                    sim_checks=False, large_tmp_unit="bytes"),
}
