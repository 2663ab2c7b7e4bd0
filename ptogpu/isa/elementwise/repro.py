"""The element-wise calls' reproducer lines (what ``config.ElementwiseInstr.program`` does,
spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ...fuzz.repro import array_lines, dtype_text, fill_lines


def lines(cfg, L: dict, vals: np.ndarray, ln: list[str], i: str):
    """Appends the set-up lines; returns (call, outputs expression, shown expression)."""
    from ...isa import by_name
    call = by_name(cfg.instr).calls[0]
    instr = by_name(cfg.instr).hook("fuzz")
    T, (R, C) = dtype_text(cfg.dtype), L["dst_shape"]
    if call in ("TEXPANDS", "TCI"):
        st = np.dtype(f"u{vals.dtype.itemsize}")
        ln += [f"{i}Tl = pto.Tile[pto.TileType.Vec, {T}, {R}, {C}, pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]",
               f"{i}dst = Tl()", f"{i}pto.TASSIGN(dst, {L['dst_addr']:#x})"]
        ln += fill_lines(cfg, "ub", L["dst_addr"], R * C * L["T"], i)
        ln.append(f"{i}s = np.{st.name}({int(vals.view(st)[0])}).view({T})   # T s = src.GetValue(0)")
        if call == "TCI":
            return f"pto.TCI[Tl, {T}, {int(cfg.op == 'desc')}](dst, s)", "dst.raw()", "dst.numpy()"
        return "pto.TEXPANDS(dst, s)", "dst.raw()", "dst.numpy()"
    n = cfg.rows * cfg.cols
    ln += [f"{i}T = pto.Tile[pto.TileType.Vec, {T}, {R}, {C}, pto.BLayout.RowMajor, {cfg.rows}, {cfg.cols}]",
           f"{i}s0, s1, tmp, dst = T(), T(), T(), T()"]
    for name, key in (("s0", "src0_addr"), ("s1", "src1_addr"), ("tmp", "tmp_addr"), ("dst", "dst_addr")):
        ln.append(f"{i}pto.TASSIGN({name}, {L[key]:#x})")
    ln += fill_lines(cfg, "ub", L["dst_addr"], R * C * L["T"], i)
    st = np.dtype(f"u{vals.dtype.itemsize}")
    for k in range(instr.arity):
        ln += array_lines(f"v{k}", vals[k * n:(k + 1) * n].view(st).reshape(cfg.rows, cfg.cols), f"np.{st.name}", i,
                          f".view({T})")
        ln.append(f"{i}s{k}.set(v{k})")
    if instr.scalar:
        sb = vals[n:n + 1].view(st)[0]
        ln.append(f"{i}s = np.{st.name}({int(sb)}).view({T})   # T s = src1.GetValue(0): the scalar's bits")
        return f"pto.{call}(dst, s0, s{', tmp' if call == 'TXORS' else ''})", "dst.raw()", "dst.numpy()"
    args = "dst, s0" if instr.arity == 1 else ("dst, s0, s1, tmp" if call == "TXOR" else "dst, s0, s1")
    return f"pto.{call}({args})", "dst.raw()", "dst.numpy()"
