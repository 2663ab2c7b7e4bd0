"""A Python kernel traced into a PTO IR module: the kernel runs once on a single core with its
buffers, every ``pto.NAME`` call it makes is recorded (its template arguments, operands, tile
types and addresses, scalars), and the calls are written as the ops PTOAS lowers to those calls
(the inverse of ``ptoir.ops``), in order. A run of calls that repeats -- the same instructions
on the same tiles, GlobalTensor offsets and integer scalars stepping by a constant -- is written
as an ``scf.for`` over its body, the offsets and scalars computed from the induction variable
(the loops the kernel's Python ran, found again in its calls).

A kernel is traced twice, on zeroed inputs and on its generator's first instance: a kernel
whose calls differ between the two decides on data it reads, and is not a static program
(``TraceError`` says so; it runs as a Python kernel does). A call with no PTO IR form (a
template form PTOAS has no spelling for, a register instruction) is a ``TraceError`` naming it.
Calls are recorded through the ``ptogpu`` module's names while the kernel runs; a call made
through a name bound before (``from ptogpu import TADD``) is found by the core's call count and
refused."""
from __future__ import annotations

import contextlib
import copy
import threading

import numpy as np

from .. import dtypes
from ..ops.template import label
from .syntax import Func, Module, Op
from .types import SPELLING, tile_text

NAMES = ("TLOAD", "TSTORE", "MGATHER", "MSCATTER", "TGATHER", "TGATHERB", "TSCATTER", "TMOV", "TCVT", "TCI",
         "TEXPANDS", "TCMP", "TCMPS", "TSEL", "TSELS", "TSORT32", "TMRGSORT",
         "TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TAND", "TOR", "TXOR", "TSHL", "TSHR", "TABS", "TNEG", "TNOT",
         "TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS", "TMINS", "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS",
         "TINTERLEAVE", "TDEINTERLEAVE", "set_flag", "wait_flag", "pipe_barrier")
"""The public calls a trace records (the rest of ``ptogpu`` is set-up or inspection)."""
_LOCK = threading.Lock()


K_MAX = 64
"""The most calls a loop body the trace finds may hold."""


class TraceError(ValueError):
    """A kernel that is not a static program of calls with PTO IR forms (the message says which)."""


class _NoLoop(Exception):
    """A repeated run of calls that PTO IR cannot write as a loop here (written out instead)."""


def _integer(a) -> bool:
    """An integer scalar operand (not a bool, not an enum case)."""
    import enum
    return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_, enum.Enum))


class _Var:
    """An operand that steps with a loop's induction variable: ``base + iv * step`` (a
    GlobalTensor's element offset, or an integer scalar)."""

    def __init__(self, orig, base: int, step: int, iv: str):
        self.orig, self.base, self.step, self.iv = orig, base, step, iv


class _Rec:
    def __init__(self, name, given, args):
        self.name, self.given, self.args = name, given, args


class _Proxy:
    """``pto.NAME`` while a trace runs: records the outermost call, then makes it."""

    def __init__(self, tracer, name, real, given=()):
        self.tracer, self.name, self.real, self.given = tracer, name, real, given

    def __getitem__(self, args):
        return _Proxy(self.tracer, self.name, self.real[args], self.given + (args if isinstance(args, tuple) else (args,)))

    def __call__(self, *args, **kw):
        t = self.tracer
        t.depth += 1
        try:
            got = self.real(*args, **kw)
        finally:
            t.depth -= 1
        if t.depth == 0:                  # operands as the call left them (placed), before a later TASSIGN moves them
            t.calls.append(_Rec(self.name, self.given, tuple(copy.copy(a) if hasattr(a, "addr") else a
                                                             for a in args)))
        return got


class Tracer:
    def __init__(self):
        self.calls: list[_Rec] = []
        self.depth = 0

    @contextlib.contextmanager
    def installed(self):
        import ptogpu
        with _LOCK:
            saved = {n: getattr(ptogpu, n) for n in NAMES}
            try:
                for n, f in saved.items():
                    setattr(ptogpu, n, _Proxy(self, n, f))
                yield self
            finally:
                for n, f in saved.items():
                    setattr(ptogpu, n, f)


def record(fn, ptrs_of, target: str = "cpu") -> tuple[list, dict]:
    """The calls ``fn`` makes on a single core of ``target``; ``ptrs_of(core)`` makes its buffers
    (name -> pointer). Returns (records, name -> (pointer, elements))."""
    import ptogpu as pto
    tr = Tracer()
    with pto.Core(target, "numpy") as core:
        ptrs = ptrs_of(core)
        with tr.installed(), core.calls() as log:
            try:
                fn(**{n: p for n, (p, _) in ptrs.items()})
            except pto.PtoFault as e:
                raise TraceError(f"the kernel faulted while traced ({e}): give inputs it runs on") from None
    logged = len(log.calls)
    mine = sum(1 for r in tr.calls if r.name not in ("set_flag", "wait_flag", "pipe_barrier"))
    if logged != mine:
        raise TraceError(f"the kernel made {logged} instruction calls, {mine} of them through ptogpu's names: call "
                         "instructions as pto.NAME (a name bound before the trace, `from ptogpu import X`, is not seen)")
    return tr.calls, ptrs


def trace_program(prog) -> Module:
    """The module of program ``prog`` (``execution.program.Program``): its kernel traced on its
    buffers (fixed arrays as given, inputs zeroed and then instance 0 of their generators)."""
    from ..execution.inputs import draw

    def buffers(fill):
        def make(core):
            out = {}
            for n, a in prog.fixed.items():
                arr = np.ascontiguousarray(np.asarray(a)).reshape(-1)
                out[n] = (core.gm_put(arr), arr.size)
            for n, g in prog.inputs.items():
                dt = dtypes.as_dtype(g.dtype)
                count = int(np.prod(g.shape))
                arr = np.zeros(count, dt) if fill is None else np.asarray(fill[n]).reshape(-1)[:count].astype(dt)
                out[n] = (core.gm_put(arr), count)
            for n, (count, dt) in prog.outputs.items():
                out[n] = (core.gm_alloc(int(count), dtypes.as_dtype(dt)), int(count))
            return out
        return make

    target = (prog.pair or "cpu").split(":")[0].split("@")[0].split(".")[0]   # (its first side compiles it)
    zeros = record(prog.fn, buffers(None), target)
    first = {n: v[0] for n, v in draw(prog.inputs, 0, np.arange(1)).items()} if prog.inputs else None
    text0 = module_of(prog, *zeros)
    if first is not None:
        try:
            again = record(prog.fn, buffers(first), target)
        except TraceError:
            again = None
        if again is not None and module_of(prog, *again) != text0:
            raise TraceError("its calls differ between two inputs (it decides on values it reads): it runs as a "
                             "Python kernel, not a traced program")
    return text0


def module_of(prog, calls: list, ptrs: dict) -> Module:
    name = getattr(prog.fn, "__name__", "kernel")
    return _Writer(ptrs).module(name, calls)


class _Writer:
    def __init__(self, ptrs: dict):
        self.ptrs = ptrs
        self.head: list[Op] = []          # constants and tiles, before everything (loops use them)
        self.ops: list[Op] = []
        self.sink = self.ops              # where the next op goes (a loop's body while it is written)
        self.consts: dict = {}
        self.tiles: dict = {}
        self.n = 0

    def module(self, name: str, calls: list) -> Module:
        args = []
        for n, (p, _) in self.ptrs.items():
            args.append((f"%{n}", f"!pto.ptr<{SPELLING[dtypes.name_of(p.dtype)]}>"))
        keys = [self.key(rec) for rec in calls]
        for item in plan([k for k, _ in keys], [v for _, v in keys]):
            if item[0] == "call":
                self.call(calls[item[1]])
                continue
            _, i, k, m, steps = item
            try:
                self.loop([calls[i + j] for j in range(k)], [keys[i + j][1] for j in range(k)], steps, m)
            except _NoLoop:
                for rec in calls[i: i + k * m]:
                    self.call(rec)
        self.ops.append(Op("ret", "return", 0, 0))
        return Module([Func(name, args, self.head + self.ops, {}, 0)], {}, f"{name}.pto")

    def key(self, rec: _Rec) -> tuple[tuple, tuple]:
        """A call's shape (what a loop's iterations share) and its numbers (what may step):
        GlobalTensor element offsets and integer scalars."""
        from ..tensor import GlobalTensor
        from ..tile import Tile
        shape, nums = [rec.name, tuple(label(x) for x in rec.given)], []
        for a in rec.args:
            if isinstance(a, Tile):
                shape.append(("T", tile_text(type(a)), a.addr, a.GetValidRow(), a.GetValidCol()))
            elif isinstance(a, GlobalTensor):
                n, off = self.where(a)
                shape.append(("G", n, dtypes.name_of(a.Element), tuple(int(a.GetShape(k)) for k in range(5)),
                              tuple(int(a.GetStride(k)) for k in range(5)), a.layout.name))
                nums.append(off)
            elif _integer(a):
                shape.append(("I",))
                nums.append(int(a))
            else:
                shape.append(("X", type(a).__name__, repr(a)))
        return tuple(shape), tuple(nums)

    def loop(self, body: list, nums: list, steps: list, m: int) -> None:
        """``scf.for %i = 0 to m`` over ``body`` (the first iteration's calls), each stepping
        number ``base + %i * step``."""
        from ..tensor import GlobalTensor
        iv = self._fresh("i")
        ops, saved = [], self.sink
        self.sink = ops
        try:
            for rec, base, step in zip(body, nums, steps):
                args, q = list(rec.args), 0
                for p, a in enumerate(args):
                    if isinstance(a, GlobalTensor) or _integer(a):
                        if step[q]:
                            args[p] = _Var(a, base[q], step[q], iv)
                        q += 1
                self.call(_Rec(rec.name, rec.given, tuple(args)))
        finally:
            self.sink = saved
        lo, hi, one = self.const(0, "index"), self.const(int(m), "index"), self.const(1, "index")
        self.sink.append(Op("for_loop", "scf.for", 0, 0, result=iv, ins=[lo, hi, one], body=ops,
                            extra={"results": None, "iter": []}))

    def stepped(self, var: _Var) -> str:
        """``base + iv * step`` as an index value, in the loop's body."""
        x = var.iv
        if var.step != 1:
            y = self._fresh("s")
            self.sink.append(Op("binop", "arith.muli", 0, 0, result=y, ins=[x, self.const(int(var.step), "index")],
                                types=["index"]))
            x = y
        if var.base:
            y = self._fresh("s")
            self.sink.append(Op("binop", "arith.addi", 0, 0, result=y, ins=[x, self.const(int(var.base), "index")],
                                types=["index"]))
            x = y
        return x

    def _fresh(self, stem: str) -> str:
        self.n += 1
        return f"%{stem}{self.n}"

    def const(self, v, t: str) -> str:
        key = (repr(v), t)
        if key not in self.consts:
            if isinstance(v, int):
                name = f"%c{v}".replace("-", "m") + ("" if t == "index" else f"_{t}")
            else:
                name = f"%cst{len(self.consts)}_{t}"
            self.consts[key] = name
            self.head.append(Op("constant", "arith.constant", 0, 0, result=name, extra={"value": v}, types=[t]))
        return self.consts[key]

    def tile(self, t) -> tuple[str, str]:
        """The value and type of a Tile operand: one alloc_tile per (type, address)."""
        from ..enums import DYNAMIC
        from ..errors import PtoIRError
        try:
            ty = tile_text(type(t))
        except PtoIRError as e:
            raise TraceError(str(e)) from None
        key = (ty, t.addr, t.GetValidRow() if type(t).ValidRow == DYNAMIC else None,
               t.GetValidCol() if type(t).ValidCol == DYNAMIC else None)
        if key not in self.tiles:
            name = self._fresh("t")
            extra = {"addr": self.const(int(t.addr), "i64")}
            if key[2] is not None:
                extra["valid_row"] = self.const(int(key[2]), "index")
            if key[3] is not None:
                extra["valid_col"] = self.const(int(key[3]), "index")
            self.head.append(Op("alloc", "pto.alloc_tile", 0, 0, result=name, extra=extra, out_types=[ty]))
            self.tiles[key] = name
        return self.tiles[key], ty

    def where(self, gt) -> tuple[str, int]:
        """The buffer a GlobalTensor lies in and its element offset there."""
        el = dtypes.name_of(gt.Element)
        for n, (p, count) in self.ptrs.items():
            lo, hi = p.addr, p.addr + count * p.dtype.itemsize
            if lo <= gt.addr < hi:
                break
        else:
            raise TraceError(f"a GlobalTensor at GM {gt.addr:#x} is in none of the kernel's buffers")
        if dtypes.name_of(p.dtype) != el or (gt.addr - lo) % gt.Element.itemsize:
            raise TraceError(f"a GlobalTensor of {el} over buffer {n} ({dtypes.name_of(p.dtype)}): PTO IR views take "
                             "their pointer's element type")
        return n, (gt.addr - lo) // gt.Element.itemsize

    def view(self, gt, var: _Var | None = None) -> tuple[str, str]:
        """A GlobalTensor operand as a partition of a 5-D tensor view over its argument (its
        offset stepping with a loop's ``var``)."""
        el = dtypes.name_of(gt.Element)
        n, off = self.where(gt)
        base = f"%{n}"
        ptype = f"!pto.ptr<{SPELLING[el]}>"
        if off or var is not None:
            q = self._fresh("p")
            at = self.stepped(var) if var is not None else self.const(int(off), "index")
            self.sink.append(Op("addptr", "pto.addptr", 0, 0, result=q, ins=[base, at], types=[ptype], out_types=[ptype]))
            base = q
        shape = [int(gt.GetShape(k)) for k in range(5)]
        stride = [int(gt.GetStride(k)) for k in range(5)]
        dims = "x".join(map(str, shape)) + "x" + SPELLING[el]
        vt, pt = f"!pto.tensor_view<{dims}>", f"!pto.partition_tensor_view<{dims}>"
        v = self._fresh("v")
        lay = gt.layout.name.lower()
        self.sink.append(Op("tview", "pto.make_tensor_view", 0, 0, result=v, ins=[base],
                            extra={"shape": [self.const(s, "index") for s in shape],
                                   "strides": [self.const(s, "index") for s in stride]},
                            attrs={} if lay == "nd" else {"layout": f"#pto.layout<{lay}>"}, out_types=[vt]))
        p_ = self._fresh("g")
        zero = self.const(0, "index")
        self.sink.append(Op("pview", "pto.partition_view", 0, 0, result=p_, ins=[v],
                            extra={"offsets": [zero] * 5, "sizes": [self.const(s, "index") for s in shape]},
                            types=[vt], out_types=[pt]))
        return p_, pt

    def operand(self, x, scalar_type: str | None = None) -> tuple[str, str]:
        from ..tensor import GlobalTensor
        from ..tile import Tile
        if isinstance(x, _Var):
            if isinstance(x.orig, GlobalTensor):
                return self.view(x.orig, x)
            if scalar_type not in ("i8", "i16", "i32", "i64"):
                raise _NoLoop                 # (a stepping scalar of another type: written out)
            y = self._fresh("s")
            self.sink.append(Op("cast", "arith.index_cast", 0, 0, result=y, ins=[self.stepped(x)], types=["index"],
                                out_types=[scalar_type]))
            return y, scalar_type
        if isinstance(x, Tile):
            return self.tile(x)
        if isinstance(x, GlobalTensor):
            return self.view(x)
        if isinstance(x, (bool, np.bool_)):
            raise TraceError(f"a bool operand {x!r} has no PTO IR scalar here")
        if isinstance(x, (int, float, np.integer, np.floating)) and scalar_type:
            v = float(x) if scalar_type.startswith(("f", "bf")) else int(x)
            return self.const(v, scalar_type), scalar_type
        raise TraceError(f"an operand of type {type(x).__name__} has no PTO IR form")

    def dps(self, name: str, outs: list, ins: list, attrs: dict | None = None, scalar: str | None = None,
            inner: dict | None = None) -> None:
        iv, it = zip(*[self.operand(x, scalar) for x in ins]) if ins else ((), ())
        ov, ot = zip(*[self.operand(x) for x in outs]) if outs else ((), ())
        extra = {"inner": sorted(inner), "style": ","} if inner else {}
        self.sink.append(Op("dps", f"pto.{name}", 0, 0, ins=list(iv), outs=list(ov), types=list(it),
                            out_types=list(ot), attrs={**(inner or {}), **(attrs or {})}, extra=extra))

    def call(self, rec: _Rec) -> None:
        from ..enums import CmpMode, MaskPattern, RoundMode, SaturationMode
        from . import ops as O
        n, g, a = rec.name, rec.given, rec.args
        low = n.lower()
        if n in ("set_flag", "wait_flag"):
            self.sink.append(Op("event", f"pto.{n}", 0, 0, ins=[f"#pto.pipe<{a[0].name}>", f"#pto.pipe<{a[1].name}>",
                                                             f"#pto.event<{a[2].name}>"]))
            return
        if n == "pipe_barrier":
            self.sink.append(Op("barrier", "pto.barrier", 0, 0, ins=[f"#pto.pipe<{a[0].name}>"]))
            return
        def refuse(why=""):
            raise TraceError(f"{n}{'[' + ', '.join(map(label, g)) + ']' if g else ''}: no PTO IR form{why}")
        if n == "TLOAD":
            return self.dps("tload", [a[0]], [a[1]])
        if n == "TSTORE":
            return self.dps("tstore", [a[0]], [a[1]])
        if n in ("MGATHER", "MSCATTER"):
            if g or len(a) != 3:
                refuse(f" (pto.{low} lowers to the plain {n}(...) with three operands)")
            return self.dps(low, [a[0]], [a[1], a[2]])
        if n in ("TCMP", "TCMPS"):
            if g or len(a) != 4 or not isinstance(a[3], CmpMode):
                refuse()
            el = SPELLING[a[1].DType]
            return self.dps(low, [a[0]], [a[1], a[2]], {"cmpMode": f"#pto<cmp {a[3].name.lower()}>"}, scalar=el)
        if n == "TCVT":
            if g or not isinstance(a[2], RoundMode) or len(a) > 4 or (len(a) == 4 and not isinstance(a[3], SaturationMode)):
                refuse()
            attrs = {"rmode": f"#pto<round_mode {a[2].name.replace('CAST_', '') if a[2] != RoundMode.CAST_RINT else 'CAST_RINT'}>"}
            if len(a) == 4:
                attrs["sat_mode"] = f"#pto<saturation_mode {a[3].name}>"
            return self.dps("tcvt", [a[0]], [a[1]], attrs)
        if n == "TCI":
            if len(g) != 3 or len(a) != 2:
                refuse()
            t = SPELLING[dtypes.name_of(g[1])]
            return self.dps("tci", [a[0]], [a[1]], {"descending": bool(g[2])} if g[2] else {}, scalar=t)
        if n == "TGATHER":
            if not g and len(a) == 4:
                return self.dps("tgather", [a[0]], list(a[1:]))
            if len(g) == 1 and isinstance(g[0], MaskPattern) and len(a) == 2:
                return self.dps("tgather", [a[0]], [a[1]], inner={"maskPattern": f"#pto.mask_pattern<{g[0].name}>"})
            refuse()
        if n == "TMRGSORT":
            if g or len(a) != 3:
                refuse(" (only the single-list TMRGSORT(dst, src, blockLen))")
            return self.dps("tmrgsort", [a[0]], [a[1], a[2]], scalar="i32")
        if n in ("TSELS", "TEXPANDS") or n in (x.upper() for x in O.SCALAR):
            if g:
                refuse()
            src = a[1] if n != "TSELS" else a[2]
            el = SPELLING[a[0].DType] if n != "TSELS" else SPELLING[src.DType]
            return self.dps(low, [a[0]], list(a[1:]), scalar=el)
        if n in ("TGATHERB", "TSCATTER", "TSEL", "TSORT32", "TMOV") or low in O.BINARY or low in O.UNARY:
            if g:
                refuse()
            return self.dps(low, [a[0]], list(a[1:]))
        refuse()


def plan(shapes: list, nums: list) -> list:
    """The calls as ``("call", i)`` and ``("loop", i, k, m, steps)``: calls ``i .. i+k*m-1`` are
    ``m`` iterations of a body of ``k`` calls whose shapes repeat and whose numbers step by
    ``steps`` (per call, per number) each iteration. Greedy from the first call: the repeat
    covering the most calls (the shortest body on a tie), where it saves two calls or more."""
    ids: dict = {}
    sid = [ids.setdefault(x, len(ids)) for x in shapes]
    n, i, out = len(sid), 0, []
    while i < n:
        best = None
        for k in range(1, min(K_MAX, (n - i) // 2) + 1):
            if sid[i + k] != sid[i] or sid[i: i + k] != sid[i + k: i + 2 * k]:
                continue
            steps = [tuple(b - a for a, b in zip(nums[i + j], nums[i + k + j])) for j in range(k)]
            m = 2
            while (i + (m + 1) * k <= n and sid[i + m * k: i + (m + 1) * k] == sid[i: i + k]
                   and all(nums[i + m * k + j] == tuple(a + m * d for a, d in zip(nums[i + j], steps[j]))
                           for j in range(k))):
                m += 1
            if best is None or k * m > best[1] * best[2]:
                best = (i, k, m, steps)
        if best is not None and best[1] * (best[2] - 1) >= 2:
            out.append(("loop", *best))
            i += best[1] * best[2]
        else:
            out.append(("call", i))
            i += 1
    return out


def trace(ref: str) -> str:
    """PTO IR text of the kernel ``ref`` names (``path.py:fn`` with its FUZZ dict)."""
    from ..execution.program import load
    from .printer import module_text
    return module_text(trace_program(load(ref)))


__all__ = ["trace", "trace_program", "TraceError"]
