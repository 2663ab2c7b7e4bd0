"""Enumerations with the values of ``include/pto/common/type.hpp``."""
from __future__ import annotations

from enum import IntEnum


class TileType(IntEnum):
    Vec = 0          # UB
    Mat = 1          # L1 / cbuf
    Left = 2
    Right = 3
    Acc = 4
    Bias = 5
    Scaling = 6
    ScaleLeft = 7
    ScaleRight = 8
    Ctrl = 9


class BLayout(IntEnum):
    RowMajor = 0
    ColMajor = 1


class SLayout(IntEnum):
    NoneBox = 0
    RowMajor = 1
    ColMajor = 2


class Layout(IntEnum):
    ND = 0
    DN = 1
    NZ = 2


class GatherOOB(IntEnum):
    Undefined = 0
    Clamp = 1
    Wrap = 2
    Zero = 3


class Coalesce(IntEnum):
    Row = 0
    Elem = 1


class GatherExec(IntEnum):
    """Defined only by the A5 header; accepted only on target ``a5``."""
    Scalar = 0
    Simt = 1


DYNAMIC = -1


class ScatterAtomicOp(IntEnum):
    """``None`` is a Python keyword: the member is ``None_`` (also ``ScatterAtomicOp["None"]``
    and ``ScatterAtomicOp(0)``)."""
    None_ = 0
    Add = 1
    Max = 2
    Min = 3

    @classmethod
    def _missing_(cls, value):
        return cls.None_ if value == "None" else None

    @property
    def cname(self) -> str:
        """The C++ spelling (``None``, ``Add``, ...)."""
        return "None" if self is ScatterAtomicOp.None_ else self.name


ScatterAtomicOp._member_map_["None"] = ScatterAtomicOp.None_


class ScatterOOB(IntEnum):
    Undefined = 0
    Skip = 1
    Clamp = 2
    Wrap = 3


class ScatterConflict(IntEnum):
    Last = 0
    Default = 1
