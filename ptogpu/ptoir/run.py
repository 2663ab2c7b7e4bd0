"""A PTO IR function run as a kernel: ``PtoKernel(module, name)(**ptrs)`` walks its ops on the
current core, each instruction op as the pto-isa call it lowers to (``ptoir.ops``), views as
GlobalTensors, ``alloc_tile`` as a Tile (``addr``: TASSIGN; none: automatic placement),
``scf.for`` unrolled over its constant bounds, events as set_flag / wait_flag.

Every index value is static (constants and integer arithmetic on them): the program is the
same calls for every instance. ``check()`` walks it once without a core, so a module that
cannot run is a PtoIRError before any campaign starts."""
from __future__ import annotations

import contextlib
import inspect
import keyword
import os

import numpy as np

from .. import calls, dtypes
from ..enums import DYNAMIC
from ..errors import PtoCheckError, PtoIRError
from . import ops as O
from . import types as T
from .syntax import Func, Module, Op, parse

SYNC_PIPE = {"TLOAD": "MTE2", "TSTORE_VEC": "MTE3", "TSTORE_ACC": "FIX", "TMOV_M2L": "MTE1", "TMOV_M2B": "MTE1",
             "TMOV_M2S": "FIX", "TMOV_M2V": "V", "TMOV_V2M": "FIX", "TMATMUL": "M", "TVEC": "V", "TVECWAIT_EVENT": "V"}
"""``#pto.pipe_event_type<X>`` -> the pipe it names (PTOAS lib/PTO/IR/PTOSyncUtils.cpp:25-48)."""
MASK64 = (1 << 64) - 1
MAX_CALLS = 1 << 20
"""Instruction ops one run may make (loops unrolled): past it the module is refused when it is
loaded, not run for hours."""


def _compare(pred: str, a: int, b: int, where: str) -> bool:
    if pred.startswith("u"):
        a, b = a & MASK64, b & MASK64
    ops = {"eq": a == b, "ne": a != b, "slt": a < b, "sle": a <= b, "sgt": a > b, "sge": a >= b,
           "ult": a < b, "ule": a <= b, "ugt": a > b, "uge": a >= b}
    if pred not in ops:
        raise PtoIRError(f"{where}: arith.cmpi predicate {pred!r} is not one of {', '.join(ops)}")
    return ops[pred]


class View:
    """A ``make_tensor_view``: base pointer, shape and strides (elements), element type."""

    def __init__(self, ptr, shape, strides, dtype, layout):
        self.ptr, self.shape, self.strides, self.dtype, self.layout = ptr, shape, strides, dtype, layout


def _arith(name: str, a: int, b: int, where: str) -> int:
    n = name.split(".", 1)[1]
    if n in ("divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi") and b == 0:
        raise PtoIRError(f"{where}: {name} by zero")
    f = {"addi": lambda: a + b, "subi": lambda: a - b, "muli": lambda: a * b,
         "divsi": lambda: int(a / b), "divui": lambda: a // b, "remsi": lambda: a - b * int(a / b),
         "remui": lambda: a % b, "andi": lambda: a & b, "ori": lambda: a | b, "xori": lambda: a ^ b,
         "shli": lambda: a << b, "shrsi": lambda: a >> b, "shrui": lambda: a >> b, "maxsi": lambda: max(a, b),
         "minsi": lambda: min(a, b), "maxui": lambda: max(a, b), "minui": lambda: min(a, b),
         "floordivsi": lambda: a // b, "ceildivsi": lambda: -(-a // b)}[n]
    if n in ("shli", "shrsi", "shrui") and not 0 <= b < 64:
        raise PtoIRError(f"{where}: {name} by {b}")
    return f()


class PtoKernel:
    """Function ``name`` of a PTO IR module as a kernel: called with its pointer arguments by
    name (``%arg0`` -> ``arg0``), as ptogpu calls a Python kernel."""

    is_pto_ir = True

    def __init__(self, module: Module, name: str | None = None, text: str | None = None,
                 scalars: dict | None = None):
        self.module = module
        self.func: Func = module.func(name)
        if text is None:                                # (it travels to workers as text)
            from .printer import module_text
            text = module_text(module)
        self.text = text
        src = module.source if module.source.endswith(".pto") else module.source + ".pto"
        self.ref = f"{src}:{self.func.name}"           # (a campaign's name for it; ``.pto``: travels as text)
        self.params, self.scalars, self.named = [], {}, {}
        self._stack: list = []
        if self.func.results:
            raise PtoIRError(f"{self._where(self.func.line, 1)}: func.func @{self.func.name} returns "
                             f"{', '.join(self.func.results)}: a kernel returns nothing")
        scalars = dict(scalars or {})
        missing = []
        for v, t in self.func.args:
            where = self._where(self.func.line, 1)
            name = v[1:] if v[1:].isidentifier() else "arg_" + "".join(ch if ch.isalnum() else "_" for ch in v[1:])
            name = name + "_" if keyword.iskeyword(name) else name
            el = T.pointer_element(t, where)
            if el is not None:
                self.params.append((name, el, v))
                continue
            st = T.scalar(t)
            if st is None:
                raise PtoIRError(f"{where}: argument {v}: {t}: a kernel takes GM pointers (!pto.ptr<T>, a GM memref) "
                                 "and scalars (index, iN, fN)")
            if name not in scalars:
                missing.append(f"{name} ({t})")
                continue
            self.named[name] = scalars[name]
            self.scalars[v] = _constant(scalars.pop(name), t, where)
        if missing:
            raise PtoIRError(f"{self._where(self.func.line, 1)}: @{self.func.name} takes scalar arguments "
                             f"{', '.join(missing)}: give their values (FUZZ = dict(scalars={{...}}) in the .fuzz.py "
                             "beside the module, or load_text(..., scalars=))")
        if scalars:
            raise PtoIRError(f"{self._where(self.func.line, 1)}: @{self.func.name} has no scalar argument "
                             f"{', '.join(sorted(scalars))}")
        self.__name__ = self.__qualname__ = self.func.name
        self.__module__ = "ptogpu.ptoir"
        self.__signature__ = inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n, _, _ in self.params])
        self.check()

    def __reduce__(self):
        return (_rebuild, (self.text, self.module.source, self.func.name, self.named))

    def _where(self, line: int, col: int) -> str:
        return f"{self.module.source}:{line}:{col}"

    # -- the walk -----------------------------------------------------------------------------
    def __call__(self, **ptrs) -> None:
        import ptogpu as pto
        env = {}
        for n, el, v in self.params:
            if n not in ptrs:
                raise TypeError(f"{self.func.name}() missing argument {n!r}")
            got = _el_of(ptrs[n])
            if got != el:                   # what C++ would not compile: a float* passed as int32_t*
                raise PtoCheckError(f"{self._where(self.func.line, 1)}: argument {v} is a {T.SPELLING.get(el, el)} "
                                    f"pointer; given a {got} buffer", rule="PTO IR kernel arguments")
            env[v] = ptrs[n]
        env.update(self.scalars)
        self._block(pto, self.func.ops, env)

    def check(self) -> None:
        """Walk the function without a core: every value defined, every op and type read."""
        env = {v: _Fake(el) for n, el, v in self.params}
        env.update(self.scalars)
        self._weight, self._calls = 1, 0
        self._block(None, self.func.ops, env)

    def _block(self, pto, ops: list, env: dict) -> list:
        """Run ``ops``; what its ``scf.yield`` gives (empty without one)."""
        for op in ops:
            if op.kind in ("yield", "ret"):
                return [self._val(env, v, self._where(op.line, op.col)) for v in op.ins]
            self._op(pto, op, env)
        return []

    def _bind(self, names: list | None, vals: list, where: str, env: dict) -> None:
        names = names or []
        if len(names) == 1 and ":" in names[0]:
            base, n = names[0].split(":")
            names = [f"{base}#{k}" for k in range(int(n))]
        if len(names) != len(vals):
            raise PtoIRError(f"{where}: {len(names)} results, {len(vals)} values yielded")
        env.update(zip(names, vals))

    def _val(self, env: dict, name, where: str):
        if not isinstance(name, str):
            return name
        try:
            return env[name]
        except KeyError:
            raise PtoIRError(f"{where}: {name} is not defined before its use") from None

    def _int(self, env: dict, name, where: str) -> int:
        v = self._val(env, name, where)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise PtoIRError(f"{where}: {name} is not an integer constant")
        return int(v)

    def _op(self, pto, op: Op, env: dict) -> None:
        where = self._where(op.line, op.col)
        k = op.kind
        if k == "constant":
            v = op.extra["value"]
            t = op.types[0] if op.types else ("i1" if isinstance(v, bool) else "index")
            env[op.result] = _constant(v, t, where)
        elif k == "binop":
            env[op.result] = _arith(op.name, self._int(env, op.ins[0], where), self._int(env, op.ins[1], where), where)
        elif k == "cast":
            env[op.result] = self._int(env, op.ins[0], where)
        elif k == "tview":
            self._tview(op, env, where)
        elif k == "pview":
            self._pview(pto, op, env, where)
        elif k == "alloc":
            self._alloc(pto, op, env, where)
        elif k == "tassign":
            tile = self._val(env, op.ins[0], where)
            addr = self._int(env, op.ins[1], where)
            if pto is not None:
                pto.TASSIGN(tile, addr)
            env[op.result] = tile
        elif k == "dps":
            fn = O.TABLE.get(op.name)
            if fn is None:
                raise PtoIRError(f"{where}: op '{op.name}' is not emulated by ptogpu (docs/ptoir.md lists the ops it runs)")
            ins = [self._val(env, v, where) for v in op.ins]
            outs = [self._val(env, v, where) for v in op.outs]
            if pto is None:                  # counts, attributes, enum cases: read now
                pto = O.Checking()
                self._calls += self._weight
                if self._calls > MAX_CALLS:
                    raise PtoIRError(f"{where}: the loops around this op make more than {MAX_CALLS} instruction "
                                     "calls in one run: more than ptogpu unrolls")
            with _site(where):
                fn(pto, op, ins, outs, where)
        elif k in ("event", "barrier"):
            self._event(pto, op, env, where)
        elif k == "for_loop":
            lb, ub, st = (self._int(env, v, where) for v in op.ins[:3])
            if st <= 0:
                raise PtoIRError(f"{where}: scf.for step {st}: a loop runs with a positive constant step")
            carried = [self._val(env, v, where) for v in op.ins[3:]]
            names = op.extra.get("iter", [])
            trips = len(range(lb, ub, st))
            if pto is None:
                outer, self._weight = self._weight, self._weight * max(trips, 0)
            for i in range(lb, ub, st):
                env[op.result] = i
                env.update(zip(names, carried))
                got = self._block(pto, op.body, env)
                if len(got) != len(carried):
                    raise PtoIRError(f"{where}: scf.for carries {len(carried)} values, its body yields {len(got)}")
                carried = got
                if pto is None:              # checked once, with the first induction value
                    break
            if pto is None:
                self._weight = outer
            self._bind(op.extra.get("results"), carried, where, env)
        elif k == "if":
            cond = self._int(env, op.ins[0], where)
            if pto is None:                  # both branches checked; the then-branch's values kept
                other = self._block(None, op.orelse or [], dict(env))
                got = self._block(None, op.body, env)
                if op.orelse is not None and len(other) != len(got):
                    raise PtoIRError(f"{where}: scf.if branches yield {len(got)} and {len(other)} values")
            else:
                got = self._block(pto, op.body if cond else (op.orelse or []), env)
            self._bind(op.extra.get("results"), got, where, env)
        elif k == "blockq":                  # a campaign's instance is block 0 of a launch of 1
            env[op.result] = 0 if op.name.endswith("_idx") else 1
        elif k == "call":
            self._call(pto, op, env, where)
        elif k == "cmpi":
            a, b = (self._int(env, v, where) for v in op.ins)
            env[op.result] = int(_compare(op.extra["pred"], a, b, where))
        elif k == "select":
            c = self._int(env, op.ins[0], where)
            env[op.result] = self._val(env, op.ins[1] if c else op.ins[2], where)
        elif k == "addptr":
            env[op.result] = self._val(env, op.ins[0], where) + self._int(env, op.ins[1], where)
        # ret: nothing to do

    def _call(self, pto, op: Op, env: dict, where: str) -> None:
        """``func.call``: the callee's body on its arguments (inlined: one program)."""
        name = op.extra["callee"]
        callee = next((f for f in self.module.funcs if f.name == name), None)
        if callee is None:
            raise PtoIRError(f"{where}: func.call @{name}: no such function in the module")
        if name in self._stack or name == self.func.name:
            raise PtoIRError(f"{where}: func.call @{name} is recursive: a kernel's calls are inlined")
        if len(op.ins) != len(callee.args):
            raise PtoIRError(f"{where}: func.call @{name} with {len(op.ins)} arguments; it takes {len(callee.args)}")
        inner = dict(zip((v for v, _ in callee.args), (self._val(env, v, where) for v in op.ins)))
        self._stack.append(name)
        try:
            got = self._block(pto, callee.ops, inner)
        finally:
            self._stack.pop()
        if len(got) != len(op.extra.get("results") or []) and not (
                op.extra.get("results") and ":" in op.extra["results"][0]):
            if got or op.extra.get("results"):
                raise PtoIRError(f"{where}: func.call @{name} returns {len(got)} values, "
                                 f"{len(op.extra.get('results') or [])} results taken")
        self._bind(op.extra.get("results"), got, where, env)

    def _tview(self, op: Op, env: dict, where: str) -> None:
        ptr = self._val(env, op.ins[0], where)
        shape = [self._int(env, v, where) for v in op.extra["shape"]]
        strides = [self._int(env, v, where) for v in op.extra["strides"]]
        dims, el = T.view_element(op.out_types[0], where)
        if not 1 <= len(shape) <= 5 or len(shape) != len(strides) or len(dims) != len(shape):
            raise PtoIRError(f"{where}: make_tensor_view of {len(shape)} dims, {len(strides)} strides and a "
                             f"{len(dims)}-dim type: give 1 to 5 of each, alike")
        for d, s in zip(dims, shape):
            if d != DYNAMIC and d != s:
                raise PtoIRError(f"{where}: make_tensor_view shape {shape} does not match its type {op.out_types[0]}")
        if _el_of(ptr) != el:
            raise PtoIRError(f"{where}: make_tensor_view of {T.SPELLING.get(el, el)} over a "
                             f"{T.SPELLING.get(_el_of(ptr), '?')} pointer")
        layout = O.word(op.attrs.get("layout", "#pto.layout<nd>"), where)
        if layout not in ("nd", "dn", "nz"):
            raise PtoIRError(f"{where}: layout {layout!r} is not nd, dn or nz")
        env[op.result] = View(ptr, shape, strides, el, layout)

    def _pview(self, pto, op: Op, env: dict, where: str) -> None:
        v = self._val(env, op.ins[0], where)
        if not isinstance(v, View):
            raise PtoIRError(f"{where}: partition_view of {op.ins[0]}, which is not a tensor view")
        offs = [self._int(env, x, where) for x in op.extra["offsets"]]
        sizes = [self._int(env, x, where) for x in op.extra["sizes"]]
        if len(offs) != len(v.shape) or len(sizes) != len(v.shape):
            raise PtoIRError(f"{where}: partition_view takes {len(v.shape)} offsets and sizes (its view's dims)")
        dims, el = T.view_element(op.out_types[0], where)
        if [d for d in dims] != sizes and DYNAMIC not in dims:
            raise PtoIRError(f"{where}: partition_view sizes {sizes} do not match its type {op.out_types[0]}")
        for o, s, n in zip(offs, sizes, v.shape):
            if o < 0 or s <= 0 or o + s > n:
                raise PtoIRError(f"{where}: partition_view [{o}, {o + s}) of a dim of {n}: outside the view")
        pad = 5 - len(sizes)
        shape5 = [1] * pad + sizes
        outer = v.shape[0] * v.strides[0]
        stride5 = [outer] * pad + list(v.strides)
        base = sum(o * s for o, s in zip(offs, v.strides))
        if pto is None:
            env[op.result] = _Fake(el, shape5)
            return
        lay = {"nd": pto.Layout.ND, "dn": pto.Layout.DN, "nz": pto.Layout.NZ}[v.layout]
        GT = pto.GlobalTensor[dtypes.as_dtype(el), pto.Shape[tuple(shape5)], pto.Stride[tuple(stride5)], lay]
        env[op.result] = GT(v.ptr + base)

    def _alloc(self, pto, op: Op, env: dict, where: str) -> None:
        cls, _pad = T.tile_class(op.out_types[0], where)
        vr = self._int(env, op.extra["valid_row"], where) if "valid_row" in op.extra else None
        vc = self._int(env, op.extra["valid_col"], where) if "valid_col" in op.extra else None
        for got, want, what in ((vr, cls.ValidRow, "valid_row"), (vc, cls.ValidCol, "valid_col")):
            if (got is None) != (want != DYNAMIC):
                raise PtoIRError(f"{where}: alloc_tile {what}: give it exactly when the type's v_"
                                 f"{what.split('_')[1]} is ?")
        addr = self._int(env, op.extra["addr"], where) if "addr" in op.extra else None
        if pto is None:
            env[op.result] = _Fake(cls.DType)
            return
        dyn = [x for x in (vr, vc) if x is not None]
        tile = cls(*dyn) if dyn else cls()
        if addr is not None:
            pto.TASSIGN(tile, addr)
        env[op.result] = tile

    def _event(self, pto, op: Op, env: dict, where: str) -> None:
        if op.kind == "barrier":
            pipe = O.word(op.ins[0], where)
            if pto is not None:
                pto.pipe_barrier(getattr(pto, pipe if pipe.startswith("PIPE_") else "PIPE_" + pipe))
            return
        if len(op.ins) != 3:
            raise PtoIRError(f"{where}: {op.name} [src, dst, event]: got {len(op.ins)} entries")
        pipes = []
        for a in op.ins[:2]:
            w = O.word(a, where)
            p = SYNC_PIPE.get(w, w[5:] if w.startswith("PIPE_") else None)
            if p is None:
                raise PtoIRError(f"{where}: {op.name}: {a} names no pipe")
            pipes.append("PIPE_" + p)
        ev = O.word(op.ins[2], where)
        if not (ev.startswith("EVENT_ID") and ev[8:].isdigit() and int(ev[8:]) < 8):
            raise PtoIRError(f"{where}: {op.name}: {op.ins[2]} is not an event EVENT_ID0..7")
        if pto is None:
            return
        f = pto.set_flag if op.name in ("pto.record_event", "pto.set_flag") else pto.wait_flag
        with _site(where):
            f(getattr(pto, pipes[0]), getattr(pto, pipes[1]), getattr(pto, ev))


def _el_of(ptr) -> str | None:
    if isinstance(ptr, _Fake):
        return ptr._pto_el
    dt = getattr(ptr, "dtype", None)
    return None if dt is None else dtypes.name_of(dt)


class _Fake:
    """A value of the check walk: a pointer's or view's element type."""

    def __init__(self, el, shape=None):
        self._pto_el, self.shape = el, shape

    def __add__(self, k):
        return self


def _constant(v, t: str, where: str):
    s = T.scalar(t)
    if s is None:
        raise PtoIRError(f"{where}: arith.constant of type {t!r}: a scalar type (index, iN, uiN, fN) only")
    if isinstance(v, bool):
        return int(v)
    if s == "index" or dtypes.as_dtype(s).kind in "iu":
        if isinstance(v, float):
            raise PtoIRError(f"{where}: arith.constant {v} : {t}: an integer type takes an integer")
        return int(v)
    if isinstance(v, int):                 # a float written as hex is its bit pattern
        dt = dtypes.as_dtype(s)
        return np.array([v], np.dtype(f"u{dt.itemsize}")).view(dt)[0]
    return float(v)


@contextlib.contextmanager
def _site(where: str):
    tok = calls.SITE.set(where)
    try:
        yield
    finally:
        calls.SITE.reset(tok)


def _rebuild(text, source, name, scalars=None):
    return PtoKernel(parse(text, source), name, text, scalars)


def load_text(text: str, name: str | None = None, source: str = "<pto>", scalars: dict | None = None) -> PtoKernel:
    """The kernel function ``name`` (or the module's only / entry function) of PTO IR ``text``;
    ``scalars``: the values of its scalar arguments, by name (``%n`` -> ``n``)."""
    return PtoKernel(parse(text, source), name, text, scalars)


def load_file(path: str, name: str | None = None, scalars: dict | None = None) -> PtoKernel:
    """The kernel of ``path`` (a ``.pto`` file)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise PtoIRError(f"{path}: {e.strerror}") from None
    return PtoKernel(parse(text, os.path.basename(path)), name, text, scalars)
