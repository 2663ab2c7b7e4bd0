"""What TLOAD writes for a tile's ``PadVal``, per target (``target.pad_values``).

* ``"limits"`` (the simulator, cpu/TLoad.hpp:21-50): TLOAD first fills the whole tile with
  ``getPadValue<TileData>()``: 0 for Null, Zero and every custom value (the switch has no case
  for them); Min/Max are -/+infinity where ``std::numeric_limits<T>::has_infinity``, else its
  ``min()``/``max()``. Types the standard library does not specialise (``_Float16`` below C++23
  -- half, and bfloat16 while it is ``_Float16``: quirk ``cpu_bfloat16_is_half`` --, the
  8-bit float classes, ``int4b_t``) give ``T()``, 0. The float4 pairs specialise it
  (cpu/MXTypes.hpp:207-258: min() raw 0x1, max() raw 0x7) and fill both nibbles of a byte.
* ``"register"`` (A2/A3 and A5: common/arch/{memory,register}/tload_common.hpp): a tile whose
  PadVal is not Null loads its Vec ND/DN bursts with the pad register set to
  ``GetPadValue<TileData>()`` (constants.hpp: ``PadValueMap`` per type -- 0 for 8-byte and 8-bit
  float types --, a custom value's bits cut to the element's size) and the DMA's data-select /
  right-pad on, so each burst's filler up to its 32-byte boundary is that pad element instead of
  the burst's first element. The register keeps the value (``set_mov_pad_val``).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ... import dtypes
from ...enums import PadValue
from ...pad_values import CustomPad

# PadValueMap<T, Min / Max> (constants.hpp:284-420): the pad register's bits
_NPU_MIN_MAX = {
    "float32": (0xFF800000, 0x7F800000), "int32": (0x80000000, 0x7FFFFFFF), "uint32": (0, 0xFFFFFFFF),
    "half": (0xFC00, 0x7C00), "bfloat16": (0xFF80, 0x7F80), "int16": (0x8000, 0x7FFF), "uint16": (0, 0xFFFF),
    "int8": (0x80, 0x7F), "uint8": (0, 0xFF)}


def npu_register_bits(tile_cls) -> int | None:
    """``GetPadValue<TileData>()``: the pad register's value, or None for PadValue.Null (no
    pad: the DMA fills with each burst's first element)."""
    pad, name = tile_cls.PadVal, tile_cls.DType
    size = tile_cls.Element.itemsize
    if isinstance(pad, CustomPad):
        return pad.bits if size >= 4 else pad.bits & ((1 << (8 * size)) - 1)
    if pad is PadValue.Null:
        return None
    if pad is PadValue.Zero or name not in _NPU_MIN_MAX:
        return 0
    return _NPU_MIN_MAX[name][0 if pad is PadValue.Min else 1]


def npu_pad_element(tile_cls, bits: int) -> np.ndarray:
    """One pad element of the tile's type: the register's low bits per load unit
    (``LoadTypeBySize_t``: 8-byte elements move as two 32-bit units)."""
    size = tile_cls.Element.itemsize
    unit = min(size, 4)
    one = (bits & ((1 << (8 * unit)) - 1)).to_bytes(unit, "little")
    return np.frombuffer(one * (size // unit), np.uint8).view(dtypes.storage(tile_cls.Element))


def _limits(name: str, want_min: bool, quirks) -> bytes:
    """``numeric_limits<T>`` infinity / min() / max() as the simulator's build has it."""
    if name == "float32":
        return np.float32(-np.inf if want_min else np.inf).tobytes()
    if name in ("half", "bfloat16"):
        if quirks.get("cpu_bfloat16_is_half", False):      # _Float16 below C++23: unspecialised, T()
            return bytes(2)
        t = np.float16 if name == "half" else ml_dtypes.bfloat16
        return np.array(-np.inf if want_min else np.inf, t).tobytes()
    if name in dtypes.PACKED:                               # min() raw 0x1, max() raw 0x7, both nibbles
        return bytes([0x11 if want_min else 0x77])
    dt = np.dtype(name) if name in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64") \
        else None
    if dt is None:                                          # int4b_t, the 8-bit float classes: T()
        return bytes(dtypes.as_dtype(name).itemsize)
    info = np.iinfo(dt)
    return np.array(info.min if want_min else info.max, dt).tobytes()


def cpu_fill(tile_cls, quirks) -> np.ndarray:
    """The bytes the simulator's TLOAD fills the whole tile with (``tile.nbytes`` of them)."""
    pad = tile_cls.PadVal
    if isinstance(pad, CustomPad) or pad in (PadValue.Null, PadValue.Zero):
        return np.zeros(tile_cls.nbytes, np.uint8)
    one = _limits(tile_cls.DType, pad is PadValue.Min, quirks)
    return np.frombuffer(one * (tile_cls.nbytes // len(one)), np.uint8)
