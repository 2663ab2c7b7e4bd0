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


class MaskPattern(IntEnum):
    """``MaskPattern`` of TGATHER/TSCATTER's mask forms (type.hpp; bit strings read right to
    left: P0101 selects elements 0, 2, 4, ...)."""
    P0101 = 1
    P1010 = 2
    P0001 = 3
    P0010 = 4
    P0100 = 5
    P1000 = 6
    P1111 = 7

    @property
    def factor(self) -> int:
        """GetTimesByMask: how many elements one selected element stands for (1, 2 or 4)."""
        return 1 if self is MaskPattern.P1111 else 2 if self <= MaskPattern.P1010 else 4

    @property
    def position(self) -> int:
        """The selected element of each group of ``factor`` (0 for P1111: all are)."""
        return {1: 0, 2: 1, 3: 0, 4: 1, 5: 2, 6: 3, 7: 0}[int(self)]

    def count(self, n: int) -> int:
        """CountSelected(pattern, n): how many of elements 0 .. n-1 the pattern selects."""
        return n if self is MaskPattern.P1111 else max(0, (n - self.position + self.factor - 1) // self.factor)

    def selects(self, i):
        """MaskSelect(pattern, i) for an int or an int array."""
        return (i % self.factor) == self.position if self is not MaskPattern.P1111 else (i == i)


class GatherAxis(IntEnum):
    GATHER_ROW = 0
    GATHER_COL = 1


class ScatterAxis(IntEnum):
    SCATTER_ROW = 0
    SCATTER_COL = 1


class CmpMode(IntEnum):
    EQ = 0
    NE = 1
    LT = 2
    LE = 3
    GT = 4
    GE = 5


class DivAlgorithm(IntEnum):
    """TDIV / TDIVS precision (type.hpp:385): A5's HIGH_PRECISION emulates IEEE division."""
    DEFAULT = 0
    HIGH_PRECISION = 1


class RoundMode(IntEnum):
    """TCVT rounding (type.hpp:251-259)."""
    CAST_NONE = 0
    CAST_RINT = 1
    CAST_ROUND = 2
    CAST_FLOOR = 3
    CAST_CEIL = 4
    CAST_TRUNC = 5
    CAST_ODD = 6


class SaturationMode(IntEnum):
    """TCVT saturation (type.hpp:327-333): ON clamps to the destination's range."""
    ON = 0
    OFF = 1


class PadValue(IntEnum):
    """A tile's ``PadVal`` (type.hpp:312): what TLOAD writes where it pads. A custom value
    (``PadCustom`` / ``PadValueCustom``) is a :class:`CustomPad`, the enum's ``CustomBase``
    with the value's bits in bits [0, 32)."""
    Null = 0
    Zero = 1
    Max = 2
    Min = 3


CUSTOM_BASE = 1 << 32
"""``PadValue::CustomBase``: a custom pad value is this | its 32 bits."""


class CompactMode(IntEnum):
    """A tile's ``Compact`` (type.hpp:335). Only TFILLPAD, TEXTRACT and the Acc paths of
    TSTORE read it, none of which ptogpu has: accepted and carried, never acted on."""
    Null = 0
    Normal = 1
    RowPlusOne = 2
    RowAlignedPadding = 3
