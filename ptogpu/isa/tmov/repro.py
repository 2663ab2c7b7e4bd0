"""TMOV's reproducer lines (what ``config.TmovInstr.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ...fuzz.repro import array_lines, dtype_text, fill_lines


def lines(cfg, L: dict, vals: np.ndarray, ln: list[str], i: str):
    """Appends the set-up lines; returns (call, outputs expression, shown expression)."""
    T, D, (R, C) = dtype_text(cfg.dtype), dtype_text(cfg.op or cfg.dtype), L["dst_shape"]
    ln += [f"{i}src = pto.Tile[pto.TileType.Vec, {T}, {R}, {C}, pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]()",
           f"{i}dst = pto.Tile[pto.TileType.Vec, {D}, {R}, {C}, pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]()",
           f"{i}pto.TASSIGN(src, {L['src_addr']:#x})", f"{i}pto.TASSIGN(dst, {L['dst_addr']:#x})"]
    ln += fill_lines(cfg, "ub", L["dst_addr"], L["out_bytes"], i)
    st = np.dtype(f"u{vals.dtype.itemsize}")
    ln += array_lines("v", vals.view(st).reshape(cfg.rows, cfg.cols), f"np.{st.name}", i, f".view({T})")
    ln.append(f"{i}src.set(v)")
    return "pto.TMOV(dst, src)", "dst.raw()", "dst.raw()"
