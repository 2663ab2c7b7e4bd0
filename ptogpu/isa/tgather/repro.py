"""TGATHER's reproducer lines (what ``config.TGATHER.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ...fuzz.repro import array_lines, dtype_text, fill_lines, table_expr


def lines(cfg, L: dict, idx: np.ndarray, ln: list[str], i: str):
    """Appends the set-up lines; returns (call, outputs expression, shown expression)."""
    if cfg.mask:
        return mask_lines("TGATHER", cfg, L, idx, ln, i)
    T, I, VR, VC = dtype_text(cfg.dtype), dtype_text(cfg.index_dtype), cfg.rows, cfg.cols
    (sr, sc), (ir, ic), (R, C) = L["src_shape"], L["idx_shape"], L["dst_shape"]
    ln += [f"{i}src = pto.Tile[pto.TileType.Vec, {T}, {sr}, {sc}]()",
           f"{i}IdxT = pto.Tile[pto.TileType.Vec, {I}, {ir}, {ic}, pto.BLayout.RowMajor, {VR}, {VC}]",
           f"{i}idx, tmp = IdxT(), IdxT()",
           f"{i}dst = pto.Tile[pto.TileType.Vec, {T}, {R}, {C}, pto.BLayout.RowMajor, {VR}, {VC}]()",
           f"{i}pto.TASSIGN(src, {L['src_addr']:#x})",
           f"{i}pto.TASSIGN(idx, {L['idx_addr']:#x})",
           f"{i}pto.TASSIGN(tmp, {L['tmp_addr']:#x})",
           f"{i}pto.TASSIGN(dst, {L['dst_addr']:#x})"]
    ln += fill_lines(cfg, "ub", L["dst_addr"], R * C * L["T"], i)
    ln.append(f"{i}src.set(np.resize({table_expr(cfg, cfg.table_elems)}, {sr * sc}).reshape({sr}, {sc}))")
    ln.append(f"{i}core.write('ub', {L['past_addr']:#x}, np.resize({table_expr(cfg, cfg.table_elems)}, {sc})[::-1].copy())"
              "   # what an NPU reads past src0")
    ln += array_lines("ii", idx.reshape(VR, VC), f"np.{idx.dtype.name}", i)
    ln.append(f"{i}idx.set(ii)")
    return "pto.TGATHER(dst, src, idx, tmp)", "dst.raw()", "dst.numpy()"


def mask_lines(name: str, cfg, L: dict, vals: np.ndarray, ln: list[str], i: str):
    """A mask form's set-up lines (TGATHER's and TSCATTER's configurations lay it out alike)."""
    from .config import mask_of
    pattern, axis = mask_of(cfg)
    T = dtype_text(cfg.dtype)
    (sr, sc), (dr, dc) = L["src_shape"], L["dst_shape"]
    dv = L["dst_valid"] or L["dst_shape"]
    enum = "GatherAxis.GATHER" if name == "TGATHER" else "ScatterAxis.SCATTER"
    ln += [f"{i}src = pto.Tile[pto.TileType.Vec, {T}, {sr}, {sc}, pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]()",
           f"{i}dst = pto.Tile[pto.TileType.Vec, {T}, {dr}, {dc}, pto.BLayout.RowMajor, {dv[0]}, {dv[1]}]()",
           f"{i}pto.TASSIGN(src, {L['src_addr']:#x})",
           f"{i}pto.TASSIGN(dst, {L['dst_addr']:#x})"]
    if cfg.dst_fill:
        ln.append(f"{i}core.write('ub', {L['dst_addr']:#x}, bytes([{cfg.dst_fill:#04x}]) * {L['span']})"
                  "   # what the destination held before")
    st = np.dtype(f"u{vals.dtype.itemsize}")
    ln += array_lines("vv", vals.view(st).reshape(cfg.rows, cfg.cols), f"np.{st.name}", i, f".view({T})")
    ln.append(f"{i}src.set(vv)")
    call = f"pto.{name}[pto.MaskPattern.{pattern.name}, pto.{enum}_{'COL' if axis else 'ROW'}](dst, src)"
    return call, f"core.read('ub', {L['dst_addr']:#x}, {L['span']})", f"core.read('ub', {L['dst_addr']:#x}, {L['span']})"
