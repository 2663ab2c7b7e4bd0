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
