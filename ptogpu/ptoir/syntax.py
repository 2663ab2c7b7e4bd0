"""PTO IR text (the ``pto`` MLIR dialect of PTOAS, Level-2 destination-passing form) read into
:class:`Module` trees, and written back.

The grammar is a Lark LALR grammar of the forms PTOAS prints for the ops ptogpu runs
(``include/PTO/IR/PTOOps.td``'s assembly formats): ``func.func`` with pointer arguments,
``arith`` constants and integer arithmetic, ``scf.for``, ``pto.make_tensor_view``,
``pto.partition_view``, ``pto.alloc_tile`` (with or without ``addr``), ``pto.tassign``, the
``ins(...) outs(...)`` instruction ops, and the event ops. Anything else is a
:class:`~ptogpu.errors.PtoIRError` naming the op and its ``line:col``. Types and attributes are
kept as their text and read where they are used (``ptoir.types``)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from lark import Lark, Token, Transformer, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, v_args
from lark.exceptions import VisitError

from ..errors import PtoIRError

GRAMMAR = r"""
start: module
module: "module" ["attributes" dict] "{" func* "}"
func: "func.func" [VISIBILITY] SYMBOL "(" [farg ("," farg)*] ")" [rtypes] ["attributes" dict] block
VISIBILITY.2: /(private|public|nested)\b/
rtypes: "->" ("(" ")" | type | "(" types ")")
farg: VALUE ":" type
block: "{" stmt* "}"
?stmt: constant | binop | cast | cmpi | select | tview | pview | alloc | tassign | addptr | dps | event | barrier
      | for_loop | if_ | call | blockq | ret | yield_

constant: VALUE "=" "arith.constant" literal [":" type]
binop: VALUE "=" ARITH_BIN VALUE "," VALUE [":" type]
cast: VALUE "=" ARITH_CAST VALUE ":" type "to" type
cmpi: VALUE "=" "arith.cmpi" NAME "," VALUE "," VALUE ":" type
select: VALUE "=" "arith.select" VALUE "," VALUE "," VALUE ":" type
addptr: VALUE "=" "pto.addptr" VALUE "," VALUE [dict] ":" ptr_type "->" ptr_type
ptr_type: type | ANGLE
tview: VALUE "=" "pto.make_tensor_view" VALUE "," "shape" "=" vlist "," "strides" "=" vlist [dict] ":" type
pview: VALUE "=" "pto.partition_view" VALUE "," "offsets" "=" vlist "," "sizes" "=" vlist [dict] ":" type "->" type
alloc: VALUE "=" "pto.alloc_tile" [addr] [vrow] [vcol] [dict] ":" type
addr: "addr" "=" VALUE
vrow: "valid_row" "=" VALUE
vcol: "valid_col" "=" VALUE
tassign: VALUE "=" "pto.tassign" VALUE "," VALUE [dict] ":" type "->" type
dps: PTO_OP "ins" "(" [operands] [":" types] ")" [outs] [dict]
operands: opnd ("," opnd)*
opnd: VALUE [dict] | dict
outs: "outs" "(" [values] [":" types] ")"
event: EVENT_OP "[" aval ("," aval)* "]" [dict]
barrier: "pto.barrier" aval [dict]
for_loop: [lhs] "scf.for" VALUE "=" VALUE "to" VALUE "step" VALUE [iter_args] [":" type] block
lhs: VALUE "=" | VALUE ("," VALUE)+ "="
iter_args: "iter_args" "(" binding ("," binding)* ")" "->" ("(" types ")" | type)
binding: VALUE "=" VALUE
if_: [lhs] "scf.if" VALUE ["->" ("(" types ")" | type)] block ["else" block]
ret: ("return" | "func.return") [values ":" types]
blockq: VALUE "=" BLOCK_OP [dict]
BLOCK_OP.2: /pto\.(get_block_idx|get_block_num|get_subblock_idx|get_subblock_num)\b/
call: [lhs] "func.call" SYMBOL "(" [values] ")" ":" "(" [types] ")" "->" ("(" [types] ")" | type)
yield_: "scf.yield" [values ":" types]

values: VALUE ("," VALUE)*
types: type ("," type)*
vlist: "[" [vitem ("," vitem)*] "]"
?vitem: VALUE | INT
type: PTO_TYPE | SHAPED_TYPE | SCALAR_TYPE
dict: "{" [dentry ("," dentry)*] "}"
dentry: (NAME | STRING) ["=" aval]
?aval: ATTR | ANGLE -> word | literal [":" type] -> typed | NAME -> word | STRING -> word | VALUE -> word
     | "[" [aval ("," aval)*] "]" -> alist
literal: FLOAT | INT | BOOL

SYMBOL: /@[A-Za-z_][\w.$]*/
VALUE: /%[A-Za-z0-9_.$]+(#[0-9]+|:[0-9]+)?/
ANGLE: /<[A-Za-z_0-9]+>/
ARITH_BIN: /arith\.(addi|subi|muli|divsi|divui|remsi|remui|andi|ori|xori|shli|shrsi|shrui|maxsi|minsi|maxui|minui|floordivsi|ceildivsi)\b/
ARITH_CAST: /arith\.(index_castui|index_cast|extsi|extui|trunci)\b/
EVENT_OP.2: /pto\.(record_event|wait_event|set_flag|wait_flag)\b/
PTO_OP: /pto\.[a-z_][a-z0-9_.]*/
PTO_TYPE: /!pto\.[a-z_]+(<[^<>]*(<[^<>]*>[^<>]*)*>)?/
SHAPED_TYPE: /(memref|vector|tensor)<[^<>]*(<[^<>]*(<[^<>]*>[^<>]*)*>[^<>]*)*>/
SCALAR_TYPE.2: /(index|i1|i8|i16|i32|i64|ui8|ui16|ui32|ui64|si8|si16|si32|si64|bf16|f16|f32|f64|f8E4M3FN|f8E5M2|hif8)\b/
ATTR: /#[a-z_]+(\.[a-z_]+)*<[^<>]*(<[^<>]*>[^<>]*)*>/
BOOL.2: /(true|false)\b/
FLOAT: /[-+]?[0-9]+\.[0-9]*([eE][-+]?[0-9]+)?/
INT: /[-+]?(0x[0-9a-fA-F]+|[0-9]+)/
NAME: /[A-Za-z_][\w.]*/
STRING: /"[^"]*"/
COMMENT: /\/\/[^\n]*/
%import common.WS
%ignore WS
%ignore COMMENT
"""

_PARSER = None


def _parser() -> Lark:
    global _PARSER
    if _PARSER is None:
        _PARSER = Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=True)
    return _PARSER


@dataclass
class Op:
    """One statement: ``kind`` (the grammar rule: constant, binop, cast, tview, pview, alloc,
    tassign, dps, event, barrier, for_loop), ``name`` (the op's spelling), ``result`` (its
    value name or None), ``ins`` / ``outs`` (operand names, or literals for a list), ``types``
    and ``out_types`` (type texts), ``attrs`` (name -> attribute text, literal or list),
    ``extra`` (the rule's other fields: a constant's value, a view's lists), ``body`` (a loop's
    ops) and where it stands in the text."""
    kind: str
    name: str
    line: int
    col: int
    result: str | None = None
    ins: list = field(default_factory=list)
    outs: list = field(default_factory=list)
    types: list = field(default_factory=list)
    out_types: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    body: list = field(default_factory=list)
    orelse: list | None = None

    def same(self, other: "Op") -> bool:
        """Equal but for where they stand in their texts."""
        return (self.kind, self.name, self.result, self.ins, self.outs, self.types, self.out_types, self.attrs,
                self.extra) == (other.kind, other.name, other.result, other.ins, other.outs, other.types,
                                other.out_types, other.attrs, other.extra) \
            and len(self.body) == len(other.body) and all(a.same(b) for a, b in zip(self.body, other.body)) \
            and (self.orelse is None) == (other.orelse is None) \
            and all(a.same(b) for a, b in zip(self.orelse or [], other.orelse or [])) \
            and len(self.orelse or []) == len(other.orelse or [])


@dataclass
class Func:
    name: str
    args: list                   # [(value name, type text)]
    ops: list
    attrs: dict
    line: int
    results: list = field(default_factory=list)   # result type texts (a kernel has none; a callee may)


@dataclass
class Module:
    funcs: list
    attrs: dict
    source: str = "<pto>"        # the file it was read from (locations name it)

    def func(self, name: str | None) -> Func:
        """The function ``name`` (``@`` optional); with no name, the only one, or the one
        marked ``pto.entry``."""
        if name:
            name = name.lstrip("@")
            for f in self.funcs:
                if f.name == name:
                    return f
            raise PtoIRError(f"{self.source}: no func.func @{name} (it has: "
                             f"{', '.join('@' + f.name for f in self.funcs) or 'none'})")
        entry = [f for f in self.funcs if "pto.entry" in f.attrs]
        if len(self.funcs) == 1 or len(entry) == 1:
            return (entry or self.funcs)[0]
        raise PtoIRError(f"{self.source}: {len(self.funcs)} functions and no single pto.entry: name one "
                         f"(FILE.pto:FUNC)")


class _Build(Transformer):
    def __default_token__(self, tok):
        return tok

    def type(self, c):
        return str(c[0])

    def types(self, c):
        return [str(t) for t in c]

    def values(self, c):
        return [str(v) for v in c]

    def lhs(self, c):
        return [str(v) for v in c]

    def vlist(self, c):
        return [(str(v) if v.type == "VALUE" else int(str(v), 0)) for v in c if v is not None]

    def literal(self, c):
        t = c[0]
        if t.type == "BOOL":
            return str(t) == "true"
        if t.type == "FLOAT":
            return float(str(t))
        return int(str(t), 0)

    def typed(self, c):
        v = c[0]
        if isinstance(v, Token):                   # an ATTR
            return str(v)
        return v if c[1] is None else (v, c[1])

    def word(self, c):
        return str(c[0])

    def alist(self, c):
        return [x for x in c if x is not None]

    def dentry(self, c):
        key = str(c[0])
        return key, (True if c[1] is None else c[1])

    def dict(self, c):
        return dict(x for x in c if x is not None)

    def addr(self, c):
        return ("addr", str(c[0]))

    def vrow(self, c):
        return ("valid_row", str(c[0]))

    def vcol(self, c):
        return ("valid_col", str(c[0]))

    def opnd(self, c):
        if isinstance(c[0], dict):
            return ("dict", c[0], ",")
        return ("value", str(c[0]), c[1]) if len(c) > 1 else ("value", str(c[0]), None)

    def operands(self, c):
        vals, inner, style = [], {}, None
        for kind, v, extra in c:
            if kind == "value":
                vals.append(v)
                if extra:
                    inner.update(extra)
                    style = " "
            else:
                inner.update(v)
                style = ","
        return vals, inner, style

    def rtypes(self, c):
        out = []
        for x in c:
            if isinstance(x, list):
                out += x
            elif x is not None:
                out.append(x)
        return out or None

    def outs(self, c):
        return ("outs", c[0] or [], c[1] or [])

    def block(self, c):
        return list(c)


def _op(kind: str, name: str, meta, **kw) -> Op:
    return Op(kind, name, meta.line, meta.column, **kw)


class _Tree(_Build):
    """Statements into :class:`Op`, with their positions (``propagate_positions``)."""

    @v_args(meta=True)
    def constant(self, m, c):
        return _op("constant", "arith.constant", m, result=str(c[0]), extra={"value": c[1]},
                   types=[c[2]] if c[2] else [])

    @v_args(meta=True)
    def binop(self, m, c):
        return _op("binop", str(c[1]), m, result=str(c[0]), ins=[str(c[2]), str(c[3])],
                   types=[c[4]] if c[4] else [])

    @v_args(meta=True)
    def cast(self, m, c):
        return _op("cast", str(c[1]), m, result=str(c[0]), ins=[str(c[2])], types=[c[3]], out_types=[c[4]])

    @v_args(meta=True)
    def tview(self, m, c):
        return _op("tview", "pto.make_tensor_view", m, result=str(c[0]), ins=[str(c[1])],
                   extra={"shape": c[2], "strides": c[3]}, attrs=c[4] or {}, out_types=[c[5]])

    @v_args(meta=True)
    def pview(self, m, c):
        return _op("pview", "pto.partition_view", m, result=str(c[0]), ins=[str(c[1])],
                   extra={"offsets": c[2], "sizes": c[3]}, attrs=c[4] or {}, types=[c[5]], out_types=[c[6]])

    @v_args(meta=True)
    def alloc(self, m, c):
        extra = dict(x for x in c[1:4] if x is not None)
        return _op("alloc", "pto.alloc_tile", m, result=str(c[0]), extra=extra, attrs=c[4] or {}, out_types=[c[5]])

    @v_args(meta=True)
    def tassign(self, m, c):
        return _op("tassign", "pto.tassign", m, result=str(c[0]), ins=[str(c[1]), str(c[2])], attrs=c[3] or {},
                   types=[c[4]], out_types=[c[5]])

    @v_args(meta=True)
    def dps(self, m, c):
        name, operands, types, outs, after = c
        ins, inner, style = operands if operands is not None else ([], {}, None)
        _, out_vals, out_types = outs if outs is not None else (None, [], [])
        attrs = {**inner, **(after or {})}
        extra = {"inner": sorted(inner), "style": style} if inner else {}
        return _op("dps", str(name), m, ins=ins, outs=out_vals, types=types or [], out_types=out_types,
                   attrs=attrs, extra=extra)

    @v_args(meta=True)
    def event(self, m, c):
        return _op("event", str(c[0]), m, ins=[x for x in c[1:-1] if x is not None], attrs=c[-1] or {})

    @v_args(meta=True)
    def barrier(self, m, c):
        return _op("barrier", "pto.barrier", m, ins=[str(c[0])], attrs=c[1] or {})

    @v_args(meta=True)
    def for_loop(self, m, c):
        res, iv, lb, ub, st, it, ty, body = c
        inits, its, binds = it if it is not None else ([], [], [])
        return _op("for_loop", "scf.for", m, result=str(iv), ins=[str(lb), str(ub), str(st), *inits],
                   types=[ty] if ty else [], out_types=its, body=body,
                   extra={"results": res, "iter": [b for b, _ in binds]})

    @v_args(meta=True)
    def if_(self, m, c):
        res, cond, types, then, other = c
        return _op("if", "scf.if", m, result=None, ins=[str(cond)], extra={"results": res},
                   out_types=types if isinstance(types, list) else ([types] if types else []), body=then,
                   orelse=other)

    @v_args(meta=True)
    def cmpi(self, m, c):
        return _op("cmpi", "arith.cmpi", m, result=str(c[0]), ins=[str(c[2]), str(c[3])], types=[c[4]],
                   extra={"pred": str(c[1])})

    @v_args(meta=True)
    def select(self, m, c):
        return _op("select", "arith.select", m, result=str(c[0]), ins=[str(c[1]), str(c[2]), str(c[3])],
                   types=[c[4]])

    def ptr_type(self, c):
        """A pointer type, or its short form ``<T>`` (how PTOAS prints pto.addptr's types)."""
        t = str(c[0])
        return "!pto.ptr" + t if t.startswith("<") else t

    @v_args(meta=True)
    def addptr(self, m, c):
        return _op("addptr", "pto.addptr", m, result=str(c[0]), ins=[str(c[1]), str(c[2])], attrs=c[3] or {},
                   types=[c[4]], out_types=[c[5]])

    def binding(self, c):
        return str(c[0]), str(c[1])

    def iter_args(self, c):
        binds = [x for x in c if isinstance(x, tuple)]
        rest = [x for x in c if not isinstance(x, tuple)]
        types = rest[0] if rest and isinstance(rest[0], list) else [x for x in rest if x is not None]
        return [v for _, v in binds], types, binds

    @v_args(meta=True)
    def ret(self, m, c):
        return _op("ret", "return", m, ins=c[0] or [], types=c[1] or [])

    @v_args(meta=True)
    def blockq(self, m, c):
        return _op("blockq", str(c[1]), m, result=str(c[0]), attrs=c[2] or {})

    @v_args(meta=True)
    def call(self, m, c):
        res, sym, args, types, rt = c
        rt = rt if isinstance(rt, list) else ([rt] if rt else [])
        return _op("call", "func.call", m, ins=args or [], types=types or [], out_types=rt,
                   extra={"callee": str(sym)[1:], "results": res})

    @v_args(meta=True)
    def yield_(self, m, c):
        return _op("yield", "scf.yield", m, ins=c[0] or [], types=c[1] or [])

    def farg(self, c):
        return str(c[0]), c[1]

    @v_args(meta=True)
    def func(self, m, c):
        c = c[1:]                                  # (visibility: not a kernel's concern)
        args = [a for a in c[1:-3] if a is not None]
        return Func(str(c[0])[1:], args, c[-1], c[-2] or {}, m.line, c[-3] or [])

    def module(self, c):
        return Module([f for f in c[1:] if f is not None], c[0] or {})

    def start(self, c):
        return c[0]


_OPNAME = re.compile(r"(?<![#!\w.%@])([a-z_]+\.[a-z_][\w.]*)")


def parse(text: str, source: str = "<pto>") -> Module:
    """The module ``text`` holds; PtoIRError (``source:line:col: what``) where it is not PTO IR
    ptogpu reads."""
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as e:
        raise PtoIRError(_explain(text, source, e)) from None
    try:
        mod = _Tree(visit_tokens=True).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, PtoIRError):
            raise PtoIRError(f"{source}:{e.orig_exc}") from None
        raise
    mod.source = source
    return mod


def _explain(text: str, source: str, e: UnexpectedInput) -> str:
    line, col = getattr(e, "line", 0), getattr(e, "column", 0)
    if isinstance(e, UnexpectedEOF) or line in (None, -1):
        return f"{source}: the text ends inside an op or a region (a missing '}}' or ')')"
    # the op the error stands in: the last op name at or before the error
    lines = text.splitlines()
    offset = sum(len(x) + 1 for x in lines[:line - 1]) + col - 1
    found = None
    for mt in _OPNAME.finditer(text):
        if mt.start() > offset:
            break
        found = mt
    if found is not None:
        name = found.group(1)
        ln = text.count("\n", 0, found.start()) + 1
        cn = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
        from .ops import emulated
        if name not in emulated() and name != "func.func":
            return f"{source}:{ln}:{cn}: op '{name}' is not emulated by ptogpu (docs/ptoir.md lists the ops it runs)"
    got = text[offset: offset + 20].split("\n")[0] if 0 <= offset < len(text) else ""
    what = "character" if isinstance(e, UnexpectedCharacters) else "token"
    return f"{source}:{line}:{col}: unexpected {what} {got.strip()[:20]!r} (PTO IR syntax)"
