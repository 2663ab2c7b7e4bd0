"""TCVT to and from the 8-bit float types (float8_e4m3, float8_e5m2, hifloat8) per target
(docs/tcvt.md). Two models, named by ``target.tcvt.minifloats``:

- ``"vcvt"`` (A5, a5/TCvt.hpp:466-600, 1048-1396, 2229-2357): seven pairs. float32 -> e4m3 / e5m2
  round to nearest even whatever the RoundMode (``ROUND_R`` is written in the code), float32 and
  half -> hifloat8 to nearest with ties away (``ROUND_A``, "a hardware requirement"), the 8-bit
  -> float32 conversions are exact; the SaturationMode is never read (``RS_DISABLE``). What the
  hardware gives on overflow, infinity and NaN is not in the code: modelled as the vendor's own
  goldens compute it (tests/npu/a5/src/st/testcase/tcvt/gen_data.py: ml_dtypes' float8_e4m3fn
  and float8_e5m2, en_dtypes' hifloat8 -- e4m3 overflows to NaN, e5m2 and hifloat8 to infinity).
- ``"mx"`` (the simulator, cpu/TCvt.hpp:159-214, its types as ``semantics.sim_types`` converts
  them): any pair. e4m3 and e5m2 are ``MXType``: the double's mantissa truncated, the exponent
  rebiased and masked to its width (overflow, infinity and NaN wrap), double denormals and zeros
  (either sign) to 0; decoded with no infinity or NaN and -0 read as +0. hifloat8 is a 256-entry
  table decoded by a formula that gives the two narrowest exponent widths too many mantissa bits,
  and encoded as the nearest table value, ties to the lower one, NaN to the lowest (-inf). The
  RoundMode does not reach these casts (``static_cast<D>(val)``: one user-defined conversion,
  through double, so one 8-bit type converts to another, unlike an assignment). With SaturationMode ON every such conversion writes 0:
  the clamp reads ``std::numeric_limits`` of the 8-bit type, which is not specialised (0, 0).

The hifloat8 encoder is written here, not taken from en_dtypes (the library the vendor's goldens
use): en_dtypes 0.0.4 is an experimental package with wheels for few platforms; the tests hold
this encoder to it byte for byte where it is installed."""
from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

from ... import dtypes
from ...semantics.sim_types import HIF8_VALUES, hif8_encode, mx_decode, mx_encode

F8 = ("float8_e4m3", "float8_e5m2", "hifloat8")
OCP = {"float8_e4m3": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}


def hif8_table(model: str) -> np.ndarray:
    """The 256 hifloat8 codes' values: the format's (``vcvt``) or the simulator's table (``mx``,
    ``semantics.sim_types``)."""
    return HIF8_VALUES if model == "mx" else _format_values()


@functools.cache
def _format_values() -> np.ndarray:
    v = dtypes.hifloat8_to_float32(np.arange(256, dtype=np.uint8)).astype(np.float64)
    v.flags.writeable = False
    return v


@functools.cache
def _format_magnitudes() -> tuple[np.ndarray, np.ndarray]:
    """The positive codes and their values in ascending order, +inf (0x6F) at 49152: it rounds
    from 40960 = (32768 + 49152) / 2 on."""
    t = _format_values()[:128].copy()
    t[0x6F] = 49152.0
    order = np.argsort(t, kind="stable")
    return order, t[order]


def decode(bits: np.ndarray, T: str, model: str) -> np.ndarray:
    """8-bit codes of type T as float64 values."""
    b = np.asarray(bits).astype(np.uint8)
    if T == "hifloat8":
        return hif8_table(model)[b]
    if model == "vcvt":
        return b.view(OCP[T]).astype(np.float64)
    return mx_decode(b, T)


def _hif8_encode(x: np.ndarray) -> np.ndarray:
    """hifloat8 to nearest, ties away from zero (A5's ROUND_A); past the largest finite value
    (32768) from the midpoint to the next power-spaced step (40960) on: infinity (0x6F); NaN 0x80;
    no negative zero."""
    order, sv = _format_magnitudes()
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    with np.errstate(invalid="ignore"):
        pos = np.clip(np.searchsorted(sv, a, side="left"), 1, len(sv) - 1)
        lo, hi = sv[pos - 1], sv[pos]
        code = np.where(a - lo >= hi - a, order[pos], order[pos - 1])
        code = np.where(a >= sv[-1], 0x6F, code).astype(np.uint8)
        code = np.where((x < 0) & (code != 0), code | 0x80, code)
    return np.where(np.isnan(x), 0x80, code).astype(np.uint8)


def encode(x: np.ndarray, T: str, model: str) -> np.ndarray:
    """float64 values to 8-bit codes of type T."""
    if T == "hifloat8":
        return _hif8_encode(x) if model == "vcvt" else hif8_encode(x)
    if model == "vcvt":
        with np.errstate(all="ignore"):
            return np.asarray(x, np.float64).astype(OCP[T]).view(np.uint8)
    return mx_encode(x, T)


def convert(model: str, S: str, D: str, x_or_bits: np.ndarray, sat: bool, to_other) -> np.ndarray:
    """A conversion with an 8-bit float on either side, as D's bits. ``x_or_bits``: the source's
    codes when S is 8-bit, else its exact values; ``to_other(x, D)``: a float64 value to another
    type D the way the target's C++ cast does it (the simulator's)."""
    if model == "mx" and sat:                          # the clamp to [0, 0]
        return np.zeros(np.shape(x_or_bits), np.dtype(f"u{dtypes.as_dtype(D).itemsize}"))
    if S == D:                                         # (a copy of the same type)
        return np.asarray(x_or_bits).astype(np.uint8)
    x = decode(x_or_bits, S, model) if S in F8 else np.asarray(x_or_bits, np.float64)
    if D in F8:
        return encode(x, D, model)
    return to_other(x, D)


__all__ = ["F8", "decode", "encode", "convert", "hif8_table"]
