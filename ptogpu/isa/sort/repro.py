"""TSORT32's reproducer lines (what ``config.Tsort32Instr.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...fuzz.repro import array_lines, dtype_text, fill_lines


def lines(cfg, L: dict, vals: np.ndarray, ln: list[str], i: str):
    """Appends the set-up lines; returns (call, outputs expression, shown expression)."""
    T, (R, C), n = dtype_text(cfg.dtype), L["src_shape"], cfg.rows * cfg.cols
    ln += [f"{i}src = pto.Tile[pto.TileType.Vec, {T}, {R}, {C}, pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]()",
           f"{i}idx = pto.Tile[pto.TileType.Vec, pto.uint32, {R}, {C}, pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]()",
           f"{i}dst = pto.Tile[pto.TileType.Vec, {T}, {L['dst_shape'][0]}, {L['dst_shape'][1]}]()"]
    if cfg.op == "tmp":
        ln.append(f"{i}tmp = pto.Tile[pto.TileType.Vec, {T}, 1, {L['tmp_cols']}]()")
    for name, key in (("src", "src_addr"), ("idx", "idx_addr"), ("dst", "dst_addr"), ("tmp", "tmp_addr")):
        if key in L:
            ln.append(f"{i}pto.TASSIGN({name}, {L[key]:#x})")
    out = L.get("out_bytes", L["dst_shape"][0] * L["dst_shape"][1] * L["T"])
    ln += fill_lines(cfg, "ub", L["dst_addr"], out, i)
    st = np.dtype(f"u{dtypes.storage(dtypes.as_dtype(cfg.dtype)).itemsize}")
    v = np.asarray(vals).view(np.uint64)
    ln += array_lines("v", v[:n].astype(st).reshape(cfg.rows, cfg.cols), f"np.{st.name}", i, f".view({T})")
    ln += [f"{i}src.set(v)"]
    ln += array_lines("ix", v[n:].astype(np.uint32).reshape(cfg.rows, cfg.cols), "np.uint32", i)
    ln += [f"{i}idx.set(ix)"]
    if cfg.op == "tmp":                                 # (dst's bytes, then tmp's)
        read = f"core.read('ub', {L['dst_addr']:#x}, {out})"
        return "pto.TSORT32(dst, src, idx, tmp)", read, read
    return "pto.TSORT32(dst, src, idx)", "dst.raw()", "dst.raw()"


def mrg_lines(cfg, L: dict, vals: np.ndarray, ln: list[str], i: str):
    """TMRGSORT's set-up lines (``config.TmrgsortInstr.program``): the two sorted lists' records."""
    from .config import TMRGSORT
    T, n, per = dtype_text(cfg.dtype), L["list_cols"], L["per"]
    ln += [f"{i}Src = pto.Tile[pto.TileType.Vec, {T}, 1, {n}, pto.BLayout.RowMajor, 1, {cfg.cols * per}]",
           f"{i}s0, s1 = Src(), Src()",
           f"{i}tmp = pto.Tile[pto.TileType.Vec, {T}, 1, {2 * n}]()",
           f"{i}dst = pto.Tile[pto.TileType.Vec, {T}, 1, {2 * n}, pto.BLayout.RowMajor, 1, {2 * cfg.cols * per}]()"]
    for name, key in (("s0", "src0_addr"), ("s1", "src1_addr"), ("tmp", "tmp_addr"), ("dst", "dst_addr")):
        ln.append(f"{i}pto.TASSIGN({name}, {L[key]:#x})")
    ln += fill_lines(cfg, "ub", L["dst_addr"], 2 * n * L["T"], i)
    st = np.dtype(f"u{dtypes.storage(dtypes.as_dtype(cfg.dtype)).itemsize}")
    for k, rec in enumerate(TMRGSORT.records(cfg, dtypes.as_dtype(cfg.dtype), np.asarray(vals).view(np.uint64))):
        ln += array_lines(f"r{k}", rec.view(st).reshape(1, -1), f"np.{st.name}", i, f".view({T})")
        ln.append(f"{i}s{k}.set(r{k})   # (value, index) records, sorted descending")
    ln.append(f"{i}executed = pto.MrgSortExecutedNumList()")
    return (f"pto.TMRGSORT[{cfg.op == 'exhausted'}](dst, executed, tmp, s0, s1)", "dst.raw()",
            "(dst.raw(), executed.mrgSortList0, executed.mrgSortList1)")
