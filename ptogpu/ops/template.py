"""``NAME[T0, T1, ...](args)``: the explicit template-argument form of a C++ function template
whose parameters are deduced from its operands. Explicit arguments must agree with the
operands, as C++ deduction would demand (a mismatch does not compile: PtoCheckError)."""
from __future__ import annotations

import functools

from typing import Callable

from ..errors import PtoCheckError


def label(x) -> str:
    """A template argument as C++ would spell it: element types by their pto name."""
    import numpy as np

    from .. import dtypes
    if isinstance(x, np.dtype):
        try:
            return dtypes.name_of(x)
        except (KeyError, TypeError, ValueError):
            pass
    from enum import Enum
    if isinstance(x, Enum):
        return f"{type(x).__name__}.{x.name}"
    return getattr(x, "__name__", str(x))


def _target() -> str | None:
    from ..core import current_core
    try:
        return current_core().target.name
    except Exception:
        return None


class TemplateFunction:
    """``fn`` callable as is, or subscripted with up to ``len(params)`` template arguments;
    ``params`` names each one and says how operand ``k`` (or each operand of a tuple ``k``:
    ``TINTERLEAVE``'s ``TileDataDst`` types dst1 and dst0) must match it."""

    def __init__(self, fn: Callable, name: str,
                 params: list[tuple[str, "int | tuple[int, ...]", Callable[[object, object], bool]]],
                 given: tuple = ()):
        self.fn, self.name, self.params, self.given = fn, name, params, given
        self.__doc__, self.__wrapped__ = fn.__doc__, fn

    def __getitem__(self, args) -> "TemplateFunction":
        if self.given:
            raise TypeError(f"{self.name}: template arguments already given")
        args = args if isinstance(args, tuple) else (args,)
        if not 1 <= len(args) <= len(self.params):
            raise PtoCheckError(f"{self.name}<{', '.join(p[0] for p in self.params)}> takes 1 to "
                                f"{len(self.params)} template arguments, got {len(args)}",
                                rule=f"{self.name} template")
        return TemplateFunction(self.fn, self.name, self.params, args)

    def __call__(self, *args, **kw):
        for (pname, ks, agrees), want in zip(self.params, self.given):
            for k in (ks if isinstance(ks, tuple) else (ks,)):
                if k < len(args) and not agrees(args[k], want):
                    raise PtoCheckError(f"template argument {pname} = {label(want)} does not match "
                                        f"operand {k} ({type(args[k]).__name__})",
                                        rule=f"{self.name} template deduction", target=_target())
        return self.fn(*args, **kw)

    def __repr__(self) -> str:
        if not self.given:
            return self.name
        return f"{self.name}[{', '.join(label(g) for g in self.given)}]"


class Forms:
    """An instruction with several call forms told apart by their operands and template
    arguments, C++-style: ``NAME(ops...)``, ``NAME[T0, T1, E0, ...](ops...)`` where the ``Tk``
    are the operands' Tile types (checked against operand k, as deduction would) and the
    enum values fill the form's non-type template parameters by their enum class (a value
    of a class the form does not take is a PtoCheckError). ``run(ops, enums)`` does the
    work; it receives {enum class: value} for the values given."""

    def __init__(self, name: str, run: Callable, enums: tuple[type, ...], most: int, doc: str = "",
                 given: tuple = ()) -> None:
        self.name, self.run, self.enums, self.most, self.given = name, run, enums, most, given
        self.__doc__ = doc or run.__doc__
        if type(self) is Forms:             # help(pto.NAME) shows the instruction's forms
            self.__class__ = type(name, (Forms,), {"__doc__": self.__doc__, "__module__": run.__module__})

    def __getitem__(self, args) -> "Forms":
        if self.given:
            raise TypeError(f"{self.name}: template arguments already given")
        args = args if isinstance(args, tuple) else (args,)
        return type(self)(self.name, self.run, self.enums, self.most, self.__doc__, args)

    def __call__(self, *args):
        types = [g for g in self.given if isinstance(g, type)]
        enums: dict = {}
        for g in self.given:
            if isinstance(g, type):
                continue
            cls = next((e for e in self.enums if isinstance(g, e)), None)
            if cls is None or cls in enums:
                raise PtoCheckError(f"template argument {label(g)} is not a {'/'.join(e.__name__ for e in self.enums)} "
                                    "the call takes (once each)", rule=f"{self.name} template", target=_target())
            enums[cls] = g
        for k, (want, op) in enumerate(zip(types, args)):
            if not isinstance(op, want):
                raise PtoCheckError(f"template argument {k} = {label(want)} does not match operand {k} "
                                    f"({type(op).__name__})", rule=f"{self.name} template deduction",
                                    target=_target())

        return _instruction(self.name, self.run, self.most)(*args, _enums=enums)

    def __repr__(self) -> str:
        return self.name if not self.given else f"{self.name}[{', '.join(label(g) for g in self.given)}]"


@functools.lru_cache(maxsize=None)
def _instruction(name: str, run, most: int):
    """The call of one instruction's forms, made once (its checks read the step's signature):
    ``most`` positional operands, the template's enums by keyword."""
    from .events import instruction

    def step(*ops, _enums):
        return run(ops, _enums)
    step.__signature__ = _positional(most)
    return instruction(name)(step)


def _positional(n: int):
    import inspect
    P = inspect.Parameter
    return inspect.Signature([P(f"op{k}", P.POSITIONAL_ONLY) for k in range(n)])
