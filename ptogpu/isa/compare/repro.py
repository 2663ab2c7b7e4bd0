"""TCMP's, TCMPS's and TSEL's reproducer lines (what ``config.CompareInstr.program`` does, spelled
with the public API)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...fuzz.repro import array_lines, dtype_text, fill_lines


def lines(cfg, L: dict, vals: np.ndarray, ln: list[str], i: str):
    """Appends the set-up lines; returns (call, outputs expression, shown expression)."""
    from ...isa import by_name
    instr = by_name(cfg.instr).hook("fuzz")
    call, T = instr.call, dtype_text(cfg.dtype)
    (R, C), (mr, mc) = L["src_shape"], L["mask_shape"]
    sel = call in ("TSEL", "TSELS")
    valid = f", pto.BLayout.RowMajor, {cfg.rows}, {-(-cfg.cols // 8)}" if not sel else ""
    ln += [f"{i}D = pto.Tile[pto.TileType.Vec, {T}, {R}, {C}, pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]",
           f"{i}M = pto.Tile[pto.TileType.Vec, pto.uint8, {mr}, {mc}{valid}]",
           f"{i}s0, s1, mask, tmp = D(), D(), M(), pto.Tile[pto.TileType.Vec, pto.uint8, 1, 32]()",
           f"{i}dst = {'D' if sel else 'M'}()"]
    for name, key in (("s0", "src0_addr"), ("s1", "src1_addr"), ("mask", "mask_addr"), ("tmp", "tmp_addr"),
                      ("dst", "dst_addr")):
        ln.append(f"{i}pto.TASSIGN({name}, {L[key]:#x})")
    ln += fill_lines(cfg, "ub", L["dst_addr"], L["out_bytes"], i)
    st = np.dtype(f"u{dtypes.storage(dtypes.as_dtype(cfg.dtype)).itemsize}")
    for (part, v), var in zip(instr._split(cfg, np.asarray(vals).view(np.uint64)).items(), ("v0", "v1", "v2")):
        if part == "scalar":
            ln.append(f"{i}s = np.{st.name}({int(v.astype(st)[0])}).view({T})   # T s = src1.GetValue(0)")
        elif part == "mask":
            ln += array_lines(var, v.astype(np.uint8).reshape(cfg.rows, mc), "np.uint8", i)
            ln.append(f"{i}mask.set({var})")
        else:
            ln += array_lines(var, v.astype(st).reshape(cfg.rows, cfg.cols), f"np.{st.name}", i, f".view({T})")
            ln.append(f"{i}{'s0' if part == 'src0' else 's1'}.set({var})")
    second = "s" if cfg.op.endswith(".scalar") else "s1"
    args = {"TSEL": "dst, mask, s0, s1, tmp", "TSELS": "dst, mask, s0, tmp, s"}.get(
        call, f"dst, s0, {second}, pto.CmpMode.{cfg.op.split('.')[0].upper()}")
    return f"pto.{call}({args})", "dst.raw()", "dst.raw()"
