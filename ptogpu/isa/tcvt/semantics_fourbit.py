"""TCVT with a 4-bit type on either side (docs/tcvt.md, "4-bit types"). Three models, named by
``target.tcvt.four_bit``:

- ``"sim"`` (the simulator, cpu/TCvt.hpp:138-214): any pair with another plain type. Each element
  goes through GetElement/SetElement: ``int4b_t`` is a byte holding its value in the low nibble,
  the float4 types a nibble each (``ptogpu.nibbles``). ``convert_value``: a float source rounds
  to an integral value by the mode before it is encoded (so CAST_RINT never makes 0.5), an fp4
  source rounds too on its way to a float; the float4 types are ``MXType`` with bias 1 (e2m1:
  0.5..6, e1m2: 0.25..1.75), truncating and wrapping as the 8-bit ones do; any -> int4 clamps to
  [-8, 7] (NaN to 7) whatever the SaturationMode; SaturationMode ON first clamps a non-fp4 source
  to both types' SafeLimits (e1m2's are [-4, 3.5], past its largest value), NaN to the top.
- ``"s4"`` (A2/A3, a2a3/TCvt.hpp:595-636, 1181-1269): half <-> int4b_t by ``vconv_f162s4*`` /
  ``vconv_s42f16``; the int4 tile's rows are Cols bytes apart (sizeof 1), its row's elements
  packed two a byte from the row's start, the even one low; saturating (the no-tmp form forces
  ON), NaN to 0 (modelled as A2/A3's other float -> integer conversions); past 128 columns the
  tail's packed pointer is advanced by 128 bytes a repeat where 64 were written (TCvt.hpp:1140),
  so a width over 128 that is not a multiple of 128 puts its tail's nibbles 64 bytes a repeat
  further on. What an odd width's last byte's other nibble holds is the hardware's: kept, here.
- ``"fp4"`` (A5, a5/TCvt.hpp:1605-1859): bf16 <-> float4_e2m1x2 / float4_e1m2x2. bf16 -> fp4
  first zeroes dst's valid rows (VR x Cols/2 bytes), then writes VC // 2 whole bytes a row (an odd
  width's last element is dropped); the value goes to the format's grid (e2m1: 0, .5, 1, 1.5, 2, 3,
  4, 6; e1m2: 0, .25 .. 1.75) by the mode's rounding (RINT: nearest, ties to the even code, as the
  vendor's goldens compute it), saturating at the largest magnitude; the sign is the value's
  (``x < 0``, as the goldens: -0.0 gives 0x0, -0.1 gives 0x8). Infinity saturates and NaN gives
  0x7: the code does not say (modelled). fp4 -> bf16 is exact (0x8: -0.0) and writes each row's
  VC values, but its two predicates step by 128 where each loop step takes 256 values, so a run
  of more than 256 that is not a multiple of 256 writes up to 128 values past its end, decoded
  from the bytes after the source's (TCvt.hpp:1669-1740); one run a row, or one run of VR*VC when
  both tiles' ValidCol are their static Cols or both have one row (the 1-D form).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ... import dtypes, nibbles
from ...errors import F_DST, F_OTHER, PtoCheckError
from ...semantics.sim_types import mx_decode, mx_encode
from ...semantics.tile_moves import grid
from . import semantics as S

FOUR = dtypes.FOUR_BIT
GRID = {"float4_e2m1x2": np.array([0, .5, 1, 1.5, 2, 3, 4, 6]),
        "float4_e1m2x2": np.array([0, .25, .5, .75, 1, 1.25, 1.5, 1.75])}
SAFE = {"int4": (-8.0, 7.0), "float4_e2m1x2": (-6.0, 6.0), "float4_e1m2x2": (-4.0, 3.5)}   # cpu/TCvt.hpp:120-136
FLOAT_LIKE = ("half", "bfloat16", "float32")


# -- the formats -----------------------------------------------------------------------------------
def grid_decode(codes: np.ndarray, T: str) -> np.ndarray:
    """A5's float4 codes as values: bit 3 the sign, bits 2:0 the grid index (0x8 is -0.0)."""
    c = np.asarray(codes).astype(np.int64)
    v = GRID[T][c & 7]
    return np.where(c & 8, -v, v)


def grid_encode(x: np.ndarray, T: str, letter: str) -> np.ndarray:
    """Values to A5's float4 codes by ``letter`` (R nearest, ties to the even code; A nearest,
    ties away; F floor; C ceil; Z toward zero; O as R), saturating at the grid's end."""
    g = GRID[T]
    x = np.asarray(x, np.float64)
    neg = x < 0
    with np.errstate(invalid="ignore"):
        a = np.where(np.isnan(x), g[-1], np.minimum(np.abs(x), g[-1]))
        lo = np.clip(np.searchsorted(g, a, side="right") - 1, 0, 7)
        hi = np.minimum(lo + 1, 7)
        exact = g[lo] == a
        dl, dh = a - g[lo], g[hi] - a
        if letter in ("R", "O", "A"):
            tie_hi = (hi % 2 == 0) if letter != "A" else np.ones_like(exact)
            up = (dh < dl) | ((dh == dl) & tie_hi)
        elif letter == "Z":
            up = np.zeros_like(exact)
        elif letter == "F":
            up = neg                    # toward -inf: a negative value's magnitude up
        else:                           # C
            up = ~neg
        code = np.where(exact, lo, np.where(up, hi, lo))
    code = np.where(np.isnan(x), 7, code)
    return (code | np.where(neg, 8, 0)).astype(np.uint8)


# -- the simulator -----------------------------------------------------------------------------------
def _safe(T: str) -> tuple[float, float]:
    return SAFE[T] if T in FOUR else S.limits(T)


def _sim_values(raw: np.ndarray, T: str) -> np.ndarray:
    """What GetElement reads, as a number: an fp4 code by ``operator double`` (0x8 is +0.0), an
    int4b_t byte's low nibble sign-extended, any other type's bits as their value."""
    if T in dtypes.PACKED:
        return mx_decode(raw, T)
    if T == "int4":
        lo = raw.astype(np.int64) & 0xF
        return np.where(lo & 8, lo - 16, lo)
    return S.values(raw, T)


def _to_int4(v: np.ndarray) -> np.ndarray:
    """``int4b_t(int8_t(clamp(v, -8, 7)))``: NaN clamps to 7 (std::min(7, NaN) is 7)."""
    with np.errstate(invalid="ignore"):
        c = np.where(np.isnan(v), 7.0, np.clip(v, -8.0, 7.0)) if np.asarray(v).dtype.kind == "f" \
            else np.clip(v, -8, 7)
    return (np.trunc(c).astype(np.int64) & 0xF).astype(np.uint8)


def _sim_cast(v: np.ndarray, D: str) -> np.ndarray:
    """``static_cast<D>(double)``: an fp4 by MXType(double), a float type rounded to nearest, an
    integer as x86's truncating convert gives it."""
    if D in dtypes.PACKED:
        return mx_encode(v, D)
    if D == "int4":
        return (np.trunc(np.nan_to_num(v)).astype(np.int64) & 0xF).astype(np.uint8)
    if S.is_float(D):
        return S.to_float(np.asarray(v, np.float64), D, "R")
    return S.x86_int(np.trunc(np.asarray(v, np.float64)), D)


def _rounded(v: np.ndarray, letter: str) -> np.ndarray:
    """applyRoundingToIntegral: CAST_NONE (and a mode it lacks) leaves the value."""
    return np.asarray(v, np.float64) if letter == "N" else S.to_integral(np.asarray(v, np.float64), letter)


def sim_convert(Sn: str, Dn: str, raw: np.ndarray, letter: str, sat: bool) -> np.ndarray:
    """cpu/TCvt.hpp TCvt_Impl + convert_value for a pair with a 4-bit side: src's raw element
    (a code, an int4 byte, or bits) to dst's (a code, an int4 byte, or bits)."""
    if Sn in dtypes.PACKED and Dn in dtypes.PACKED:
        return np.asarray(raw, np.uint8)                        # FromRaw(val.RawData())
    v = _sim_values(raw, Sn)
    if sat and Sn not in dtypes.PACKED:                          # clamp to both types' SafeLimits
        lo, hi = max(_safe(Sn)[0], _safe(Dn)[0]), min(_safe(Sn)[1], _safe(Dn)[1])
        with np.errstate(invalid="ignore"):
            if S.is_float(Sn):
                c = np.where(np.isnan(v), hi, np.clip(v, lo, hi))
                v = S.values(S.to_float(c, Sn, "R"), Sn)     # from_double_value<S>: back to S
            else:                                               # an integer (int4b_t too): truncated back
                v = np.trunc(np.clip(v.astype(np.float64), lo, hi)).astype(np.int64)
    if Sn == "int4":
        if Dn not in FOUR and not S.is_float(Dn):
            return S.wrap(v, Dn)                                 # static_cast<D>(int8_t)
        return _sim_cast(v.astype(np.float64), Dn) if Dn != "int4" else _to_int4(v)
    if Dn == "int4":
        x = np.asarray(v, np.float64)
        return _to_int4(_rounded(x, letter) if Sn in FLOAT_LIKE else x)
    if (Sn in dtypes.PACKED and Dn in FLOAT_LIKE) or (Sn in FLOAT_LIKE and Dn in dtypes.PACKED):
        return _sim_cast(_rounded(v, letter), Dn)
    return _sim_cast(np.asarray(v, np.float64), Dn)           # static_cast<D>(val), through double


def _read_raw(core, ks, tile, offsets: np.ndarray, what: str) -> np.ndarray:
    if tile.DType in dtypes.PACKED:
        return nibbles.load(core, ks, tile.space, tile.addr, offsets, what, F_OTHER)
    size = tile.Element.itemsize
    addrs = tile.addr + offsets * size
    core.arena(tile.space).check_many(addrs, size, what, core.target.name, code=F_OTHER)
    return core.banks[tile.space].take_same(ks, addrs, S.u(tile.DType) if tile.DType not in FOUR else dtypes.uint8)


def _write_raw(core, ks, tile, offsets: np.ndarray, raw: np.ndarray, what: str) -> None:
    if tile.DType in dtypes.PACKED:
        return nibbles.store(core, ks, tile.space, tile.addr, offsets, raw, what, F_DST)
    bank = core.banks[tile.space]
    size = tile.Element.itemsize
    addrs = tile.addr + offsets * size
    core.arena(tile.space).check_many(addrs, size, what, core.target.name, code=F_DST)
    bank.put(ks, addrs, np.ascontiguousarray(np.broadcast_to(raw, (len(ks), *offsets.shape))))


def _run_sim(core, dst, src, letter: str, sat: bool) -> None:
    for x in (src, dst):
        if x.DType not in FOUR + S.CPU_TYPES:
            raise PtoCheckError(f"TCVT {src.DType} -> {dst.DType}: ptogpu converts 4-bit types to and from "
                                f"{', '.join(S.CPU_TYPES)}", rule="TCVT: element types ptogpu converts",
                                target=core.target.name)
    r, c = grid(src.valid_row, src.valid_col)                 # the simulator: src's valid region
    ks = core.step_instances()
    raw = _read_raw(core, ks, src, np.asarray(src.offsets(r, c), np.int64), "TCVT src read")
    out = sim_convert(src.DType, dst.DType, raw, letter, sat)
    _write_raw(core, ks, dst, np.asarray(dst.offsets(r, c), np.int64), out, "TCVT dst write")


# -- A2/A3 ---------------------------------------------------------------------------------------------
def s4_nibbles(r: np.ndarray, c: np.ndarray, cols: int, vc: int) -> np.ndarray:
    """Nibble offsets of an int4 tile's (r, c) as A2/A3's TCVT walks it: rows Cols bytes apart,
    the head's 128-element repeats packed, the tail 128 bytes a repeat on (TCvt.hpp:1140)."""
    head = (vc // 128) * 128
    return r * (2 * cols) + np.where(c < head, c, c + head)


def _run_s4(core, dst, src, letter: str) -> None:
    VR, VC = dst.valid_row, dst.valid_col                     # A2/A3: dst's valid region
    r, c = grid(VR, VC)
    ks = core.step_instances()
    four, other = (dst, src) if dst.DType == "int4" else (src, dst)
    nib = s4_nibbles(r, c, four.Cols, VC)
    plain = r * other.Cols + c
    if four is dst:                                               # half -> int4: saturating
        core.arena(four.space).check_many(nibbles.split(four.addr, nib)[0], 1, "TCVT int4 tile", core.target.name,
                                          code=F_DST)            # (the int4 tile's bounds first)
        x = S.values(_read_raw(core, ks, src, plain, "TCVT src read"), "half")
        with np.errstate(invalid="ignore"):
            v = np.clip(np.nan_to_num(S.to_integral(x, letter if letter in "RAFCZ" else "R"), nan=0.0), -8, 7)
        nibbles.store(core, ks, four.space, four.addr, nib, v.astype(np.int64) & 0xF, "TCVT int4 tile", F_DST)
    else:                                                         # int4 -> half: exact
        code = nibbles.load(core, ks, four.space, four.addr, nib, "TCVT int4 tile", F_OTHER).astype(np.int64)
        v = np.where(code & 8, code - 16, code).astype(np.float64)
        _write_raw(core, ks, dst, plain, S.to_float(v, "half", "R"), "TCVT dst write")


# -- A5 -------------------------------------------------------------------------------------------------
def fp4_runs(dst, src) -> list[tuple[int, int, int]]:
    """fp4 -> bf16's runs: (src byte offset, dst element offset, length): the 1-D form's one when
    both tiles' ValidCol are their static Cols or both have one row, else one a row."""
    VR, VC = dst.valid_row, dst.valid_col
    one_d = (dst.ValidCol == dst.Cols and src.ValidCol == src.Cols) or (dst.Rows == 1 and src.Rows == 1)
    if one_d:
        return [(0, 0, VR * VC)]
    return [((r * src.Cols) >> 1, r * dst.Cols, VC) for r in range(VR)]


def fp4_written(V: int) -> np.ndarray:
    """The elements a run of V values writes: step i stores 128 at 256i under a predicate of
    min(V - 128i, 128) lanes and 128 at 256i + 128 under min(V - 128 - 128i, 128)."""
    out = []
    for i in range(-(-V // 256)):
        cur, nxt = min(max(V - 128 * i, 0), 128), min(max(V - 128 - 128 * i, 0), 128)
        out += [np.arange(256 * i, 256 * i + cur), np.arange(256 * i + 128, 256 * i + 128 + nxt)]
    return np.concatenate(out).astype(np.int64) if out else np.zeros(0, np.int64)


def _run_fp4(core, dst, src, letter: str) -> None:
    t = core.target.name
    ks = core.step_instances()
    VR, VC = dst.valid_row, dst.valid_col
    if dst.DType in dtypes.PACKED:                                # bf16 -> fp4
        fill = dst.addr + np.arange(VR * (dst.Cols >> 1), dtype=np.int64)
        core.arena(dst.space).check_many(fill, 1, "TCVT dst zero fill", t, code=F_DST)
        core.banks[dst.space].put(ks, fill, np.zeros(fill.size, np.uint8))
        r, c = grid(VR, 2 * (VC // 2))
        x = S.values(_read_raw(core, ks, src, r * src.Cols + c, "TCVT src read"), "bfloat16")
        _write_raw(core, ks, dst, r * dst.Cols + c, grid_encode(x, dst.DType, letter), "TCVT dst write")
        return
    for sb, db, V in fp4_runs(dst, src):                          # fp4 -> bf16
        e = fp4_written(V)
        code = nibbles.load(core, ks, src.space, src.addr + sb, e, "TCVT src read", F_OTHER)
        v = grid_decode(code, src.DType).astype(ml_dtypes.bfloat16).view(np.uint16)
        _write_raw(core, ks, dst, db + e, v, "TCVT dst write")


def run(core, dst, src, letter: str, sat: bool) -> None:
    """TCVT with a 4-bit side by the target's model (the pair is in its table: the caller's check)."""
    model = core.target.tcvt.four_bit
    if model == "sim":
        return _run_sim(core, dst, src, letter, sat)
    if model == "s4":
        return _run_s4(core, dst, src, letter)
    return _run_fp4(core, dst, src, letter)


__all__ = ["grid_decode", "grid_encode", "sim_convert", "s4_nibbles", "fp4_runs", "fp4_written", "run"]
