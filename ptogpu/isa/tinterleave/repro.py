"""TINTERLEAVE's reproducer lines (what ``config.TINTERLEAVE.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ...fuzz.repro import array_lines, dtype_text, fill_lines


def lines(cfg, L: dict, idx: np.ndarray, ln: list[str], i: str):
    """TINTERLEAVE's set-up lines. Returns (call, outputs expression, shown expression)."""
    T, VR, VC = dtype_text(cfg.dtype), cfg.rows, cfg.cols
    R, C = L["tile_shape"]
    st = idx.dtype
    bits = idx.view(np.dtype(f"u{st.itemsize}")) if st.kind not in "iu" else idx
    view = "" if st.kind in "iu" else f".view({T})"
    ut = f"np.{bits.dtype.name}"
    tt = f"pto.Tile[pto.TileType.Vec, {T}, {R}, {C}, pto.BLayout.RowMajor, {VR}, {VC}]"
    ln += [f"{i}TT = {tt}",
           f"{i}src0, src1, dst0, dst1 = TT(), TT(), TT(), TT()"]
    for name, a in zip(("src0", "src1", "dst0", "dst1"), L["addrs"]):
        ln.append(f"{i}pto.TASSIGN({name}, {a:#x})")
    nb = R * C * L["T"]
    ln += fill_lines(cfg, "ub", L["addrs"][2], nb, i) + fill_lines(cfg, "ub", L["addrs"][3], nb, i)
    half = bits.size // 2
    ln += array_lines("s0", bits[:half].reshape(VR, VC), ut, i, view)
    ln += array_lines("s1", bits[half:].reshape(VR, VC), ut, i, view)
    ln += [f"{i}src0.set(s0)", f"{i}src1.set(s1)"]
    call = "pto.TINTERLEAVE(dst1, dst0, src1, src0)"
    outs, shows = "np.concatenate([dst0.raw(), dst1.raw()])", "dst0.numpy(), dst1.numpy()"
    return call, outs, shows
