"""MGATHER's reproducer lines (what ``config.MGATHER.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...execution.instrs.base import LAYOUTS
from ...fuzz.repro import array_lines, dtype_text, fill_lines, table_expr


def lines(cfg, L: dict, idx: np.ndarray, ln: list[str], i: str):
    """MGATHER's set-up lines (into UB, or GM->L1 with the Elem scratch), appended to
    ``ln``. Returns (call, outputs expression, shown expression)."""
    T, VR, VC = dtype_text(cfg.dtype), cfg.rows, cfg.cols
    gput = (f"core.gm_put({table_expr(cfg, cfg.table_elems)}"
            + (f", {T})" if dtypes.name_of(dtypes.as_dtype(cfg.dtype)) == "hifloat8" else ")"))
    ln.append(f"{i}table = pto.GlobalTensor[{T}, pto.Shape{list(cfg.shape5)}, "
              f"pto.Stride{list(cfg.stride5)}, pto.Layout.ND]({gput})")
    cm = f"pto.Coalesce.{cfg.mode.capitalize()}, pto.GatherOOB.{cfg.oob.capitalize()}"
    I = dtype_text(cfg.index_dtype)
    if cfg.space == "ub":
        ir, ic, ivr, ivc = L["idx_shape"]
        R, C = L["dst_shape"]
        bl, sl = LAYOUTS[cfg.layout]
        box = "" if (bl, sl) == ("RowMajor", "NoneBox") else f", pto.SLayout.{sl}, 512"
        svr, svc, sr, sc = ivr, ivc, VR, VC
        iv = dv = ""
        if cfg.storage is not None:            # dynamic valid dims, set at construction
            D = "pto.DYNAMIC"
            if cfg.mode == "elem":
                svr = svc = sr = sc = D
                iv = dv = f"{VR}, {VC}"
            else:                              # [1, R] index tile, static ValidCol
                svc = sr = D
                iv = dv = f"{VR}"
        ilay = (f"pto.BLayout.{bl}, {svr}, {svc}{box}" if cfg.mode == "elem"
                else f"pto.BLayout.RowMajor, {svr}, {svc}")
        ln += [f"{i}idx = pto.Tile[pto.TileType.Vec, {I}, {ir}, {ic}, {ilay}]({iv})",
               f"{i}dst = pto.Tile[pto.TileType.Vec, {T}, {R}, {C}, pto.BLayout.{bl}, {sr}, {sc}{box}]({dv})",
               f"{i}pto.TASSIGN(idx, {L['idx_addr']:#x})",
               f"{i}pto.TASSIGN(dst, {L['dst_addr']:#x})"]
        ln += fill_lines(cfg, "ub", L["dst_addr"], R * C * L["T"], i)
        ln += array_lines("ii", idx.reshape(ivr, ivc), f"np.{idx.dtype.name}", i)
        ln.append(f"{i}idx.set(ii)")
        call = f"pto.MGATHER[{cm}](dst, table, idx)"
    else:
        n = idx.size
        shp = f"pto.Shape[1, 1, 1, {VR}, {VC}]" if cfg.mode == "elem" else f"pto.Shape[1, 1, 1, 1, {n}]"
        std = (f"pto.Stride[{n}, {n}, {n}, {VC}, 1]" if cfg.mode == "elem"
               else f"pto.Stride[{n}, {n}, {n}, {n}, 1]")
        ln += array_lines("ii", idx.reshape(VR, VC) if cfg.mode == "elem" else idx.reshape(1, n),
                     f"np.{idx.dtype.name}", i)
        ln.append(f"{i}gidx = pto.GlobalTensor[{I}, {shp}, {std}, pto.Layout.ND](core.gm_put(ii))")
        R, C = L["dst_shape"]
        ln += [f"{i}dst = pto.Tile[pto.TileType.Mat, {T}, {R}, {C}, pto.BLayout.ColMajor, {VR}, {VC}, "
               f"pto.SLayout.RowMajor, 512]()",
               f"{i}pto.TASSIGN(dst, 0x0)"]
        ln += fill_lines(cfg, "l1", 0, R * C * L["T"], i)
        if cfg.mode == "row":
            call = f"pto.MGATHER[{cm}](dst, table, gidx)"
        else:
            RC = R * C
            ln.append(f"{i}scratch = pto.GlobalTensor[{T}, pto.Shape[1, 1, 1, 1, {RC}], "
                      f"pto.Stride[{RC}, {RC}, {RC}, {RC}, 1], pto.Layout.ND](core.gm_alloc({RC}, {T}))")
            from ...targets import get_target
            simt = get_target(cfg.target).mgather.simt
            ex = (", pto.GatherExec.Simt" if cfg.exec == "simt" else
                  ", pto.GatherExec.Scalar" if cfg.exec == "scalar" and simt else "")
            call = f"pto.MGATHER[{cm}{ex}](dst, table, gidx, scratch)"
    outs, shows = "dst.raw()", "dst.numpy()"
    return call, outs, shows
