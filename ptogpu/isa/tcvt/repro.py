"""TCVT's reproducer lines (what ``config.TcvtInstr.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ...fuzz.repro import array_lines, dtype_text, fill_lines
from .config import parse


def lines(cfg, L: dict, vals: np.ndarray, ln: list[str], i: str):
    """Appends the set-up lines; returns (call, outputs expression, shown expression)."""
    d, mode, sat = parse(cfg.op)
    T, D = dtype_text(cfg.dtype), dtype_text(d)
    ln += [f"{i}src = pto.Tile[pto.TileType.Vec, {T}, {L['src_shape'][0]}, {L['src_shape'][1]}, "
           f"pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]()",
           f"{i}dst = pto.Tile[pto.TileType.Vec, {D}, {L['dst_shape'][0]}, {L['dst_shape'][1]}, "
           f"pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]()",
           f"{i}pto.TASSIGN(src, {L['src_addr']:#x})", f"{i}pto.TASSIGN(dst, {L['dst_addr']:#x})"]
    ln += fill_lines(cfg, "ub", L["dst_addr"], L["out_bytes"], i)
    st = np.dtype(f"u{vals.dtype.itemsize}")
    ln += array_lines("v", vals.view(st).reshape(cfg.rows, cfg.cols), f"np.{st.name}", i, f".view({T})")
    ln.append(f"{i}src.set(v)")
    s = "" if sat is None else f", pto.SaturationMode.{sat.name}"
    return f"pto.TCVT(dst, src, pto.RoundMode.{mode.name}{s})", "dst.raw()", "dst.numpy()"
