"""Reproducer scripts written with the public API only (``import ptogpu as pto``).

:func:`pair_script` prints a self-contained program a kernel author recognises: for each side
a ``with pto.Core(target, backend) as core:`` block that puts the table in GM, declares the
``GlobalTensor`` / ``Tile`` classes, ``TASSIGN``s the tiles, sets the (shrunk) index values and
calls the instruction exactly as in C++, catching ``pto.PtoFault``; it prints each side's
destination bytes and asserts that the two sides differ. The program does exactly what
:func:`ptogpu.execution.single.run_single` does (same arenas, same addresses, same allocation
order), so it reproduces what the shrinker saw; the tests exec every class's script."""
from __future__ import annotations

import numpy as np

from .. import dtypes, isa
from ..execution.config import FuzzConfig
from ..execution.instrs.base import LAYOUTS
from ..execution.single import cast_indices, layout


def dtype_text(name: str) -> str:
    return f"pto.{dtypes.name_of(dtypes.as_dtype(name))}"


def array_lines(var: str, arr: np.ndarray, dt: str, ind: str, view: str = "") -> list[str]:
    """``var = <arr>`` as short as possible: the full list when small or dense, else zeros
    plus the non-trivial entries."""
    arr = np.asarray(arr)
    vals = arr.astype(np.int64) if arr.dtype.kind in "iu" else arr
    nz = np.argwhere(vals != 0)
    shape = tuple(arr.shape)
    if not nz.size and arr.size > 8:
        return [f"{ind}{var} = np.zeros({shape}, {dt}){view}"]
    if arr.size <= 8 or len(nz) > 4:
        return [f"{ind}{var} = np.array({vals.tolist()}, {dt}){view}"]
    out = [f"{ind}{var} = np.zeros({shape}, {dt})"]
    for pos in nz:
        out.append(f"{ind}{var}[{', '.join(map(str, pos))}] = {int(vals[tuple(pos)])}")
    if view:
        out.append(f"{ind}{var} = {var}{view}")
    return out


def table_expr(cfg: FuzzConfig, n: int) -> str:
    """The fuzz table (1..97 repeating, ``config.table_values``) as a NumPy expression."""
    base = f"np.arange(1, {n + 1})" if n <= 97 else f"(np.arange({n}) % 97 + 1)"
    if dtypes.name_of(dtypes.as_dtype(cfg.dtype)) == "hifloat8":
        return f"{base}.astype(np.uint8)"             # hifloat8 is stored as its 8-bit code
    return f"{base}.astype({dtype_text(cfg.dtype)})"


def fill_lines(cfg: FuzzConfig, space: str, addr: int, nbytes: int, ind: str) -> list[str]:
    if not cfg.dst_fill:
        return []
    return [f"{ind}core.write({space!r}, {addr:#x}, bytes([{cfg.dst_fill:#04x}]) * {nbytes})"
            f"   # what the destination held before"]


def one_source_lines(cfg: FuzzConfig, L: dict, vals, D: str, ln: list[str], i: str, *, mat: bool = False) -> None:
    """The one-source set-up of ``DataOperands.place``: src (``src_shape``, or ``dst_shape``) and
    dst tiles of element types ``cfg.dtype`` and ``D``, their TASSIGNs, dst's fill, src's values
    (``mat``: dst an NZ Mat tile in L1)."""
    T = dtype_text(cfg.dtype)
    (sr, sc), (dr, dc) = L.get("src_shape", L["dst_shape"]), L["dst_shape"]
    loc, bl, sl = ("Mat", "ColMajor", ", pto.SLayout.RowMajor") if mat else ("Vec", "RowMajor", "")
    sbl, ssl = LAYOUTS[cfg.layout]
    ssl = f", pto.SLayout.{ssl}" if ssl != "NoneBox" else ""
    ln += [f"{i}src = pto.Tile[pto.TileType.Vec, {T}, {sr}, {sc}, pto.BLayout.{sbl}, {cfg.rows}, {cfg.cols}{ssl}]()",
           f"{i}dst = pto.Tile[pto.TileType.{loc}, {dtype_text(D)}, {dr}, {dc}, pto.BLayout.{bl}, {cfg.rows}, "
           f"{cfg.cols}{sl}]()",
           f"{i}pto.TASSIGN(src, {L['src_addr']:#x})", f"{i}pto.TASSIGN(dst, {L['dst_addr']:#x})"]
    ln += fill_lines(cfg, "l1" if mat else "ub", L["dst_addr"], L["out_bytes"], i)
    st = np.dtype(f"u{vals.dtype.itemsize}")
    ln += array_lines("v", vals.view(st).reshape(cfg.rows, cfg.cols), f"np.{st.name}", i, f".view({T})")
    ln.append(f"{i}src.set(v)")


def lines_of(instr: str):
    """An instruction's program as text (what ``execution.single`` runs): its declaration's
    ``repro`` hook (``ptogpu.isa``)."""
    return isa.by_name(instr).hook("repro")


def side_block(cfg: FuzzConfig, key: str, backend: str, values, before=None) -> list[str]:
    """One side: the instance of ``run_single(cfg, values, backend)`` spelled out.
    ``before(call, indent)``: lines to print first (what the call may do, say)."""
    L = layout(cfg)
    idx = cast_indices(cfg, np.asarray(values, np.int64).reshape(-1))
    q = f", quirks={cfg.core_quirks!r}" if cfg.core_quirks else ""
    i = "    "
    ln = [f"with pto.Core({cfg.target!r}, {backend!r}{q}) as core:   # side {key}"]
    call, outs, shows = lines_of(cfg.instr)(cfg, L, idx, ln, i)
    ln += before(call, i) if before else []
    ln += [f"{i}try:",
           f"{i}    {call}",
           f"{i}    fault = None",
           f"{i}except pto.PtoFault as e:",
           f"{i}    fault = f'PtoFault: {{e}}'",
           f"{i}out[{key!r}] = ({outs}.tobytes(), fault)",
           f"{i}print({key + ':'!r}, fault or {shows})",
           f"{i}print('   bytes:', out[{key!r}][0].hex())"]
    return ln


def side_key(s, other) -> str:
    """A side's name in the script: target, executor and backend where they tell it apart."""
    k = s.target + (f".{s.exec}" if s.exec != "auto" else "")
    ko = other.target + (f".{other.exec}" if other.exec != "auto" else "")
    return k + (f"@{s.backend}" if k == ko else "")


def pair_script(a: FuzzConfig, b: FuzzConfig, sa, sb, vals) -> str:
    """The two sides on one instance; the final assert checks they differ (bytes, or one
    faults and the other does not)."""
    ka, kb = side_key(sa, sb), side_key(sb, sa)
    lines = ["import numpy as np", "import ptogpu as pto", "", "out = {}   # side -> (destination bytes, fault)"]
    lines += side_block(a, ka, sa.backend, vals)
    lines += side_block(b, kb, sb.backend, vals)
    lines += [f"(bytes_a, fault_a), (bytes_b, fault_b) = out[{ka!r}], out[{kb!r}]",
              "assert bytes_a != bytes_b or (fault_a is None) != (fault_b is None), 'no divergence'"]
    return "\n".join(lines) + "\n"


def snippet(cfg: FuzzConfig, values, *, backend: str = "numpy", expect: dict | None = None) -> str:
    """A self-contained Python program (public API only) that runs this instance as
    :func:`run_single` does and prints the destination bytes (or the fault). ``expect`` maps
    target names to what the fuzzer saw, printed as a comment."""
    key = cfg.target + (f".{cfg.exec}" if cfg.exec != "auto" else "")
    lines = ["import numpy as np", "import ptogpu as pto", "", "out = {}   # side -> (destination bytes, fault)"]
    lines += side_block(cfg, key, backend, values)
    if expect:
        lines += [""] + [f"# fuzzer saw on {k}: {v}" for k, v in expect.items()]
    return "\n".join(lines) + "\n"
