"""The element-wise family's per-element arithmetic in NumPy, per target model (the fields of
``rules.ElementwiseRules``): one home for what each call computes from its operands' bits.

Every function takes and returns the element type's raw bits (its storage dtype, any leading
shape) so NaN payloads, signed zeros and wrap-around pass exactly. Floats are computed in
float32 and rounded once to the element type (RNE), which is the correctly rounded result for
one ``+ - * /`` of half, bfloat16 and float (the simulator's ``_Float16`` / ``std::bfloat16_t``
arithmetic). NaN results follow x86's rules, written out (so every engine gives them, whatever
its hardware): a NaN operand gives itself, quieted, the first one first; an invalid operation
(inf - inf, 0 * inf, 0 / 0) gives the default NaN, 0xFFC00000 in float (the model ptogpu runs
for the NPUs' vector units too, whose NaN payloads the vendor code does not define)."""

from __future__ import annotations

import numpy as np

from ... import dtypes

FLOATS = ("half", "bfloat16", "float32")

QUIET = 0x00400000
DEFAULT_NAN = np.uint32(0xFFC00000)


def nan_rule(x: np.ndarray, y: np.ndarray | None, r: np.ndarray) -> np.ndarray:
    """float32 result ``r`` of ``x op y`` with x86's NaN rules made explicit."""
    rb = r.astype(np.float32).view(np.uint32)
    rb = np.where(np.isnan(r), DEFAULT_NAN, rb)
    if y is not None:
        rb = np.where(np.isnan(y), y.view(np.uint32) | np.uint32(QUIET), rb)
    rb = np.where(np.isnan(x), x.view(np.uint32) | np.uint32(QUIET), rb)
    return rb.view(np.float32)


def is_float(T: str) -> bool:
    return T in FLOATS


def width(T: str) -> int:
    return dtypes.as_dtype(T).itemsize * 8


def U(T: str) -> np.dtype:
    """The unsigned integer type of T's width: how every function here takes and gives bits."""
    return np.dtype(f"u{dtypes.as_dtype(T).itemsize}")


def ints(bits: np.ndarray, T: str) -> np.ndarray:
    """Integer bits as int64 values (uint64 kept as uint64)."""
    v = bits.view(dtypes.as_dtype(T))
    return v if T == "uint64" else v.astype(np.int64)


def wrap(v: np.ndarray, T: str) -> np.ndarray:
    """Integer values (any width) as T's bits, modulo 2^width."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(v).astype(np.dtype(T) if not isinstance(v, np.ndarray) or v.dtype.kind != "u"
                                    else U(T)).view(U(T))


def f32(bits: np.ndarray, T: str, ftz: bool = False) -> np.ndarray:
    """Float bits as float32 values (exact); ``ftz``: denormals as signed zeros."""
    with np.errstate(invalid="ignore"):              # (NaN payloads cast as they are)
        v = bits.view(dtypes.as_dtype(T)).astype(np.float32)
    if ftz:
        v = flush(v, T)
    return v


def flush(v: np.ndarray, T: str) -> np.ndarray:
    """Values below T's smallest normal as zeros of their sign (the NPUs' FTZ)."""
    tiny = {"half": 2.0 ** -14, "bfloat16": 2.0 ** -126, "float32": 2.0 ** -126}[T]
    small = (np.abs(v) < tiny) & (v != 0)
    return np.where(small, np.copysign(np.float32(0), v), v).astype(np.float32) if small.any() else v


def fbits(v: np.ndarray, T: str, ftz: bool = False) -> np.ndarray:
    """float32 values rounded once (RNE) to T, as T's bits."""
    dt = dtypes.as_dtype(T)
    with np.errstate(all="ignore"):
        out = np.asarray(v, np.float32).astype(dt)
    if ftz and T != "float32":
        out = flush(out.astype(np.float32), T).astype(dt)
    elif ftz:
        out = flush(out, T)
    return out.view(U(T))


def arith(op: str, a: np.ndarray, b: np.ndarray, T: str, ftz: bool) -> np.ndarray:
    """``a op b`` for op in + - * (and / for floats), as T's bits: floats rounded once, integers
    modulo 2^width (8/16-bit promoted to int, as C++ does; the NPUs' vector ALUs modelled the same)."""
    if is_float(T):
        x, y = f32(a, T, ftz), f32(b, T, ftz)
        x, y = np.broadcast_arrays(x, y)
        with np.errstate(all="ignore"):
            r = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op](x, y)
        return fbits(nan_rule(x, y, r), T, ftz)
    x, y = ints(a, T), ints(b, T)
    if T == "uint64" or T == "int64":
        x, y = x.astype(np.dtype(T)), y.astype(np.dtype(T))
    with np.errstate(all="ignore"):
        r = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](x, y)
    return wrap(r, T)


def int_div(a: np.ndarray, b: np.ndarray, T: str, zero_gives: int | None = None):
    """C's truncating ``a / b``; (bits, trap mask): a zero divisor, and MIN / -1 of a 4- or
    8-byte type (x86 ``idiv`` raises #DE for both; 1- and 2-byte types are promoted to int and
    wrap). ``zero_gives``: the value x/0 gives instead of trapping (A5's 8-byte long division,
    which also gives MIN for MIN / -1)."""
    x, y = ints(a, T), ints(b, T)
    signed = T.startswith("int")
    w = width(T)
    zero = y == 0
    over = np.zeros_like(zero)
    if signed and w >= 32:
        over = (x == -(1 << (w - 1))) & (y == -1)
    safe = np.where(zero | over, 1, y)
    if T == "uint64":
        q = x // safe
    else:
        q = np.trunc(np.true_divide(x, safe)).astype(np.int64) if w < 64 else _trunc_div64(x, safe)
    if zero_gives is not None:
        q = np.where(zero, zero_gives, np.where(over, x, q))
        return wrap(q, T), np.zeros_like(zero)
    return wrap(np.where(zero | over, 0, q), T), zero | over


def _trunc_div64(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    q = np.abs(x) // np.abs(y)
    return np.where((x < 0) != (y < 0), -q, q)


def maxmin(kind: str, a: np.ndarray, b: np.ndarray, T: str, model: str, ftz: bool) -> np.ndarray:
    """``kind`` "max" | "min" of a (src0 / src) and b (src1 / the scalar): "std" std::max(a, b)
    = (a < b) ? b : a, std::min = (b < a) ? b : a (a on NaN and on ties); "vmax": a NaN operand
    wins (a's first), else (a > b) ? a : b / (a < b) ? a : b (b on ties); "pseudo": the ISA page's
    (a > b) ? a : b / (a < b) ? a : b (b on NaN and on ties)."""
    if is_float(T):
        x, y = f32(a, T, ftz), f32(b, T, ftz)
        xb, yb = fbits(x, T), fbits(y, T)
    else:
        x, y = ints(a, T), ints(b, T)
        xb, yb = a, b
    with np.errstate(invalid="ignore"):
        if model == "std":
            take_b = (x < y) if kind == "max" else (y < x)
        else:
            take_a = (x > y) if kind == "max" else (x < y)
            take_b = ~take_a
            if model == "vmax" and is_float(T):
                an, bn = np.isnan(x), np.isnan(y)
                take_b = np.where(an, False, np.where(bn, True, take_b))
    return np.where(take_b, yb, xb).astype(U(T))


def shift(kind: str, a: np.ndarray, b: np.ndarray, T: str, model: str) -> np.ndarray:
    """``a << b`` / ``a >> b`` (arithmetic for signed T). "c": the count's value, 1/2-byte types
    promoted to int; a count outside [0, 32) (a 32-bit type) or [0, 64) (64-bit) is undefined in
    C++: x86's scalar shift masks it to 5 (6) bits, which ptogpu runs. "vector": a count >= T's
    width, or negative, gives 0 (left, unsigned right) or the sign (signed right); 8-byte lanes
    mask it to 6 bits (A5's Int64ShiftRegs)."""
    w = width(T)
    signed = T.startswith("int")
    x = ints(a, T)
    c = ints(b, T) if T != "uint64" else b.view(np.int64).astype(np.int64)
    if not signed and T != "uint64":
        c = c.astype(np.int64)
    if model == "c":
        pw = max(w, 32)
        n = c & (pw - 1)
        big = False
    else:
        if w == 64:
            n, big = c & 63, False
        else:
            cs = b.view(np.dtype(f"i{w // 8}")).astype(np.int64)       # the count lane, signed
            big = (cs < 0) | (cs >= w)
            n = np.where(big, 0, cs)
    if T == "uint64":
        xs = x.astype(np.uint64)
        r = (xs << n.astype(np.uint64)) if kind == "shl" else (xs >> n.astype(np.uint64))
        return r.view(np.uint64) if big is False else np.where(big, np.uint64(0), r)
    if T == "int64":
        xs = x.astype(np.int64)
        with np.errstate(over="ignore"):
            r = (xs.view(np.uint64) << n.astype(np.uint64)).view(np.int64) if kind == "shl" else (xs >> n)
        return r
    if model == "c" and w < 32:
        xv = x.astype(np.int64)              # the promoted int: sign- or zero-extended
        r = ((xv << n) & 0xFFFFFFFF) if kind == "shl" else (xv >> n)
        return wrap(r, T)
    if kind == "shl":
        r = (x.astype(np.int64) << n) & ((1 << w) - 1)
    else:
        r = x.astype(np.int64) >> n          # x is T's value: arithmetic for signed, logical for unsigned
    if big is not False:
        fill = np.where(x < 0, -1, 0) if (signed and kind == "shr") else 0
        r = np.where(big, fill, r)
    return wrap(r, T)


def bitwise(kind: str, a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    if kind == "not":
        return ~a
    return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind](a, b)


def neg(a: np.ndarray, T: str, model: str, ftz: bool) -> np.ndarray:
    """"c": ``-x`` (integers modulo 2^width; floats: the sign bit flipped, NaN too); "muls": the
    NPUs' ``vmuls(x, -1)`` (a NaN keeps its sign and is quieted; denormals flush)."""
    if not is_float(T):
        return wrap(-ints(a, T).astype(np.int64) if T != "uint64" else (np.uint64(0) - a.astype(np.uint64)), T)
    if model == "c":
        return a ^ _sign(T)
    x = f32(a, T, ftz)
    with np.errstate(all="ignore"):
        return fbits(nan_rule(x, None, x * np.float32(-1)), T, ftz)


def absolute(a: np.ndarray, T: str, model: str) -> np.ndarray:
    """"c": ``x < 0 ? -x : x`` (-0.0 and -NaN keep their sign; MIN wraps to itself); "vabs": the
    sign bit cleared (floats), MIN wrapping to itself (integers, the model of an undefined case)."""
    if not is_float(T):
        x = ints(a, T)
        return wrap(np.where(x < 0, -x, x), T)
    if model == "vabs":
        return a & ~_sign(T)
    x = a.view(dtypes.as_dtype(T)).astype(np.float32)
    with np.errstate(invalid="ignore"):
        return np.where(x < 0, a ^ _sign(T), a)


def _sign(T: str):
    return U(T).type(1 << (width(T) - 1))


def scalar_bits(s, T: str) -> np.ndarray:
    """A Python scalar converted to T as C++ converts the call's argument: integers modulo
    2^width, floats rounded (RNE) to a float T or truncated toward zero for an integer T (the
    caller refuses a float out of its range); as a 0-d array of T's bits."""
    dt = dtypes.as_dtype(T)
    if isinstance(s, np.generic) and s.dtype == dt:
        return np.asarray(s).view(U(T))              # T's own value: passed as it is (an sNaN stays one)
    if isinstance(s, (np.generic, np.ndarray)):
        s = np.asarray(s).item()
    if is_float(T):
        with np.errstate(all="ignore"):
            return np.asarray(np.float64(s)).astype(dt).view(U(T))
    v = int(s) & ((1 << width(T)) - 1)          # (a float: truncated toward zero first)
    return np.asarray(v, np.uint64).astype(U(T))
