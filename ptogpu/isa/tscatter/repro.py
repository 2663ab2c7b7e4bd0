"""TSCATTER's reproducer lines (what ``config.TSCATTER.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ...fuzz.repro import array_lines, dtype_text, fill_lines
from ..tgather.repro import mask_lines


def lines(cfg, L: dict, idx: np.ndarray, ln: list[str], i: str):
    """Appends the set-up lines; returns (call, outputs expression, shown expression)."""
    if cfg.mask:
        return mask_lines("TSCATTER", cfg, L, idx, ln, i)
    T, I, VR, VC = dtype_text(cfg.dtype), dtype_text(cfg.index_dtype), cfg.rows, cfg.cols
    (sr, sc), (ir, ic), (R, C) = L["src_shape"], L["idx_shape"], L["dst_shape"]
    ln += [f"{i}src = pto.Tile[pto.TileType.Vec, {T}, {sr}, {sc}, pto.BLayout.RowMajor, {VR}, {VC}]()",
           f"{i}idx = pto.Tile[pto.TileType.Vec, {I}, {ir}, {ic}, pto.BLayout.RowMajor, {VR}, {VC}]()",
           f"{i}dst = pto.Tile[pto.TileType.Vec, {T}, {R}, {C}]()",
           f"{i}pto.TASSIGN(src, {L['src_addr']:#x})",
           f"{i}pto.TASSIGN(idx, {L['idx_addr']:#x})",
           f"{i}pto.TASSIGN(dst, {L['dst_addr']:#x})"]
    ln += fill_lines(cfg, "ub", L["dst_addr"], R * C * L["T"], i)
    ln.append(f"{i}src.set((np.arange({VR * VC}) % 97 + 1).astype({T}).reshape({VR}, {VC}))"
              "   # distinct values: a survivor names its writer")
    ln += array_lines("ii", idx.reshape(VR, VC), f"np.{idx.dtype.name}", i)
    ln.append(f"{i}idx.set(ii)")
    return "pto.TSCATTER(dst, src, idx)", "dst.raw()", "dst.numpy()"
