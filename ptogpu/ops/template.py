"""``NAME[T0, T1, ...](args)``: the explicit template-argument form of a C++ function template
whose parameters are deduced from its operands. Explicit arguments must agree with the
operands, as C++ deduction would demand (a mismatch does not compile: PtoCheckError)."""
from __future__ import annotations

from typing import Callable

from ..errors import PtoCheckError


def _label(x) -> str:
    """A template argument as C++ would spell it: element types by their pto name."""
    import numpy as np

    from .. import dtypes
    if isinstance(x, np.dtype):
        try:
            return dtypes.name_of(x)
        except (KeyError, TypeError, ValueError):
            pass
    return getattr(x, "__name__", str(x))


def _target() -> str | None:
    from ..core import current_core
    try:
        return current_core().target.name
    except Exception:
        return None


class TemplateFunction:
    """``fn`` callable as is, or subscripted with up to ``len(params)`` template arguments;
    ``params`` names each one and says how operand ``k`` must match it."""

    def __init__(self, fn: Callable, name: str,
                 params: list[tuple[str, int, Callable[[object, object], bool]]], given: tuple = ()):
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
        for (pname, k, agrees), want in zip(self.params, self.given):
            if k < len(args) and not agrees(args[k], want):
                raise PtoCheckError(f"template argument {pname} = {_label(want)} does not match "
                                    f"operand {k} ({type(args[k]).__name__})",
                                    rule=f"{self.name} template deduction", target=_target())
        return self.fn(*args, **kw)

    def __repr__(self) -> str:
        if not self.given:
            return self.name
        return f"{self.name}[{', '.join(_label(g) for g in self.given)}]"
