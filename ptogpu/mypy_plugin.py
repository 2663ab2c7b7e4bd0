"""A mypy plugin for ptogpu's C++-style template types (``plugins = ptogpu.mypy_plugin``).

``DstT = pto.Tile[pto.TileType.Vec, pto.float32, 8, 32]`` is a C++ template instantiation
written as a subscript: its arguments are enum members, element types and integers, which
PEP 484 type arguments cannot be. mypy reads such an assignment as a type alias and rejects
every argument. This plugin tells it what the subscript is: the class itself (``Tile``,
``GlobalTensor``, ``Shape``, ``Stride``, ``RegTensor``), whatever the arguments, so
``DstT()`` is a ``Tile`` and an annotation ``t: pto.Tile`` accepts it. (In an expression that
is not an alias, ``pto.Tile[...]`` is already typed through its metaclass ``__getitem__``.)

mypy is not a dependency of ptogpu: this module is imported only by mypy.
"""
from __future__ import annotations

from typing import Callable

from mypy.plugin import AnalyzeTypeContext, Plugin
from mypy.types import Instance, Type

TEMPLATES = {
    "ptogpu.tile.Tile",
    "ptogpu.tensor.GlobalTensor",
    "ptogpu.tensor.Shape",
    "ptogpu.tensor.Stride",
    "ptogpu.reg.registers.RegTensor",
}


def _the_class(ctx: AnalyzeTypeContext) -> Type:
    name = ctx.type.name
    for full in TEMPLATES:
        short = full.rsplit(".", 1)[1]
        if name == full or name.endswith("." + short) or name == short:
            sym = ctx.api.lookup_fully_qualified(full)   # type: ignore[attr-defined]
            return Instance(sym.node, [])
    return ctx.type


class PtoGpuPlugin(Plugin):
    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        return _the_class if fullname in TEMPLATES else None


def plugin(version: str) -> type[Plugin]:
    return PtoGpuPlugin
