"""MSCATTER's reproducer lines (what ``config.MSCATTER.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...fuzz.repro import array_lines, dtype_text


def lines(cfg, L: dict, idx: np.ndarray, ln: list[str], i: str):
    """MSCATTER's set-up lines (``config.MSCATTER.setup``). Returns (call, outputs expression,
    shown expression)."""
    from .config import MSCATTER, float_add
    T, VR, VC = dtype_text(cfg.dtype), cfg.rows, cfg.cols
    (sr, sc), (ir, ic), (ivr, ivc) = L["src_shape"], L["idx_shape"], L["idx_valid"]
    n = MSCATTER.table_elems(cfg)
    src = f"np.arange(1, {VR * VC + 1}).reshape({VR}, {VC})"
    src = (f"({src} % 120 + 1).astype(np.uint8)" if dtypes.name_of(dtypes.as_dtype(cfg.dtype)) == "hifloat8"
           else f"({src} + 0.1).astype({T})" if float_add(cfg) else f"{src}.astype({T})")
    ln += [f"{i}ptr = core.gm_alloc({n}, {T})   # the table: zeros",
           f"{i}table = pto.GlobalTensor[{T}, pto.Shape{list(cfg.shape5)}, pto.Stride{list(cfg.stride5)}](ptr)",
           f"{i}src = pto.Tile[pto.TileType.Vec, {T}, {sr}, {sc}, pto.BLayout.RowMajor, {VR}, {VC}]()",
           f"{i}idx = pto.Tile[pto.TileType.Vec, {dtype_text(cfg.index_dtype)}, {ir}, {ic}, pto.BLayout.RowMajor, "
           f"{ivr}, {ivc}]()",
           f"{i}pto.TASSIGN(src, {L['src_addr']:#x})",
           f"{i}pto.TASSIGN(idx, {L['idx_addr']:#x})",
           f"{i}src.set({src})   # distinct values: a survivor names its writer"]
    ln += array_lines("ii", idx.reshape(ivr, ivc), f"np.{idx.dtype.name}", i)
    ln.append(f"{i}idx.set(ii)")
    args = [f"pto.Coalesce.{cfg.mode.capitalize()}",
            f"pto.ScatterAtomicOp.{'None_' if cfg.atomic == 'none' else cfg.atomic.capitalize()}",
            f"pto.ScatterOOB.{cfg.oob.capitalize()}"]
    if cfg.exec in ("default", "last"):
        args.append(f"pto.ScatterConflict.{cfg.exec.capitalize()}")
    call = f"pto.MSCATTER[{', '.join(args)}](table, src, idx)"
    return call, f"ptr.numpy({n})", f"'leaves ' + str({{k: v for k, v in enumerate(ptr.numpy({n}).tolist()) if v}})"
