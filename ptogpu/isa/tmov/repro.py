"""TMOV's reproducer lines (what ``config.TmovInstr.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ...fuzz.repro import array_lines, dtype_text, fill_lines, one_source_lines


def lines(cfg, L: dict, vals: np.ndarray, ln: list[str], i: str):
    """Appends the set-up lines; returns (call, outputs expression, shown expression)."""
    if cfg.space != "l1":
        one_source_lines(cfg, L, vals, cfg.op or cfg.dtype, ln, i)
        return "pto.TMOV(dst, src)", "dst.raw()", "dst.raw()"
    T, (r, c) = dtype_text(cfg.dtype), L["dst_shape"]
    ln += [f"{i}src = pto.Tile[pto.TileType.Vec, {T}, {r}, {c}, pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]()",
           f"{i}dst = pto.Tile[pto.TileType.Mat, {dtype_text(cfg.op or cfg.dtype)}, {r}, {c}, pto.BLayout.ColMajor, "
           f"{cfg.rows}, {cfg.cols}, pto.SLayout.RowMajor]()",
           f"{i}pto.TASSIGN(src, {L['src_addr']:#x})", f"{i}pto.TASSIGN(dst, {L['dst_addr']:#x})"]
    ln += fill_lines(cfg, "l1", L["dst_addr"], L["out_bytes"], i)
    st = np.dtype(f"u{vals.dtype.itemsize}")
    ln += array_lines("v", vals.view(st).reshape(cfg.rows, cfg.cols), f"np.{st.name}", i, f".view({T})")
    ln.append(f"{i}src.set(v)")
    out = f"core.read('l1', {L['dst_addr']:#x}, {L['out_bytes']})"
    return "pto.TMOV(dst, src)", out, out
