"""TGATHERB's reproducer lines (what ``config.TGATHERB.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ...fuzz.repro import array_lines, dtype_text, fill_lines, table_expr


def lines(cfg, L: dict, idx: np.ndarray, ln: list[str], i: str):
    """TGATHERB's set-up lines. Returns (call, outputs expression, shown expression)."""
    T, VR, VC = dtype_text(cfg.dtype), cfg.rows, cfg.cols
    (sr, sc), (orr, oc), (R, C) = L["src_shape"], L["off_shape"], L["dst_shape"]
    n = sr * sc
    src_vals = (f"{table_expr(cfg, n)}" if n <= cfg.table_elems else
                f"np.resize({table_expr(cfg, cfg.table_elems)}, {n})")
    ln += [f"{i}src = pto.Tile[pto.TileType.Vec, {T}, {sr}, {sc}]()",
           f"{i}off = pto.Tile[pto.TileType.Vec, pto.uint32, {orr}, {oc}]()",
           f"{i}dst = pto.Tile[pto.TileType.Vec, {T}, {R}, {C}, pto.BLayout.RowMajor, {VR}, {VC}]()",
           f"{i}pto.TASSIGN(src, {L['src_addr']:#x})",
           f"{i}pto.TASSIGN(off, {L['off_addr']:#x})",
           f"{i}pto.TASSIGN(dst, {L['dst_addr']:#x})"]
    ln += fill_lines(cfg, "ub", L["dst_addr"], R * C * L["T"], i)
    ln.append(f"{i}src.set({src_vals}.reshape({sr}, {sc}))")
    ln.append(f"{i}# offsets: byte offsets of 32-byte blocks of src")
    from .config import offset_image
    ln += array_lines("oo", offset_image(idx, L), "np.uint32", i)
    ln.append(f"{i}off.set(oo)")
    call = "pto.TGATHERB(dst, src, off)"
    outs, shows = "dst.raw()", "dst.numpy()"
    return call, outs, shows
