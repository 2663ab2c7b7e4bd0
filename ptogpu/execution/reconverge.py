"""Where a kernel's parked paths meet again (``execution.program``): the state of the kernel's
Python at an instruction call, as a key two paths share only when the rest of the kernel cannot
tell them apart.

A core of N runs a kernel that branches on what it reads one path at a time; instances whose
branch differs are parked and resume later (``Core.program``). Paths that differ only in how
they got somewhere -- a scan loop that leaves at another byte, then the same next instruction
-- would each run the rest of the kernel alone. Two parked groups whose *next* instruction call
has the same key run it and what follows together, once: the merged run replays one group's
log up to that call (no instruction runs in between, so every instance's memory is already its
own) and goes on over both groups' instances.

The key is sound only where everything the rest of the kernel reads is in it. For each frame of
the kernel's code (from its entry to the instruction's call): the code and the call's offset;
every local that a later instruction may read (a liveness pass over CPython 3.11's bytecode); and
each enclosing ``for`` loop's position, which CPython keeps on the frame's value stack where
Python cannot read it: so every enclosing loop must be ``for v in range(constants or globals)``
and ``v`` is in the key; the value stack must hold nothing else (no call inside an expression).
Values compare by what they are (numbers, strings, arrays' bytes, tiles by class, address and
valid shape, tensors and pointers by address, shape and type), anything else by identity. Any
code this does not read -- another Python, exception handlers or ``with`` blocks, closures,
generators, other loops -- gives no key: its groups run alone, as without this module.
"""
from __future__ import annotations

import builtins
import dis
import functools
import sys
import types

import numpy as np

_ENABLED = sys.version_info[:2] == (3, 11)
_NO_FALL = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "RETURN_VALUE", "RAISE_VARARGS",
            "RERAISE"}
_JUMPS = set(dis.hasjrel) | set(dis.hasjabs)
_PKG = __file__.rsplit("/execution/", 1)[0]
_INTROSPECT = {"locals", "vars", "eval", "exec", "dir", "globals"}


class _Code:
    """One code object's facts: per CALL offset, (the locals live after it, the enclosing
    range loops' variables) or None where a key cannot be made there."""

    def __init__(self, code: types.CodeType) -> None:
        # keyed by the CALL's offset and by its last inline cache unit's: a frame paused in a call
        # has f_lasti at the one (the callee entered through C) or the other (a Python function
        # the interpreter entered inline), CPython 3.11
        self.calls: dict[int, tuple[frozenset, tuple[str, ...]] | None] = {}
        self.ok = (_ENABLED and not code.co_exceptiontable and not code.co_cellvars and not code.co_freevars
                   and not code.co_flags & (0x20 | 0x80 | 0x100 | 0x200))   # generators, coroutines
        if not self.ok:
            return
        every = list(dis.get_instructions(code))
        ins = [i for i in every if i.opname != "EXTENDED_ARG"]
        at = {i.offset: k for k, i in enumerate(ins)}
        for i in reversed(every):                   # a jump to an EXTENDED_ARG lands on what it extends
            if i.opname == "EXTENDED_ARG":
                at[i.offset] = at.get(i.offset + 2, len(ins))
        succ: list[list[tuple[int, bool]]] = []     # (successor, taken as the jump)
        for k, i in enumerate(ins):
            s = []
            if i.opcode in _JUMPS and i.argval in at:
                s.append((at[i.argval], True))
            if i.opname not in _NO_FALL and k + 1 < len(ins):
                s.append((k + 1, False))
            succ.append(s)
        if any(i.opname in ("LOAD_DEREF", "STORE_DEREF", "DELETE_DEREF", "LOAD_CLOSURE", "SEND", "YIELD_VALUE",
                            "IMPORT_STAR") or (i.opname == "LOAD_GLOBAL" and i.argval in _INTROSPECT) for i in ins):
            self.ok = False                         # (cells, generators; code that reads its frame's locals)
            return
        live = self._liveness(ins, succ)
        depth = self._depths(ins, succ)
        if depth is None:
            self.ok = False
            return
        loops = []                                  # (FOR_ITER index, exit offset, variable or None)
        for k, i in enumerate(ins):
            if i.opname == "FOR_ITER":
                var = ins[k + 1].argval if ins[k + 1].opname == "STORE_FAST" else None
                loops.append((k, i.argval, var if self._over_range(ins, k) else None))
        for k, i in enumerate(ins):
            if i.opname != "CALL" or k + 1 >= len(ins):
                continue
            around = [lp for lp in loops if ins[lp[0]].offset < i.offset < lp[1]]
            fact = None                             # another loop, or a value the stack keeps
            if all(v is not None for _, _, v in around) and depth.get(k + 1) == len(around) + 1:
                fact = (live[k + 1], tuple(v for _, _, v in around))
            self.calls[i.offset] = self.calls[ins[k + 1].offset - 2] = fact

    @staticmethod
    def _liveness(ins, succ) -> list[frozenset]:
        use = [frozenset([i.argval]) if i.opname in ("LOAD_FAST", "LOAD_FAST_CHECK") else frozenset() for i in ins]
        kill = [frozenset([i.argval]) if i.opname in ("STORE_FAST", "DELETE_FAST") else frozenset() for i in ins]
        live = [frozenset()] * len(ins)
        changed = True
        while changed:
            changed = False
            for k in range(len(ins) - 1, -1, -1):
                out = frozenset().union(*(live[s] for s, _ in succ[k])) if succ[k] else frozenset()
                new = use[k] | (out - kill[k])
                if new != live[k]:
                    live[k], changed = new, True
        return live

    @staticmethod
    def _depths(ins, succ) -> dict[int, int] | None:
        """The value stack's depth before each instruction (None: a path disagrees)."""
        depth = {0: 0}
        work = [0]
        while work:
            k = work.pop()
            i = ins[k]
            for s, jump in succ[k]:
                try:
                    d = depth[k] + dis.stack_effect(i.opcode, i.arg if i.opcode >= dis.HAVE_ARGUMENT else None,
                                                    jump=jump)
                except ValueError:
                    return None
                if s in depth:
                    if depth[s] != d:
                        return None
                else:
                    depth[s] = d
                    work.append(s)
        return depth

    @staticmethod
    def _over_range(ins, k: int) -> bool:
        """``for v in range(a, ...)`` with every argument a constant or a global."""
        j = k - 1
        if j < 0 or ins[j].opname != "GET_ITER":
            return False
        j -= 1
        if j < 1 or ins[j].opname != "CALL" or ins[j - 1].opname != "PRECALL":
            return False
        n, j = ins[j].arg, j - 2
        for _ in range(n):
            if j < 0 or ins[j].opname not in ("LOAD_CONST", "LOAD_GLOBAL") or \
                    (ins[j].opname == "LOAD_GLOBAL" and ins[j].arg & 1):
                return False
            j -= 1
        return j >= 0 and ins[j].opname == "LOAD_GLOBAL" and ins[j].argval == "range" and ins[j].arg & 1


@functools.lru_cache(maxsize=256)
def _facts(code: types.CodeType) -> _Code:
    return _Code(code)


def analysable(fn) -> bool:
    """Whether a kernel's entry can give keys at all (the rest is judged call by call)."""
    code = getattr(fn, "__code__", None)
    return code is not None and _facts(code).ok


def canonical(v, depth: int = 0):
    """A value as the key compares it (None where it cannot take part)."""
    if depth > 6:
        return None
    if v is None or isinstance(v, (bool, int, str, bytes)):
        return (type(v).__name__, v)
    if isinstance(v, float):
        return ("float", np.float64(v).tobytes())
    if isinstance(v, (tuple, list)):
        items = tuple(canonical(x, depth + 1) for x in v)
        return None if None in items else (type(v).__name__, items)
    if isinstance(v, dict):                         # (a template's enums, keyed by their classes)
        items = tuple(sorted(((id(k), canonical(x, depth + 1)) for k, x in v.items()), key=repr))
        return None if any(x is None for _, x in items) else ("dict", items)
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, np.generic):
        return ("scalar", v.dtype.str, v.tobytes())
    from ..tile import Tile
    from ..tensor import GlobalTensor
    from ..memory import Ptr
    from ..instance_values import InstanceValues
    if isinstance(v, Tile):
        return ("tile", id(type(v)), v.addr, v.valid_row, v.valid_col)
    if isinstance(v, Ptr):
        return ("ptr", v.space, v.addr, v.dtype.str, str(v.dtype.metadata))
    if isinstance(v, GlobalTensor):
        return ("gt", id(type(v)), canonical(v.ptr), tuple(v.shape.values), tuple(v.stride.values))
    if isinstance(v, InstanceValues):
        return ("values", v.values.dtype.str, v.values.tobytes())
    if isinstance(v, (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type)) or \
            hasattr(v, "__members__") or type(v).__module__ == "enum":
        return ("id", id(v))
    return ("id", id(v), type(v).__name__)


def _operands(args: tuple, kw: dict):
    return canonical((list(args), sorted((k, canonical(v)) for k, v in kw.items())))


def key(entry: types.CodeType, call: tuple):
    """The key of the kernel's state at the instruction being called now -- ``call``: its name,
    operands and keywords (the template's arguments), which sit on the caller's value stack --
    walked from the caller's frames up to the frame of ``entry``; or None."""
    name, args, kw = call
    operands = _operands(args, kw)
    if operands is None:
        return None
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        f = f.f_back                               # (ptogpu's own frames of this call)
    parts = []
    while f is not None:
        code = f.f_code
        if code.co_filename.startswith(_PKG):
            return None                            # the kernel's code called back from ptogpu
        facts = _facts(code)
        here = facts.calls.get(f.f_lasti) if facts.ok else None
        if here is None:
            return None
        live, loop_vars = here
        if loop_vars and f.f_globals.get("range", builtins.range) is not builtins.range:
            return None
        loc = f.f_locals
        vals = []
        for name in sorted(live | set(loop_vars)):
            if name not in loc:
                vals.append((name, "unbound"))
                continue
            c = canonical(loc[name])
            if c is None:
                return None
            vals.append((name, c))
        parts.append((id(code), f.f_lasti, tuple(vals)))
        if code is entry:
            return (name, operands, tuple(parts))
        f = f.f_back
    return None


__all__ = ["analysable", "canonical", "key"]
