"""A kernel's stand-alone source: the function and the module-level definitions it needs,
nothing else of its file.

A kernel fuzzed from a script lives in a module whose other statements run campaigns (and
may run its reproducers): re-executing that file in a worker process or a reproducer would run
them again. So what travels is a slice of the file, taken with :mod:`ast`: every import, and
every top-level ``def``, ``class`` and plain assignment that binds a name the kernel uses, and
the names those use in turn, in file order, as their original lines. Anything the slice cannot
take alone (a name bound inside an ``if``, a loop or a ``try``; a kernel defined inside a
function; a lambda) is a one-line ``ValueError`` naming it. The standard library has no such
slicer (``inspect.getsource`` gives one object's lines, not what it depends on), hence this.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import os
import sys
import types
from dataclasses import dataclass
from typing import Callable

_BINDERS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
            ast.Assign, ast.AnnAssign, ast.AugAssign)


def _bound(node: ast.stmt) -> list[str]:
    """Names a top-level statement binds (any statement: what it would define)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            out.append(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(sub.name)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            out += [(a.asname or a.name).split(".")[0] for a in sub.names]
    return out


def _used(node: ast.AST) -> set[str]:
    """Names a statement reads from its module (a function's body included: what it needs
    when called): the names it loads less those it binds itself (parameters, locals,
    comprehension variables; ``global`` ones stay the module's)."""
    load, local, glob = set(), set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (load if isinstance(n.ctx, ast.Load) else local).add(n.id)
        elif isinstance(n, ast.arg):
            local.add(n.arg)
        elif isinstance(n, ast.Global):
            glob.update(n.names)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not node:
            local.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)) and n is not node:
            local.update((a.asname or a.name).split(".")[0] for a in n.names)
    return load - (local - glob)


def _main_guard(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "__name__" in _used(node.test)


@dataclass(frozen=True)
class KernelSource:
    """The slice of a kernel's file: its path, the kernel's name, and the file's lines with
    every line outside the slice blank (line numbers as in the file, so a call made from the
    slice names the same ``file:line`` as one made from the file)."""
    path: str
    name: str
    aligned: str

    def blocks(self) -> list[tuple[int, str]]:
        """The slice as (first line in the file, that run of lines)."""
        out: list[tuple[int, str]] = []
        for k, ln in enumerate(self.aligned.splitlines(keepends=True), 1):
            if not ln.strip():
                continue
            if out and out[-1][0] + out[-1][1].count("\n") == k:
                out[-1] = (out[-1][0], out[-1][1] + ln)
            else:
                out.append((k, ln))
        return out

    def load(self) -> Callable:
        """The kernel, defined by running the slice in a fresh module (the file's directory on
        the import path while it runs, for helpers beside it)."""
        mod = types.ModuleType(f"ptogpu_kernel_slice_{self.name}")
        mod.__file__ = self.path
        importable(self.path)
        exec(compile(self.aligned, self.path, "exec"), mod.__dict__)
        return mod.__dict__[self.name]


def importable(path: str) -> None:
    """Put a kernel file's folder on the import path, as ``python FILE.py`` would, and keep it
    there: the kernel's helpers beside it import when the file loads and when the kernel runs."""
    where = os.path.dirname(os.path.abspath(path))
    if where not in sys.path:
        sys.path.insert(0, where)


def kernel_source(fn: Callable) -> KernelSource:
    """The stand-alone slice of kernel ``fn``'s file. ValueError, one line, where it cannot be
    cut out of its file."""
    name = getattr(fn, "__name__", "?")
    qual = getattr(fn, "__qualname__", name)
    if not isinstance(fn, types.FunctionType) or name == "<lambda>":
        raise ValueError(f"kernel {qual}: not a function defined with def in a file: its reproducer "
                         "cannot stand alone")
    if "." in qual:
        raise ValueError(f"kernel {qual}: defined inside {qual.rsplit('.', 2)[0]}: define it at the "
                         "top level of its file for a stand-alone reproducer")
    try:
        path = os.path.abspath(inspect.getsourcefile(fn))
        with open(path) as f:
            text = f.read()
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError) as e:
        raise ValueError(f"kernel {qual}: its source cannot be read ({e})") from None
    base = os.path.basename(path)
    keep: dict[str, list[ast.stmt]] = {}
    elsewhere: dict[str, ast.stmt] = {}
    for node in tree.body:
        if _main_guard(node):
            continue
        for nm in _bound(node):
            if isinstance(node, _BINDERS):
                keep.setdefault(nm, []).append(node)
            else:
                elsewhere.setdefault(nm, node)
    if name not in keep:
        raise ValueError(f"kernel {qual}: no top-level def {name} in {base}")
    chosen: dict[int, ast.stmt] = {}
    todo, seen = [name], set()
    while todo:
        nm = todo.pop()
        if nm in seen:
            continue
        seen.add(nm)
        if nm not in keep:
            if nm in elsewhere:
                node = elsewhere[nm]
                raise ValueError(f"kernel {qual} needs {nm!r}, which {base}:{node.lineno} binds inside "
                                 f"a {type(node).__name__.lower()} statement: bind it at the top level "
                                 "for a stand-alone reproducer")
            if not hasattr(builtins, nm):
                raise ValueError(f"kernel {qual} needs {nm!r}, which {base} does not define")
            continue
        for node in keep[nm]:
            if id(node) not in chosen:
                chosen[id(node)] = node
                todo += sorted(_used(node))
    for node in tree.body:                       # every import: cheap, and what the code expects
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            chosen.setdefault(id(node), node)
    lines = text.splitlines(keepends=True)
    out = ["\n"] * len(lines)
    for node in chosen.values():
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        out[first - 1: node.end_lineno] = lines[first - 1: node.end_lineno]
    return KernelSource(path, name, "".join(out))
