"""A value a kernel reads from emulated memory on a core of N running it as one core
(``core.program()``): every instance's value at once, decided only where the code decides.

C++ kernels leave loops on what they read (``if (mask.data()[i] != 0xFF) break;``). Parking
every instance whose *bytes* differ from the path's (``Core.answer``) runs such a loop once per
distinct value; an :class:`InstanceValues` instead carries every live instance's value through
comparisons and arithmetic (NumPy, element by element) and parks an instance only when a branch
*outcome* differs: ``bool()`` of it asks :meth:`ptogpu.Core.decide`. Turned into a Python number
(``int()``, ``float()``, an index), it is answered by value as any other read."""
from __future__ import annotations

import operator

import numpy as np


class InstanceValues:
    """One scalar per instance of the core (the rows of ``values``), as the program reads it."""
    __slots__ = ("core", "values")

    def __init__(self, core, values: np.ndarray) -> None:
        self.core, self.values = core, np.asarray(values)

    def _op(self, other, fn, swap=False):
        o = other.values if isinstance(other, InstanceValues) else other
        with np.errstate(all="ignore"):
            r = fn(o, self.values) if swap else fn(self.values, o)
        return InstanceValues(self.core, r)

    def __bool__(self) -> bool:
        return self.core.decide(self.values.astype(bool))

    def _scalar(self):
        return self.core.answer(self.values.reshape(len(self.values), 1))[0].item()

    def __int__(self) -> int:
        return int(self._scalar())

    def __index__(self) -> int:
        return operator.index(self._scalar())

    def __float__(self) -> float:
        return float(self._scalar())

    def __repr__(self) -> str:
        return f"InstanceValues({self.values!r})"

    def __invert__(self):
        return InstanceValues(self.core, ~self.values)

    def __neg__(self):
        return InstanceValues(self.core, -self.values)


def _binary(fn):
    return (lambda self, o: self._op(o, fn)), (lambda self, o: self._op(o, fn, swap=True))


for _name, _fn in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                   ("gt", np.greater), ("ge", np.greater_equal)):
    setattr(InstanceValues, f"__{_name}__", _binary(_fn)[0])
for _name, _fn in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("and", np.bitwise_and),
                   ("or", np.bitwise_or), ("xor", np.bitwise_xor), ("lshift", np.left_shift),
                   ("rshift", np.right_shift), ("floordiv", np.floor_divide), ("mod", np.mod)):
    _f, _r = _binary(_fn)
    setattr(InstanceValues, f"__{_name}__", _f)
    setattr(InstanceValues, f"__r{_name}__", _r)
InstanceValues.__hash__ = None
