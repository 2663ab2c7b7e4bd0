"""The known suite's kernels for the instructions around the gathers: each a few calls of one
instruction group between TLOAD and TSTORE, with generated data, so a campaign across two
targets shows the divergences that group's rules predict (element-wise arithmetic and its
denormal flush, max/min with NaN, shift counts, A2/A3's float TSUBS, compare masks, select mask
walks, TCVT, TMOV, TSORT32), and one on a kernel backend checks the element-wise kernel against
the NumPy semantics. Each function is a kernel as users write them; ``FUZZ`` gives its buffers
(``ptogpu.execution.program.load("ptogpu.fuzz.suite_kernels:NAME")``)."""
from __future__ import annotations

import numpy as np

import ptogpu as pto
from ..execution.inputs import values

V, RM = pto.TileType.Vec, pto.BLayout.RowMajor


def _gt(dt, rows: int, cols: int):
    return pto.GlobalTensor[dt, pto.Shape[1, 1, 1, rows, cols], pto.Stride[rows * cols, rows * cols, rows * cols,
                                                                            cols, 1]]


F16x16, I16x16 = _gt(pto.float32, 16, 16), _gt(pto.int32, 16, 16)
H4x64, U8x4x32 = _gt(pto.int16, 4, 64), _gt(pto.uint8, 4, 32)


def ew_float(a, b, y, z):
    """float32 TADD, TMAX, TDIV over every bit pattern; and a TMUL of the inputs on its own (its
    denormal products reach the output)."""
    ta, tb, d, e = (pto.Tile[V, pto.float32, 16, 16]() for _ in range(4))
    pto.TLOAD(ta, F16x16(a))
    pto.TLOAD(tb, F16x16(b))
    pto.TADD(d, ta, tb)
    pto.TMAX(d, d, ta)
    pto.TDIV(d, d, tb)
    pto.TSTORE(F16x16(y), d)
    pto.TMUL(e, ta, tb)
    pto.TSTORE(F16x16(z), e)


def ew_maxmin(a, b, y):
    """float32 TMAX / TMINS on every bit pattern (NaN, signed zeros)."""
    ta, tb, d = (pto.Tile[V, pto.float32, 16, 16]() for _ in range(3))
    pto.TLOAD(ta, F16x16(a))
    pto.TLOAD(tb, F16x16(b))
    pto.TMAX(d, ta, tb)
    pto.TMINS(d, d, 0.0)
    pto.TSTORE(F16x16(y), d)


def ew_int(a, b, y):
    """int32 arithmetic and bitwise calls, then shifts by counts of every value."""
    ta, tb, d, tmp = (pto.Tile[V, pto.int32, 16, 16]() for _ in range(4))
    pto.TLOAD(ta, I16x16(a))
    pto.TLOAD(tb, I16x16(b))
    pto.TADD(d, ta, tb)
    pto.TMUL(d, d, ta)
    pto.TXOR(d, d, tb, tmp)
    pto.TNEG(d, d)
    pto.TABS(d, d)
    pto.TMAXS(d, d, -7)
    pto.TSHR(d, d, tb)
    pto.TSHLS(d, d, 3)
    pto.TSTORE(I16x16(y), d)


def ew_subs(a, y):
    """int32 TSUBS by a scalar beyond float's 24 bits."""
    ta, d = pto.Tile[V, pto.int32, 16, 16](), pto.Tile[V, pto.int32, 16, 16]()
    pto.TLOAD(ta, I16x16(a))
    pto.TSUBS(d, ta, 16777217)
    pto.TSTORE(I16x16(y), d)


def cmp(a, b, m):
    """int32 TCMP GT into a uint8 mask tile (10 valid columns: not a whole byte)."""
    T, Full = pto.Tile[V, pto.int32, 4, 64, RM, 4, 10], pto.Tile[V, pto.int32, 4, 64, RM, 4, 16]
    ta, tb, la, lb = T(), T(), Full(), Full()
    mask = pto.Tile[V, pto.uint8, 4, 32]()
    for t, addr in ((ta, 0x0), (tb, 0x400), (la, 0x0), (lb, 0x400), (mask, 0x800)):
        pto.TASSIGN(t, addr)
    pto.TLOAD(la, _gt(pto.int32, 4, 16)(a))
    pto.TLOAD(lb, _gt(pto.int32, 4, 16)(b))
    pto.TEXPANDS(mask, 0xAB)
    pto.TCMP(mask, ta, tb, pto.CmpMode.GT)
    pto.TSTORE(U8x4x32(m), mask)


def sel(a, b, m, y):
    """half TSEL by a loaded mask over 4 x 10 elements: one bit stream (the simulator) or a row each."""
    T, Full = pto.Tile[V, pto.half, 4, 64, RM, 4, 10], pto.Tile[V, pto.half, 4, 64, RM, 4, 16]
    ta, tb, d, la, lb, ld = T(), T(), T(), Full(), Full(), Full()
    mask, lm = pto.Tile[V, pto.uint8, 4, 32, RM, 4, 2](), pto.Tile[V, pto.uint8, 4, 32]()
    tmp = pto.Tile[V, pto.int32, 1, 8]()
    for t, addr in ((ta, 0x0), (tb, 0x200), (d, 0x400), (la, 0x0), (lb, 0x200), (ld, 0x400), (mask, 0x600),
                    (lm, 0x600), (tmp, 0x700)):
        pto.TASSIGN(t, addr)
    pto.TLOAD(la, _gt(pto.half, 4, 16)(a))
    pto.TLOAD(lb, _gt(pto.half, 4, 16)(b))
    pto.TLOAD(lm, U8x4x32(m))
    pto.TSEL(d, mask, ta, tb, tmp)
    pto.TSTORE(_gt(pto.half, 4, 16)(y), ld)


def cvt(a, y):
    """float32 -> int32 TCVT, nearest-even, over every bit pattern (saturation, NaN)."""
    ta, d = pto.Tile[V, pto.float32, 16, 16](), pto.Tile[V, pto.int32, 16, 16]()
    pto.TLOAD(ta, F16x16(a))
    pto.TCVT(d, ta, pto.RoundMode.CAST_RINT)
    pto.TSTORE(I16x16(y), d)


def mov(a, y):
    """TMOV of a 5-column int16 tile (A2/A3 copies whole 32-byte blocks); all of dst stored."""
    s = pto.Tile[V, pto.int16, 4, 64, RM, 4, 5]()
    d = pto.Tile[V, pto.int16, 4, 64, RM, 4, 5]()
    whole = pto.Tile[V, pto.int16, 4, 64]()
    for t, addr in ((s, 0x0), (d, 0x400), (whole, 0x400)):
        pto.TASSIGN(t, addr)
    src = pto.Tile[V, pto.int16, 4, 64]()
    pto.TASSIGN(src, 0x0)
    pto.TLOAD(src, H4x64(a))
    pto.TMOV(d, s)
    pto.TSTORE(H4x64(y), whole)


def sort(v, idx, y):
    """TSORT32 of 40 values a row: the simulator sorts the partial block, the NPUs drop it."""
    t = pto.Tile[V, pto.float32, 1, 64, RM, 1, 40]()
    ix = pto.Tile[V, pto.uint32, 1, 64, RM, 1, 40]()
    out = pto.Tile[V, pto.float32, 1, 128]()
    for x, addr in ((t, 0x0), (ix, 0x100), (out, 0x200)):
        pto.TASSIGN(x, addr)
    pto.TLOAD(t, _gt(pto.float32, 1, 40)(v))
    pto.TLOAD(ix, _gt(pto.uint32, 1, 40)(idx))
    pto.TSORT32(out, t, ix)
    pto.TSTORE(_gt(pto.float32, 1, 128)(y), out)


def _bits(n, dt):
    return values(n, dt, "bits")


FUZZ = {
    "ew_float": dict(inputs={"a": _bits(256, "float32"), "b": _bits(256, "float32")},
                     outputs={"y": (256, pto.float32), "z": (256, pto.float32)}, pair="cpu:a5"),
    "ew_maxmin": dict(inputs={"a": _bits(256, "float32"), "b": _bits(256, "float32")},
                      outputs={"y": (256, pto.float32)}, pair="cpu:a5"),
    "ew_int": dict(inputs={"a": _bits(256, "int32"), "b": _bits(256, "int32")},
                   outputs={"y": (256, pto.int32)}, pair="cpu:a5"),
    "ew_subs": dict(inputs={"a": values(256, "int32", "small")}, outputs={"y": (256, pto.int32)}, pair="cpu:a2a3"),
    "cmp": dict(inputs={"a": values(64, "int32", "small"), "b": values(64, "int32", "small")},
                outputs={"m": (128, pto.uint8)}, pair="cpu:a5"),
    "sel": dict(inputs={"a": values(64, "half", "small"), "b": values(64, "half", "small"),
                        "m": _bits(128, "uint8")}, outputs={"y": (64, pto.half)}, pair="cpu:a5"),
    "cvt": dict(inputs={"a": _bits(256, "float32")}, outputs={"y": (256, pto.int32)}, pair="cpu:a5"),
    "mov": dict(inputs={"a": _bits(256, "int16")}, outputs={"y": (256, pto.int16)}, pair="cpu:a2a3"),
    "sort": dict(inputs={"v": values(40, "float32", "small")}, outputs={"y": (128, pto.float32)},
                 fixed={"idx": np.arange(40, dtype=np.uint32)}, pair="cpu:a2a3"),
}
