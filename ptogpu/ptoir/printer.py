"""A :class:`~.syntax.Module` written back as PTO IR text, in the forms PTOAS prints (one op a
line, attributes where its assembly format puts them). Reading the text again gives the same
module (``Op.same``): tests/test_ptoir.py checks it on every module it reads."""
from __future__ import annotations

from .syntax import Func, Module, Op


def _attr(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, tuple):
        return f"{_attr(v[0])} : {v[1]}"
    if isinstance(v, list):
        return "[" + ", ".join(_attr(x) for x in v) + "]"
    if isinstance(v, float):
        t = repr(v)
        if "e" in t and "." not in t.split("e")[0]:
            t = t.replace("e", ".0e", 1)
        return t if any(ch in t for ch in ".en") else t + ".0"
    return str(v)


def _dict(d: dict) -> str:
    if not d:
        return ""
    return "{" + ", ".join(k if v is True else f"{k} = {_attr(v)}" for k, v in d.items()) + "}"


def _list(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def op_text(op: Op, indent: str = "    ") -> list[str]:
    k = op.kind
    if k == "constant":
        t = f" : {op.types[0]}" if op.types else ""
        return [f"{indent}{op.result} = arith.constant {_attr(op.extra['value'])}{t}"]
    if k == "binop":
        t = f" : {op.types[0]}" if op.types else ""
        return [f"{indent}{op.result} = {op.name} {op.ins[0]}, {op.ins[1]}{t}"]
    if k == "cast":
        return [f"{indent}{op.result} = {op.name} {op.ins[0]} : {op.types[0]} to {op.out_types[0]}"]
    if k == "tview":
        d = " " + _dict(op.attrs) if op.attrs else ""
        return [f"{indent}{op.result} = pto.make_tensor_view {op.ins[0]}, shape = {_list(op.extra['shape'])}, "
                f"strides = {_list(op.extra['strides'])}{d} : {op.out_types[0]}"]
    if k == "pview":
        d = " " + _dict(op.attrs) if op.attrs else ""
        return [f"{indent}{op.result} = pto.partition_view {op.ins[0]}, offsets = {_list(op.extra['offsets'])}, "
                f"sizes = {_list(op.extra['sizes'])}{d} : {op.types[0]} -> {op.out_types[0]}"]
    if k == "alloc":
        parts = [f"{key} = {op.extra[key]}" for key in ("addr", "valid_row", "valid_col") if key in op.extra]
        d = [_dict(op.attrs)] if op.attrs else []
        return [f"{indent}{op.result} = " + " ".join(["pto.alloc_tile", *parts, *d]) + f" : {op.out_types[0]}"]
    if k == "tassign":
        d = " " + _dict(op.attrs) if op.attrs else ""
        return [f"{indent}{op.result} = pto.tassign {op.ins[0]}, {op.ins[1]}{d} : {op.types[0]} -> {op.out_types[0]}"]
    if k == "dps":
        inner = {n: op.attrs[n] for n in op.extra.get("inner", []) if n in op.attrs}
        after = {n: v for n, v in op.attrs.items() if n not in inner}
        ins = ", ".join(op.ins)
        if inner:
            sep = ", " if op.extra.get("style") == "," else " "
            ins = f"{ins}{sep}{_dict(inner)}" if ins else _dict(inner)
        types = f" : {', '.join(op.types)}" if op.types else ""
        text = f"{indent}{op.name} ins({ins}{types})"
        if op.outs or op.out_types:
            ot = f" : {', '.join(op.out_types)}" if op.out_types else ""
            text += f" outs({', '.join(op.outs)}{ot})"
        if after:
            text += " " + _dict(after)
        return [text]
    if k == "event":
        d = " " + _dict(op.attrs) if op.attrs else ""
        return [f"{indent}{op.name} [{', '.join(_attr(x) for x in op.ins)}]{d}"]
    if k == "barrier":
        d = " " + _dict(op.attrs) if op.attrs else ""
        return [f"{indent}pto.barrier {op.ins[0]}{d}"]
    if k == "cmpi":
        return [f"{indent}{op.result} = arith.cmpi {op.extra['pred']}, {op.ins[0]}, {op.ins[1]} : {op.types[0]}"]
    if k == "select":
        return [f"{indent}{op.result} = arith.select {op.ins[0]}, {op.ins[1]}, {op.ins[2]} : {op.types[0]}"]
    if k == "addptr":
        d = " " + _dict(op.attrs) if op.attrs else ""
        return [f"{indent}{op.result} = pto.addptr {op.ins[0]}, {op.ins[1]}{d} : {op.types[0]} -> {op.out_types[0]}"]
    if k == "for_loop":
        t = f" : {op.types[0]}" if op.types else ""
        res = f"{', '.join(op.extra['results'])} = " if op.extra.get("results") else ""
        it = ""
        if op.extra.get("iter"):
            binds = ", ".join(f"{b} = {v}" for b, v in zip(op.extra["iter"], op.ins[3:]))
            it = f" iter_args({binds}) -> ({', '.join(op.out_types)})"
        lines = [f"{indent}{res}scf.for {op.result} = {op.ins[0]} to {op.ins[1]} step {op.ins[2]}{it}{t} {{"]
        for o in op.body:
            lines += op_text(o, indent + "  ")
        return lines + [f"{indent}}}"]
    if k == "if":
        res = f"{', '.join(op.extra['results'])} = " if op.extra.get("results") else ""
        ty = f" -> ({', '.join(op.out_types)})" if op.out_types else ""
        lines = [f"{indent}{res}scf.if {op.ins[0]}{ty} {{"]
        for o in op.body:
            lines += op_text(o, indent + "  ")
        if op.orelse is not None:
            lines.append(f"{indent}}} else {{")
            for o in op.orelse:
                lines += op_text(o, indent + "  ")
        return lines + [f"{indent}}}"]
    if k == "blockq":
        d = " " + _dict(op.attrs) if op.attrs else ""
        return [f"{indent}{op.result} = {op.name}{d}"]
    if k == "call":
        res = f"{', '.join(op.extra['results'])} = " if op.extra.get("results") else ""
        rt = f"({', '.join(op.out_types)})" if len(op.out_types) != 1 else op.out_types[0]
        return [f"{indent}{res}func.call @{op.extra['callee']}({', '.join(op.ins)}) : ({', '.join(op.types)}) -> {rt}"]
    if k == "ret" and op.ins:
        return [f"{indent}return {', '.join(op.ins)} : {', '.join(op.types)}"]
    if k == "yield":
        if op.ins:
            return [f"{indent}scf.yield {', '.join(op.ins)} : {', '.join(op.types)}"]
        return [f"{indent}scf.yield"]
    return [f"{indent}return"]


def func_text(f: Func) -> list[str]:
    args = ", ".join(f"{v}: {t}" for v, t in f.args)
    attrs = f" attributes {_dict(f.attrs)}" if f.attrs else ""
    rt = ""
    if f.results:
        rt = f" -> {f.results[0]}" if len(f.results) == 1 else f" -> ({', '.join(f.results)})"
    lines = [f"  func.func @{f.name}({args}){rt}{attrs} {{"]
    for op in f.ops:
        lines += op_text(op)
    return lines + ["  }"]


def module_text(m: Module) -> str:
    """The module as PTO IR text."""
    head = f"module attributes {_dict(m.attrs)} {{" if m.attrs else "module {"
    lines = [head]
    for f in m.funcs:
        lines += func_text(f)
    return "\n".join(lines + ["}"]) + "\n"


def same(a: Module, b: Module) -> bool:
    """Two modules that are one program (positions in their texts aside)."""
    return a.attrs == b.attrs and len(a.funcs) == len(b.funcs) and all(
        x.name == y.name and x.args == y.args and x.attrs == y.attrs and x.results == y.results
        and len(x.ops) == len(y.ops)
        and all(p.same(q) for p, q in zip(x.ops, y.ops)) for x, y in zip(a.funcs, b.funcs))
