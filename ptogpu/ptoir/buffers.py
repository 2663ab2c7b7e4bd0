"""The buffers of a PTO IR kernel for a campaign, read from how the function uses its pointer
arguments (a ``.pto`` file has no ``FUZZ`` dict):

- an argument the kernel only writes (``tstore`` / ``mscatter`` into its views) is an output;
  one it both reads and writes is an output too (zeroed before the run, compared after);
- one it only reads is an input: integers whose tile feeds an index operand (``mgather``,
  ``tgather``, ``tgatherb``, ``mscatter``) get ``pto.fuzz.indices`` capped by the gathered
  view's element count, other integers and floats ``pto.fuzz.values``;
- each buffer holds every element its views reach (in a loop with constant bounds, at every
  induction value).

A Python file beside the module, ``NAME.fuzz.py`` for ``NAME.pto``, may define ``FUZZ =
dict(inputs=..., outputs=..., fixed=..., pair=...)`` as a Python kernel's file does: each buffer
it names replaces the one read here."""
from __future__ import annotations

import importlib.util
import os

import numpy as np

from .. import dtypes
from ..execution.inputs import indices, values
from ..errors import PtoIRError
from . import types as T
from .run import PtoKernel

INDEX_OPERANDS = {"pto.mgather": (1, "ins", 0), "pto.tgather": (1, "ins", 0), "pto.tgatherb": (1, "ins", 0),
                  "pto.mscatter": (1, "outs", 0)}
"""op -> (its index operand's position in ins, where what it indexes is: ins for the gathers,
outs for mscatter's view)."""


def _walk(ops):
    for op in ops:
        yield op
        yield from _walk(op.body)


def infer(kernel: PtoKernel) -> dict:
    """``FUZZ``-style dict of the kernel's buffers (module docstring)."""
    from ..execution.inputs import indices, values
    ops = list(_walk(kernel.func.ops))
    root = {v: v for _, _, v in kernel.params}                   # value -> the argument it views
    extent = {}                                                   # view value -> elements it reaches
    ranges = _ranges(ops)
    consts = {v: lo for v, (lo, hi) in ranges.items() if lo == hi}
    base = {v: 0 for v in root}                                   # pointer value -> the most elements past its argument
    for op in ops:
        if op.kind in ("tview", "pview", "addptr") and op.ins[0] in root:
            root[op.result] = root[op.ins[0]]
        if op.kind == "addptr" and op.ins[0] in base:
            off = ranges.get(op.ins[1], (None, None))[1]             # (in a loop: its last iteration's)
            base[op.result] = base[op.ins[0]] + off if isinstance(off, int) and base[op.ins[0]] is not None else None
    views = {}
    for op in ops:
        if op.kind == "tview" and op.ins[0] in root:
            shape = [consts.get(v, v) for v in op.extra["shape"]]
            strides = [consts.get(v, v) for v in op.extra["strides"]]
            b = base.get(op.ins[0])
            if all(isinstance(x, int) for x in shape + strides) and b is not None:
                views[op.result] = (strides, b)
                n = 1 + sum((a - 1) * s for a, s in zip(shape, strides)) if all(a > 0 for a in shape) else 0
                full = extent.get(root[op.ins[0]], 0)
                extent[root[op.ins[0]]] = max(full, b + n)
    # an argument whose every partition has constant offsets holds what those reach
    reach: dict = {}
    for op in ops:
        if op.kind == "pview" and op.ins[0] in views:
            offs = [consts.get(v, v) for v in op.extra["offsets"]]
            sizes = [consts.get(v, v) for v in op.extra["sizes"]]
            r = root[op.ins[0]]
            if reach.get(r, 0) is None or not all(isinstance(x, int) for x in offs + sizes):
                reach[r] = None
                continue
            st, b = views[op.ins[0]]
            hi = b + sum(o * s for o, s in zip(offs, st)) + sum((z - 1) * s for z, s in zip(sizes, st)) + 1
            reach[r] = max(reach.get(r, 0), hi)
    for r, hi in reach.items():
        if hi is not None and hi > 0:
            extent[r] = min(extent.get(r, hi), hi)
    written, tile_from, index_tiles = set(), {}, {}
    for op in ops:
        if op.kind != "dps":
            continue
        for v in op.outs:
            if v in root:
                written.add(root[v])
        if op.name == "pto.tload" and op.ins and op.ins[0] in root and op.outs:
            tile_from[op.outs[0]] = root[op.ins[0]]
        if op.name in INDEX_OPERANDS:
            k, side, t = INDEX_OPERANDS[op.name]
            target = getattr(op, side)
            if len(op.ins) > k and len(target) > t:
                index_tiles[op.ins[k]] = (target[t], _rows(op))
    cap_of, tables = {}, set()
    for tile, (indexed, rows) in index_tiles.items():
        src = tile_from.get(tile)
        if src is not None:
            cap_of[src] = (rows or extent.get(root.get(indexed))) if indexed in root else None
        if indexed in root and root[indexed] not in written:
            tables.add(root[indexed])
    out: dict = {"inputs": {}, "outputs": {}, "fixed": {}, "unknown": []}
    for name, el, v in kernel.params:
        n = extent.get(v, 0)
        if n <= 0:
            out["unknown"].append(name)
            continue
        if v in written:
            out["outputs"][name] = (n, el)
        elif v in tables and v not in cap_of:        # a gathered table: one array every instance shares
            out["fixed"][name] = _pattern(n, el)
        elif v in cap_of and el in ("int32", "int16", "uint32", "uint16", "int64"):
            out["inputs"][name] = indices(n, cap=max(1, cap_of[v] or n), dtype=el)
        else:
            out["inputs"][name] = values(n, el)
    return out


def _rows(op) -> int | None:
    """Rows of a gathered view when the gather reads whole rows (MGATHER's Row form: a dst of
    idx-count rows of the table's width): its indices are row numbers."""
    if op.name != "pto.mgather" or len(op.types) < 2 or not op.out_types:
        return None
    try:
        dims, _ = T.view_element(op.types[0], "")
        dst, _ = T.tile_class(op.out_types[0], "")
        idx, _ = T.tile_class(op.types[1], "")
    except PtoIRError:
        return None
    if len(dims) >= 2 and dims[-1] == dst.Cols and idx.Rows * idx.Cols == dst.Rows and dims[-2] > 0:
        return dims[-2]
    return None


def _pattern(n: int, el: str) -> np.ndarray:
    """A gathered table's contents: distinct small values (which element was read shows)."""
    dt = dtypes.as_dtype(el)
    v = np.arange(n) % 251 + 1
    return (v / 4).astype(dt) if dt.kind == "f" or el in ("bfloat16", "half") else v.astype(dt)


def _ranges(ops) -> dict:
    """value -> (least, most) of every integer value known before the run: constants, the
    induction variables of loops with constant bounds, and what ``arith`` adds, subtracts,
    multiplies and casts of them (the offsets a traced loop steps its views by)."""
    got: dict = {}
    for op in ops:
        if op.kind == "constant" and isinstance(op.extra["value"], int) and not isinstance(op.extra["value"], bool):
            got[op.result] = (int(op.extra["value"]),) * 2
        elif op.kind == "for_loop":
            bounds = [got.get(v) for v in op.ins[:3]]
            if all(x is not None and x[0] == x[1] for x in bounds):
                lb, ub, st = (x[0] for x in bounds)
                if st > 0 and ub > lb:
                    got[op.result] = (lb, lb + (ub - 1 - lb) // st * st)
        elif op.kind == "cast" and op.ins[0] in got:
            got[op.result] = got[op.ins[0]]
        elif op.kind == "binop" and op.ins[0] in got and op.ins[1] in got:
            (a, b), (c, d) = got[op.ins[0]], got[op.ins[1]]
            if op.name == "arith.addi":
                got[op.result] = (a + c, b + d)
            elif op.name == "arith.subi":
                got[op.result] = (a - d, b - c)
            elif op.name == "arith.muli":
                ends = (a * c, a * d, b * c, b * d)
                got[op.result] = (min(ends), max(ends))
    return got


def sidecar(path: str) -> dict | None:
    """``NAME.fuzz.py``'s FUZZ dict beside ``NAME.pto``, or None."""
    side = os.path.splitext(path)[0] + ".fuzz.py"
    if not os.path.isfile(side):
        return None
    spec = importlib.util.spec_from_file_location("ptogpu_pto_fuzz_" + str(abs(hash(side))), side)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except Exception as e:
        raise PtoIRError(f"{side}: the file does not load: {type(e).__name__}: {e}") from None
    fz = getattr(mod, "FUZZ", None)
    if not isinstance(fz, dict):
        raise PtoIRError(f"{side}: defines no FUZZ = dict(inputs=..., outputs=..., fixed=...)")
    odd = [k for k in fz if k not in ("inputs", "outputs", "fixed", "pair", "scalars")]
    if odd:
        raise PtoIRError(f"{side}: FUZZ field {odd[0]!r} is not one of inputs, outputs, fixed, pair, scalars")
    return fz


def buffers(kernel: PtoKernel, path: str | None, side: dict | None = None) -> dict:
    """The kernel's FUZZ dict: read from the function, each buffer of ``side`` (``path``'s
    sidecar, read by the caller) replacing it."""
    got = infer(kernel)
    if side:
        named = {n for k in ("inputs", "outputs", "fixed") for n in (side.get(k) or {})}
        for k in ("inputs", "outputs", "fixed"):
            got[k] = {n: v for n, v in got[k].items() if n not in named}
            got[k].update(side.get(k) or {})
        if "pair" in side:
            got["pair"] = side["pair"]
        got["unknown"] = [n for n in got["unknown"] if n not in named]
    if got["unknown"]:
        raise PtoIRError(f"{kernel.module.source}:{kernel.func.line}:1: argument %{got['unknown'][0]} is never viewed "
                         f"with a constant shape: give its buffer in {os.path.basename(path or 'NAME') .rsplit('.', 1)[0]}"
                         ".fuzz.py's FUZZ dict")
    return got
