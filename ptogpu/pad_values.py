"""Custom tile pad values: ``PadCustom<V>`` and ``PadValueCustom(x)`` of
``include/pto/common/constants.hpp`` (a ``PadValue`` of ``CustomBase | bits``), and the tile
parameter's normal form. What a target writes for each pad value is TLOAD's rule
(``isa/datamove/pads.py``)."""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from .enums import CUSTOM_BASE, PadValue


@dataclass(frozen=True)
class CustomPad:
    """A custom ``PadValue``: ``bits`` are the 32 bits the constant was made from."""
    bits: int

    @property
    def value(self) -> int:
        """The enum's uint64 value."""
        return CUSTOM_BASE | self.bits

    @property
    def name(self) -> str:
        return f"Custom{self.bits:#010x}"

    def __repr__(self) -> str:
        return f"PadCustom(bits={self.bits:#010x})"


def PadCustom(value) -> CustomPad:
    """``PadCustom<V>``: a float (or double) as float32 bits, an integer as uint32."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("PadCustom takes a float or an integer")
    if isinstance(value, (int, np.integer)):
        return CustomPad(int(value) & 0xFFFFFFFF)
    return CustomPad(int(np.array(value, np.float32).view(np.uint32)))


_WIDTH = {np.dtype(np.float16): 16, np.dtype(ml_dtypes.bfloat16): 16, np.dtype(np.int16): 16,
          np.dtype(np.int8): 8, np.dtype(np.uint8): 8, np.dtype(np.int32): 32, np.dtype(np.uint32): 32,
          np.dtype(np.float32): 32}


def PadValueCustom(value) -> CustomPad:
    """``PadValueCustom(x)``, overloaded on x's type: a NumPy scalar of float32, half,
    bfloat16, int32, uint32, int16, int8 or uint8 keeps its bits (zero-extended); a Python
    float is a float (float32 bits), a Python int an ``int32_t``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("PadValueCustom takes a number")
    if isinstance(value, np.generic):
        dt = np.dtype(type(value))
        if dt not in _WIDTH:
            raise TypeError(f"PadValueCustom has no overload for {dt}")
        w = _WIDTH[dt]
        return CustomPad(int(np.array(value).view(f"u{w // 8}")))
    if isinstance(value, int):
        if not -2 ** 31 <= value < 2 ** 31:
            raise TypeError(f"PadValueCustom({value}): outside int32_t (use np.uint32)")
        return CustomPad(value & 0xFFFFFFFF)
    return CustomPad(int(np.array(value, np.float32).view(np.uint32)))


def PadValueCustom16(bits16: int) -> CustomPad:
    """``PadValueCustom16``: 16 raw bits (a half or bfloat16 pattern)."""
    return CustomPad(int(bits16) & 0xFFFF)


def as_pad(p) -> PadValue | CustomPad:
    """A tile's PadVal parameter: a PadValue, a CustomPad, or the enum's uint64 value."""
    if isinstance(p, (PadValue, CustomPad)):
        return p
    if isinstance(p, (int, np.integer)) and not isinstance(p, bool):
        v = int(p)
        if CUSTOM_BASE <= v < 1 << 64:
            return CustomPad(v & 0xFFFFFFFF)
        if v in PadValue._value2member_map_:
            return PadValue(v)
    raise TypeError(f"PadVal must be a PadValue or PadCustom/PadValueCustom(...), not {p!r}")
