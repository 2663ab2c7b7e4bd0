"""The package's layering (docs/architecture.md): every import -- module-level or inside a
function -- goes to the same layer or one below, and no two packages import each other.

The walk reads the source (``ast``), so a lazy import that would close a cycle at run time is
caught as well as a top-level one."""
from __future__ import annotations

import ast
import pathlib

import pytest

import ptogpu

ROOT = pathlib.Path(ptogpu.__file__).parent

# Bottom to top. A module belongs to the first layer whose prefix names it (longest prefix).
LAYERS = [
    ("base", ["ptogpu.isa", "ptogpu.errors", "ptogpu.enums", "ptogpu.dtypes", "ptogpu.nibbles", "ptogpu.pad_values", "ptogpu.targets",
              "ptogpu.interop", "ptogpu.trace", "ptogpu.progress"]),
    ("backend", ["ptogpu.backend"]),
    ("memory", ["ptogpu.pages", "ptogpu.memory", "ptogpu.dma_regs", "ptogpu.core", "ptogpu.tensor", "ptogpu.tile",
                "ptogpu.calls", "ptogpu.placement", "ptogpu.instance_values"]),
    ("semantics", ["ptogpu.semantics"]),
    ("lowering", ["ptogpu.lowering"]),
    ("instruction API", ["ptogpu", "ptogpu.ops", "ptogpu.reg", "ptogpu.asc"]),
    ("execution", ["ptogpu.execution"]),
    ("programs in PTO IR", ["ptogpu.ptoir"]),
    ("campaigns, maps and sweeps", ["ptogpu.fuzz", "ptogpu.simt"]),
    ("applications", ["ptogpu.demos", "ptogpu.cli", "ptogpu.__main__"]),
]


def module_name(path: pathlib.Path) -> str:
    parts = ["ptogpu", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def resolve(name: str) -> str | None:
    """The longest prefix of ``name`` that is a module of the package (``from .x import f``
    names ``ptogpu.x.f``; ``ptogpu.x`` is the module)."""
    while name.startswith("ptogpu"):
        rel = pathlib.Path(*name.split(".")[1:])
        if (ROOT / rel).with_suffix(".py").exists() or (ROOT / rel / "__init__.py").exists():
            return name
        if "." not in name:
            return None
        name = name.rsplit(".", 1)[0]
    return None


def imports(path: pathlib.Path) -> set[str]:
    me = module_name(path)
    pkg = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            # ``from .. import dtypes`` is an import of ptogpu.dtypes (the parent package is
            # loaded anyway); ``from ptogpu import MGATHER`` one of the package surface
            names = [f"{base}.{a.name}" for a in node.names]
        for n in names:
            r = resolve(n)
            if r and r != me:
                out.add(r)
    return out


# An instruction package (ptogpu.isa.NAME) spans the layers: its declaration is data (base), and
# each module of it sits in the layer of the role it is named for.
ROLES = {"rules": "base", "semantics": "semantics", "kernels": "lowering", "api": "instruction API",
         "config": "execution", "repro": "campaigns, maps and sweeps", "campaign": "campaigns, maps and sweeps"}


def layer_of(mod: str) -> int:
    parts = mod.split(".")
    if parts[:2] == ["ptogpu", "isa"] and len(parts) >= 4:
        role = parts[3].split("_")[0]          # (semantics_outcomes: a second semantics module)
        assert role in ROLES, f"{mod}: an instruction package's modules are named for their role ({', '.join(ROLES)})"
        return [n for n, _ in LAYERS].index(ROLES[role])
    best, depth = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (mod == p or mod.startswith(p + ".")) and p.count(".") > depth:
                best, depth = i, p.count(".")
    assert best is not None, f"{mod} belongs to no layer: add it to LAYERS (and to docs/architecture.md)"
    return best


def unit(mod: str) -> str:
    """The package a module counts in for cycles: its subpackage, or itself at the top."""
    parts = mod.split(".")
    if parts[:2] == ["ptogpu", "isa"]:
        return mod                  # an instruction package's roles sit in several layers
    return ".".join(parts[:2])


MODULES = {module_name(p): imports(p) for p in sorted(ROOT.rglob("*.py"))}


def test_every_module_has_a_layer_and_imports_only_down():
    up = [f"{m} ({LAYERS[layer_of(m)][0]}) imports {t} ({LAYERS[layer_of(t)][0]})"
          for m, ts in MODULES.items() for t in sorted(ts) if layer_of(t) > layer_of(m)]
    assert not up, "imports that go up a layer:\n" + "\n".join(up)


def _cycles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Pairs of nodes that reach each other."""
    def reach(a):
        seen, todo = set(), [a]
        while todo:
            for b in graph.get(todo.pop(), ()):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return seen
    return sorted({tuple(sorted((a, b))) for a in graph for b in reach(a) if a != b and a in reach(b)})


def test_no_import_cycles_between_packages():
    graph: dict[str, set[str]] = {}
    for m, ts in MODULES.items():
        for t in ts:
            if unit(t) != unit(m) and unit(t) != "ptogpu":
                graph.setdefault(unit(m), set()).add(unit(t))

    cycles = _cycles(graph)
    assert not cycles, f"packages that import each other (directly or through others): {cycles}"


def test_no_import_cycles_inside_a_package():
    """Within a subpackage too, modules import in one direction (a lazy import counts): the
    lower module holds what both need."""
    graph = {m: {t for t in ts if t in MODULES and unit(t) == unit(m) and t != unit(m)}
             for m, ts in MODULES.items() if m != unit(m)}

    cycles = _cycles(graph)
    assert not cycles, f"modules of one package that import each other: {cycles}"


def test_no_private_name_is_imported_from_another_module():
    """A name another module needs is public in the module that defines it."""
    bad = []
    for p in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom):
                bad += [f"{module_name(p)}:{node.lineno} imports {a.name} from {'.' * node.level}{node.module or ''}"
                        for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    assert not bad, "\n".join(bad)


def test_the_execution_layer_sits_between_the_backends_and_the_campaigns():
    ex = layer_of("ptogpu.execution.batch")
    assert layer_of("ptogpu.backend.launch") < ex < layer_of("ptogpu.fuzz.compare")
    assert ex < layer_of("ptogpu.simt.sweep")


@pytest.mark.parametrize("source, bad", [("from ..fuzz import compare", "ptogpu.fuzz.compare"),
                                         ("def f():\n    from ptogpu.simt import sweep", "ptogpu.simt.sweep")])
def test_the_walk_sees_module_level_and_lazy_imports(tmp_path, source, bad):
    p = ROOT / "execution" / "_layers_probe.py"
    try:
        p.write_text(source + "\n")
        found = imports(p)
    finally:
        p.unlink()
    assert bad in found and layer_of(bad) > layer_of("ptogpu.execution._layers_probe")


def _private_uses(path: pathlib.Path) -> list[str]:
    """``mod._name`` where ``mod`` is a module of another package this file imported
    (``from . import native_backend as nb`` then ``nb._compiler_id``)."""
    me = module_name(path)
    pkg = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text())
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                if resolve(full) == full:
                    aliases[a.asname or a.name] = full
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("ptogpu") and a.asname:
                    aliases[a.asname] = a.name
    bad = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            target = aliases[node.value.id]
            if unit(target) != unit(me):
                bad.append(f"{me}:{node.lineno} reads {target}.{node.attr}")
    return bad


def test_no_private_attribute_of_another_package_is_read():
    """A package reads only the public names of another: its private attributes are its own."""
    bad = [b for p in sorted(ROOT.rglob("*.py")) for b in _private_uses(p)]
    assert not bad, "\n".join(bad)
