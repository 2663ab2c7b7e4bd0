"""The known suite's kernels: each a few calls of one instruction group between TLOAD and
TSTORE, with generated data, so a campaign across two targets shows the divergences that
group's rules predict (element-wise arithmetic and its denormal flush, max/min with NaN, shift
counts, A2/A3's float TSUBS, compare masks, select mask walks, TCVT, TMOV, TSORT32), and one on a
kernel backend checks that group's kernels against the NumPy semantics -- including the paths no
index-tile campaign reaches: the register Gather and GatherB, the DMA burst engine's pads and
filler, TINTERLEAVE / TDEINTERLEAVE at the odd widths around a repeat, every element-wise
operation on the values each treats specially (``values(..., "edges")``). Each function is a kernel as users write them; ``FUZZ`` gives its buffers
(``ptogpu.execution.program.load("ptogpu.fuzz.suite_kernels:NAME")``)."""
from __future__ import annotations

import warnings

import numpy as np

import ptogpu as pto
from ptogpu import asc, reg
from ..execution.inputs import edge_pool, indices, picks, values

V, M, RM = pto.TileType.Vec, pto.TileType.Mat, pto.BLayout.RowMajor


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


def _takes(call: str, T) -> bool:
    """Does the running target compile ``call`` on T (its element-wise table)?"""
    name = pto.dtypes.name_of(pto.dtypes.as_dtype(T))
    return name in (pto.current_core().target.elementwise.dtypes.get(call) or (name,))


def ew_edges(fa, fb, ha, hb, ba, bb, la, lb, yf, yh, yb, yl):
    """Every element-wise call the running target compiles, on each type's edge values (signed
    zeros, NaN payloads, infinities, denormals, extremes, shift counts around the width): float32,
    int16, uint8 and int64 tiles of 2 x 32 bytes (the kernel against the NumPy semantics)."""
    for T, cols, a, b, y, kind in ((pto.float32, 8, fa, fb, yf, "float"), (pto.int16, 16, ha, hb, yh, "int"),
                                   (pto.uint8, 32, ba, bb, yb, "int"), (pto.int64, 4, la, lb, yl, "int")):
        G = _gt(T, 2, cols)
        x, z, d = pto.Tile[V, T, 2, cols](), pto.Tile[V, T, 2, cols](), pto.Tile[V, T, 2, cols]()
        pto.TLOAD(x, G(a))
        pto.TLOAD(z, G(b))
        binary = ("TSUB", "TMIN", "TMAX", "TMUL", "TADD") + (("TAND", "TOR", "TSHL", "TSHR") if kind == "int" else ())
        unary = ("TNEG", "TABS") + (("TNOT",) if kind == "int" else ())
        scal = (("TMAXS", -0.0), ("TMINS", float("nan")), ("TADDS", float("inf"))) if kind == "float" else \
            (("TMAXS", 1), ("TMINS", 7), ("TADDS", 127), ("TSHLS", 3), ("TSHRS", 5))
        slot = 0
        for call in binary + unary + tuple(c for c, _ in scal):
            if _takes(call, T):
                op = getattr(pto, call)
                if call in binary:
                    op(d, x, z)
                elif call in unary:
                    op(d, x)
                else:
                    op(d, x, dict(scal)[call])
                pto.TSTORE(G(y + slot * 2 * cols), d)
            slot += 1


_EW_TYPES = ((pto.int8, 32), (pto.uint16, 16), (pto.int32, 8), (pto.uint32, 8), (pto.uint64, 4), (pto.float32, 8),
             (pto.int16, 16), (pto.uint8, 32), (pto.int64, 4))
_EW_BINARY = ("TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TAND", "TOR", "TXOR", "TSHL", "TSHR")
_EW_UNARY = ("TNEG", "TABS", "TNOT")
_EW_SCALAR = {"float": (("TADDS", float("inf")), ("TSUBS", -0.0), ("TMULS", -1.5), ("TDIVS", 0.0), ("TMAXS", -0.0),
                        ("TMINS", float("nan"))),
              "int": (("TADDS", 127), ("TSUBS", 1), ("TMULS", 3), ("TDIVS", 3), ("TMAXS", 1), ("TMINS", 7),
                      ("TANDS", 0x5A), ("TORS", 0x21), ("TXORS", 0x7F), ("TSHLS", 3), ("TSHRS", 5))}
EW_SLOTS = len(_EW_BINARY) + len(_EW_UNARY) + len(_EW_SCALAR["int"])
"""Output slots a type of :func:`ew_types` has (one a call form; those the target does not
compile keep their zeros)."""


def ew_types(a0, b0, a1, b1, a2, b2, a3, b3, a4, b4, a5, b5, a6, b6, a7, b7, a8, b8, y):
    """Every element-wise call form -- TDIV, TXOR and each scalar form included -- on all nine
    element types the kernel is instantiated for (``_EW_TYPES``: ``aK``/``bK`` the K-th type's
    edge values), 2 x 32 bytes a tile: each (operation, type) instantiation of
    ``tile_elementwise`` against the NumPy semantics; ``y``: 64 bytes a (type, call form)."""
    srcs = ((a0, b0), (a1, b1), (a2, b2), (a3, b3), (a4, b4), (a5, b5), (a6, b6), (a7, b7), (a8, b8))
    out = pto.Tile[V, pto.uint8, 2, 32]()
    pto.TASSIGN(out, 0x200)
    for k, ((T, cols), (a, b)) in enumerate(zip(_EW_TYPES, srcs)):
        G = _gt(T, 2, cols)
        x, z, d, tmp = (pto.Tile[V, T, 2, cols]() for _ in range(4))
        for t, at in ((x, 0), (z, 0x100), (d, 0x200), (tmp, 0x300)):
            pto.TASSIGN(t, at)
        pto.TLOAD(x, G(a))
        pto.TLOAD(z, G(b))
        scal = _EW_SCALAR["float" if T == pto.float32 else "int"]
        for slot, call in enumerate(_EW_BINARY + _EW_UNARY + tuple(c for c, _ in scal)):
            if not _takes(call, T):
                continue
            op = getattr(pto, call)
            more = (tmp,) if call in ("TXOR", "TXORS") else ()
            if call == "TDIV" and T != pto.float32 and pto.current_core().target.elementwise.int_div == "c":
                if not (_takes("TANDS", T) and _takes("TORS", T)):
                    continue                    # (x86 idiv traps on 0 and MIN / -1: odd divisors 1 .. 63)
                pto.TANDS(tmp, z, 0x3E)
                pto.TORS(tmp, tmp, 1)
                op(d, x, tmp)
            elif call in _EW_BINARY:
                op(d, x, z, *more)
            elif call in _EW_UNARY:
                op(d, x)
            else:
                op(d, x, dict(scal)[call], *more)
            pto.TSTORE(_gt(pto.uint8, 2, 32)(y + (k * EW_SLOTS + slot) * 64), out)


def _nz_table(tab):
    """A2/A3's NZ table: Shape (1, 2, 2, 16, 16) of half, 32 logical rows of 32 columns."""
    return pto.GlobalTensor[pto.half, pto.Shape[1, 2, 2, 16, 16], pto.Stride[1024, 512, 256, 16, 1],
                            pto.Layout.NZ](tab)


def nz_gather(tab, ie, ir, ye, yr, yz, yw):
    """MGATHER from an A2/A3 NZ table into NZ tiles: Elem Wrap (16 x 20 valid of 32 x 32), Row
    Zero (20 rows; the whole tile zeroed first), Elem Clamp; and Elem Wrap from the same bytes as
    a table of two outer blocks 496 elements apart (Shape[0] = 2: the column block is the outer one)."""
    CM, NZ = pto.BLayout.ColMajor, pto.SLayout.RowMajor
    E = pto.Tile[V, pto.half, 32, 32, CM, 16, 20, NZ, 512]
    R = pto.Tile[V, pto.half, 32, 32, CM, 20, 32, NZ, 512]
    IE, IR = pto.Tile[V, pto.int32, 16, 24, RM, 16, 20], pto.Tile[V, pto.int32, 1, 24, RM, 1, 20]
    de, dr, dz, ie_t, ir_t = E(), R(), E(), IE(), IR()
    flat = [pto.Tile[V, pto.half, 32, 32]() for _ in range(3)]
    for t, a in ((de, 0x0), (flat[0], 0x0), (dr, 0x800), (flat[1], 0x800), (dz, 0x1000), (flat[2], 0x1000),
                 (ie_t, 0x1800), (ir_t, 0x2000)):
        pto.TASSIGN(t, a)
    pto.TLOAD(ie_t, _gt(pto.int32, 16, 20)(ie))
    pto.TLOAD(ir_t, _gt(pto.int32, 1, 20)(ir))
    pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Wrap](de, _nz_table(tab), ie_t)
    pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Zero](dr, _nz_table(tab), ir_t)
    pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dz, _nz_table(tab), ie_t)
    for f, y in zip(flat, (ye, yr, yz)):
        pto.TSTORE(_gt(pto.half, 32, 32)(y), f)
    outer = pto.GlobalTensor[pto.half, pto.Shape[2, 1, 2, 16, 16], pto.Stride[496, 512, 256, 16, 1],
                             pto.Layout.NZ](tab)
    dw, fw = E(), pto.Tile[V, pto.half, 32, 32]()
    pto.TASSIGN(dw, 0x2800)
    pto.TASSIGN(fw, 0x2800)
    pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Wrap](dw, outer, ie_t)
    pto.TSTORE(_gt(pto.half, 32, 32)(yw), fw)


def tgatherb_float_offsets(src8, srch, oh, of, oe, o5, y8, yh, ye, y5):
    """The simulator's TGATHERB with offset tiles of half, float32, float8_e4m3 and float8_e5m2
    (each value converted to uint32, NaN and out-of-range values to 2^31) over int8 and half data."""
    s8, sh = pto.Tile[V, pto.int8, 1, 1024](), pto.Tile[V, pto.half, 1, 512]()
    pto.TLOAD(s8, _gt(pto.int8, 1, 1024)(src8))
    pto.TLOAD(sh, _gt(pto.half, 1, 512)(srch))
    # (e4m3's edge values last: an instance that faults runs its later calls alone, on NumPy)
    for (T, src, cols, y), (OT, o, oc) in zip(((pto.int8, s8, 96, y8), (pto.half, sh, 48, yh), (pto.half, sh, 16, y5),
                                               (pto.half, sh, 16, ye)),
                                              ((pto.half, oh, 16), (pto.float32, of, 8), (pto.float8_e5m2, o5, 32),
                                               (pto.float8_e4m3, oe, 32))):
        off = pto.Tile[V, OT, 1, oc]()                   # a block per offset: the first 1 to 3
        pto.TLOAD(off, _gt(OT, 1, oc)(o))
        d = pto.Tile[V, T, 1, cols]()
        pto.TGATHERB(d, src, off)
        pto.TSTORE(_gt(T, 1, cols)(y), d)


def tgatherb_misaligned(src8, off, y):
    """The NPUs' TGATHERB with byte offsets that are not whole 32-byte blocks (the hardware drops
    the low bits) over int8 data."""
    s8, o = pto.Tile[V, pto.int8, 1, 1024](), pto.Tile[V, pto.uint32, 1, 8]()
    pto.TLOAD(s8, _gt(pto.int8, 1, 1024)(src8))
    pto.TLOAD(o, _gt(pto.uint32, 1, 8)(off))
    d = pto.Tile[V, pto.int8, 1, 256]()
    pto.TGATHERB(d, s8, o)
    pto.TSTORE(_gt(pto.int8, 1, 256)(y), d)


def tgatherb_ub_end(src8, off, y):
    """TGATHERB into a destination whose last block is UB's last 32 bytes (the last bytes a
    gather may write), from int8 data whose offsets reach the end of the source."""
    core = pto.current_core()
    end = core.ub.size
    s8, o, d = pto.Tile[V, pto.int8, 1, 1024](), pto.Tile[V, pto.uint32, 1, 8](), pto.Tile[V, pto.int8, 1, 256]()
    for t, at in ((s8, 0), (o, 0x400), (d, end - 256)):
        pto.TASSIGN(t, at)
    pto.TLOAD(s8, _gt(pto.int8, 1, 1024)(src8))
    pto.TLOAD(o, _gt(pto.uint32, 1, 8)(off))
    pto.TGATHERB(d, s8, o)
    pto.TSTORE(_gt(pto.int8, 1, 256)(y), d)


def mscatter_edges(vf, vi, vh, vu, idx, tmax, tmin, tadd, thadd, tumin, timax):
    """MSCATTER atomics on edge values into 32 slots (indices below 64: about two writers a
    slot, the rest skipped): float32 Max and Min over values that mostly tie (signed zeros, NaN,
    infinities), int32 Add (sums that wrap), half Add (NaN payloads, infinities, denormals, sums
    that overflow or round), uint32 Min and int32 Max, Elem, Skip."""
    M = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 32], pto.Stride[32, 32, 32, 32, 1]]
    A = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 32], pto.Stride[32, 32, 32, 32, 1]]
    sf, si, ix = pto.Tile[V, pto.float32, 8, 16](), pto.Tile[V, pto.int32, 8, 16](), pto.Tile[V, pto.int32, 8, 16]()
    pto.TLOAD(sf, _gt(pto.float32, 8, 16)(vf))
    pto.TLOAD(si, _gt(pto.int32, 8, 16)(vi))
    pto.TLOAD(ix, _gt(pto.int32, 8, 16)(idx))
    E, Skip = pto.Coalesce.Elem, pto.ScatterOOB.Skip
    pto.MSCATTER[E, pto.ScatterAtomicOp.Max, Skip](M(tmax), sf, ix)
    pto.MSCATTER[E, pto.ScatterAtomicOp.Min, Skip](M(tmin), sf, ix)
    pto.MSCATTER[E, pto.ScatterAtomicOp.Add, Skip](A(tadd), si, ix)
    sh, su = pto.Tile[V, pto.half, 8, 16](), pto.Tile[V, pto.uint32, 8, 16]()
    pto.TLOAD(sh, _gt(pto.half, 8, 16)(vh))
    pto.TLOAD(su, _gt(pto.uint32, 8, 16)(vu))
    pto.MSCATTER[E, pto.ScatterAtomicOp.Add, Skip](
        pto.GlobalTensor[pto.half, pto.Shape[1, 1, 1, 1, 32], pto.Stride[32, 32, 32, 32, 1]](thadd), sh, ix)
    pto.MSCATTER[E, pto.ScatterAtomicOp.Min, Skip](
        pto.GlobalTensor[pto.uint32, pto.Shape[1, 1, 1, 1, 32], pto.Stride[32, 32, 32, 32, 1]](tumin), su, ix)
    pto.MSCATTER[E, pto.ScatterAtomicOp.Max, Skip](A(timax), si, ix)


def mscatter_strided(v, ix, y, z):
    """MSCATTER Row of 8 rows of 12 float32 into a table of 20 rows whose rows lie 24 elements
    apart and whose columns 2 apart (the simulator's s*Stride[3] + c*Stride[4]; A2/A3's
    s*Stride[3] + c; A5's s*VC + c), Clamp and Wrap (indices of every kind: out of range and
    negative too); on the simulator Row Max and Min too, into ``z`` (each element op(the row's
    first element as that store finds it, v))."""
    T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 20, 12], pto.Stride[480, 480, 480, 24, 2]]
    src, idx = pto.Tile[V, pto.float32, 8, 16, RM, 8, 12](), pto.Tile[V, pto.int32, 1, 8]()
    pto.TLOAD(src, _gt(pto.float32, 8, 16)(v))
    pto.TLOAD(idx, _gt(pto.int32, 1, 8)(ix))
    pto.MSCATTER[pto.Coalesce.Row, pto.ScatterAtomicOp.None_, pto.ScatterOOB.Clamp](T(y), src, idx)
    pto.MSCATTER[pto.Coalesce.Row, pto.ScatterAtomicOp.None_, pto.ScatterOOB.Wrap](T(y + 1), src, idx)
    if pto.current_core().target.name == "cpu":     # the simulator's Row Max/Min: op(row's first, v)
        pto.MSCATTER[pto.Coalesce.Row, pto.ScatterAtomicOp.Max, pto.ScatterOOB.Clamp](T(z), src, idx)
        pto.MSCATTER[pto.Coalesce.Row, pto.ScatterAtomicOp.Min, pto.ScatterOOB.Wrap](T(z + 1), src, idx)


def tgather_cmp(v, k, hv, kh, iv, uv, y, c, yh, yi, yu):
    """TGATHER's compare form on float32 scores around each row's k (ties, halves that A5
    rounds, NaN, infinities), GT then EQ: the packed column indices and their counts; then on
    half scores against uint16 k (GT) and int32 scores against k (EQ), and on A5 (the one target
    that takes them) uint32 scores that tie k or pass 2^31 (GT), each with its counts."""
    CM = pto.BLayout.ColMajor
    src, full = pto.Tile[V, pto.float32, 4, 64, RM, 3, 40](), pto.Tile[V, pto.float32, 4, 64]()
    kt, kflat = pto.Tile[V, pto.uint32, 16, 1, CM, 3, 1](), pto.Tile[V, pto.uint32, 1, 16]()
    cd, cflat = pto.Tile[V, pto.int32, 8, 1, CM, 3, 1](), pto.Tile[V, pto.int32, 2, 8]()
    cd2 = pto.Tile[V, pto.int32, 8, 1, CM, 3, 1]()
    d, d2, both = pto.Tile[V, pto.int32, 4, 64](), pto.Tile[V, pto.int32, 4, 64](), pto.Tile[V, pto.int32, 8, 64]()
    tmp = pto.Tile[V, pto.uint8, 4, 256]()
    for t, a in ((src, 0x0), (full, 0x0), (kt, 0x400), (kflat, 0x400), (cd, 0x500), (cflat, 0x500), (cd2, 0x520),
                 (d, 0x600), (both, 0x600), (d2, 0xA00), (tmp, 0x1000)):
        pto.TASSIGN(t, a)
    pto.TLOAD(full, _gt(pto.float32, 4, 64)(v))
    pto.TLOAD(kflat, _gt(pto.uint32, 1, 16)(k))
    pto.TGATHER[pto.CmpMode.GT](d, src, kt, cd, tmp, 5)
    pto.TGATHER[pto.CmpMode.EQ](d2, src, kt, cd2, tmp, 0)
    pto.TSTORE(_gt(pto.int32, 8, 64)(y), both)
    pto.TSTORE(_gt(pto.int32, 2, 8)(c), cflat)
    forms = [(pto.half, pto.uint16, hv, kh, pto.CmpMode.GT, yh, 0x2000),
             (pto.int32, pto.uint32, iv, k, pto.CmpMode.EQ, yi, 0x4000)]
    if pto.current_core().target.name == "a5":
        forms.append((pto.uint32, pto.uint32, uv, k, pto.CmpMode.GT, yu, 0x6000))
    for T, K, vals, ks, mode, out, base in forms:
        s3, sf = pto.Tile[V, T, 4, 64, RM, 3, 40](), pto.Tile[V, T, 4, 64]()
        k3, kf = pto.Tile[V, K, 16, 1, CM, 3, 1](), pto.Tile[V, K, 1, 16]()
        c3, cf = pto.Tile[V, pto.int32, 8, 1, CM, 3, 1](), pto.Tile[V, pto.int32, 1, 8]()
        dd = pto.Tile[V, pto.int32, 4, 64]()
        for t, a in ((s3, base), (sf, base), (k3, base + 0x400), (kf, base + 0x400), (c3, base + 0x440),
                     (cf, base + 0x440), (dd, base + 0x600)):
            pto.TASSIGN(t, a)
        pto.TLOAD(sf, _gt(T, 4, 64)(vals))
        pto.TLOAD(kf, _gt(K, 1, 16)(ks))
        pto.TGATHER[mode](dd, s3, k3, c3, tmp, 3)
        pto.TSTORE(_gt(pto.int32, 4, 64)(out), dd)
        pto.TSTORE(_gt(pto.int32, 1, 8)(out + 256), cf)


def tgather_scratch_end(a, i, y):
    """A2/A3 TGATHER of 2-byte data writes each element's byte offset into tmp (int32, dst's Cols
    a row: a dst of 64 columns with 32 valid makes the 4 x 32 scratch span 896 bytes): with tmp 896
    bytes below UB's end the scratch ends exactly there; 864 below, its last row passes the end:
    the kernel's bound and NumPy's must fault alike (after the first call's bytes are stored)."""
    G, I = _gt(pto.half, 4, 32), _gt(pto.int32, 4, 32)
    src, idx = pto.Tile[V, pto.half, 4, 32](), pto.Tile[V, pto.int32, 4, 32]()
    dst, whole = pto.Tile[V, pto.half, 4, 64, RM, 4, 32](), pto.Tile[V, pto.half, 4, 64]()
    end = pto.current_core().ub.size
    fits, past = pto.Tile[V, pto.int32, 4, 32](), pto.Tile[V, pto.int32, 4, 32]()
    for t, at in ((src, 0x0), (idx, 0x100), (dst, 0x300), (whole, 0x300), (fits, end - 896), (past, end - 864)):
        pto.TASSIGN(t, at)
    pto.TLOAD(src, G(a))
    pto.TLOAD(idx, I(i))
    pto.TGATHER(dst, src, idx, fits)
    pto.TSTORE(_gt(pto.half, 4, 64)(y), whole)
    pto.TSTORE(I(y.cast(pto.int32) + 128), fits)
    pto.TGATHER(dst, src, idx, past)
    pto.TSTORE(_gt(pto.half, 4, 64)(y + 512), whole)


def tgather_in_place(a, i, k, y, z):
    """TGATHER's index, mask and compare forms whose destination shares bytes with a source (the
    pages leave that undefined; ptogpu reads every source first): each kernel must see the
    overlap and leave the call to NumPy."""
    G = _gt(pto.int32, 4, 32)
    src, idx, tmp = pto.Tile[V, pto.int32, 4, 32](), pto.Tile[V, pto.int32, 4, 32](), pto.Tile[V, pto.uint8, 4, 256]()
    shifted, itmp = pto.Tile[V, pto.int32, 4, 32](), pto.Tile[V, pto.int32, 4, 32]()
    for t, at in ((src, 0x0), (idx, 0x200), (shifted, 0x80), (tmp, 0x1000), (itmp, 0x1400)):
        pto.TASSIGN(t, at)
    pto.TLOAD(src, G(a))
    pto.TLOAD(idx, G(i))
    pto.TGATHER(shifted, src, idx, itmp)                  # dst: src's rows 1.. and 3 rows past it
    pto.TSTORE(G(y), src)
    pto.TLOAD(src, G(a))
    pto.TGATHER[pto.MaskPattern.P0101](shifted, src)      # the mask form, over its own source
    pto.TSTORE(G(y + 128), src)
    if pto.current_core().target.name != "cpu":           # (the simulator has no compare form)
        CM = pto.BLayout.ColMajor
        pto.TLOAD(src, G(a))
        kt, cd = pto.Tile[V, pto.uint32, 16, 1, CM, 3, 1](), pto.Tile[V, pto.int32, 8, 1, CM, 3, 1]()
        d = pto.Tile[V, pto.int32, 4, 32]()
        for t, at in ((kt, 0x400), (cd, 0x40), (d, 0x600)):
            pto.TASSIGN(t, at)
        kf = pto.Tile[V, pto.uint32, 1, 16]()
        pto.TASSIGN(kf, 0x400)
        pto.TLOAD(kf, _gt(pto.uint32, 1, 16)(k))
        pto.TGATHER[pto.CmpMode.EQ](d, src, kt, cd, tmp, 0)   # cdst over src0's first row
        pto.TSTORE(G(z), src)


def cmp_edges(fa, fb, ha, hb, ia, ib, ua, ub, m, y, zf, zh, zi, yu):
    """TCMP in every mode, TCMPS (EQ and GT against a scalar that ties, is NaN or -0.0), TSEL and
    TSELS by a loaded mask, on float32, half and int32 edge values (2 rows of 256 bytes: A2/A3
    compares whole repeats); on A5 (the one target that takes it) TCMP of uint64 edge values too
    (its b64 rows)."""
    lm, mask, tmp = pto.Tile[V, pto.uint8, 2, 32](), pto.Tile[V, pto.uint8, 2, 32](), pto.Tile[V, pto.int32, 1, 8]()
    M = _gt(pto.uint8, 2, 32)
    pto.TLOAD(lm, M(m))
    for k, (T, cols, a, b, z, scal) in enumerate(((pto.float32, 64, fa, fb, zf, (float("nan"), -0.0)),
                                                  (pto.half, 128, ha, hb, zh, (-0.0, 1.0)),
                                                  (pto.int32, 64, ia, ib, zi, (-1, 7)))):
        G = _gt(T, 2, cols)
        x, w, d = pto.Tile[V, T, 2, cols](), pto.Tile[V, T, 2, cols](), pto.Tile[V, T, 2, cols]()
        pto.TLOAD(x, G(a))
        pto.TLOAD(w, G(b))
        for j, mode in enumerate(pto.CmpMode):
            pto.TCMP(mask, x, w, mode)
            pto.TSTORE(M(y + (8 * k + j) * 64), mask)
        for j, (mode, v) in enumerate(((pto.CmpMode.EQ, scal[0]), (pto.CmpMode.GT, scal[1]))):
            pto.TCMPS(mask, x, v, mode)
            pto.TSTORE(M(y + (8 * k + 6 + j) * 64), mask)
        pto.TSEL(d, lm, x, w, tmp)
        pto.TSTORE(G(z), d)
        pto.TSELS(d, lm, x, tmp, scal[0])
        pto.TSTORE(G(z + 2 * cols), d)
    if pto.current_core().target.name == "a5":      # (80 columns: a b64 row takes the first 64)
        G = _gt(pto.uint64, 2, 80)
        x, w = pto.Tile[V, pto.uint64, 2, 80](), pto.Tile[V, pto.uint64, 2, 80]()
        pto.TLOAD(x, G(ua))
        pto.TLOAD(w, G(ub))
        for j, mode in enumerate(pto.CmpMode):
            pto.TLOAD(mask, M(m))                       # (the mask's bytes past the 64 columns show)
            pto.TCMP(mask, x, w, mode)
            pto.TSTORE(M(yu + j * 64), mask)


_CMP_TYPES = (pto.int8, pto.uint8, pto.int16, pto.uint16, pto.int32, pto.uint32, pto.int64, pto.uint64, pto.half,
              pto.bfloat16, pto.float32)
CMP_SLOTS = 12
"""Output slots a type of :func:`cmp_types` has: six TCMP modes, TCMPS EQ and GT, TSEL, TSELS,
and TCMP GT and TCMPS LT into a uint32 mask (the simulator packs 32 bits a word there)."""


def cmp_types(a0, b0, a1, b1, a2, b2, a3, b3, a4, b4, a5, b5, a6, b6, a7, b7, a8, b8, a9, b9, a10, b10, m, y):
    """TCMP in every mode, TCMPS, TSEL and TSELS on each of the eleven element types the compare
    kernel is instantiated for (``aK``/``bK``: the K-th type's edge values), one row of 256 bytes
    (A2/A3 compares whole repeats), wherever the running target compiles the form (a call it
    refuses is skipped): each (kind, mode) instantiation of ``tile_compare`` against the NumPy
    semantics. ``y``: 256 bytes a (type, form), the mask's or the selection's."""
    srcs = ((a0, b0), (a1, b1), (a2, b2), (a3, b3), (a4, b4), (a5, b5), (a6, b6), (a7, b7), (a8, b8), (a9, b9),
            (a10, b10))
    MG = _gt(pto.uint8, 1, 256)
    lm, mask, out = pto.Tile[V, pto.uint8, 1, 256](), pto.Tile[V, pto.uint8, 1, 256](), pto.Tile[V, pto.uint8, 1, 256]()
    tmp, wide = pto.Tile[V, pto.int32, 1, 64](), pto.Tile[V, pto.uint32, 1, 64]()
    for t, at in ((lm, 0x400), (mask, 0x500), (out, 0x300), (tmp, 0x600), (wide, 0x500)):
        pto.TASSIGN(t, at)
    pto.TLOAD(lm, MG(m))
    for k, (T, (a, b)) in enumerate(zip(_CMP_TYPES, srcs)):
        cols = 256 // np.dtype(T).itemsize
        G = _gt(T, 1, cols)
        x, w, d = pto.Tile[V, T, 1, cols](), pto.Tile[V, T, 1, cols](), pto.Tile[V, T, 1, cols]()
        for t, at in ((x, 0), (w, 0x100), (d, 0x300)):
            pto.TASSIGN(t, at)
        pto.TLOAD(x, G(a))
        pto.TLOAD(w, G(b))
        one = -0.0 if T in (pto.half, pto.bfloat16, pto.float32) else 1
        forms = [(lambda mode=mode: pto.TCMP(mask, x, w, mode), mask) for mode in pto.CmpMode]
        forms += [(lambda: pto.TCMPS(mask, x, one, pto.CmpMode.EQ), mask),
                  (lambda: pto.TCMPS(mask, x, one, pto.CmpMode.GT), mask),
                  (lambda: pto.TSEL(d, lm, x, w, tmp), out), (lambda: pto.TSELS(d, lm, x, tmp, one), out),
                  (lambda: pto.TCMP(wide, x, w, pto.CmpMode.GT), mask),
                  (lambda: pto.TCMPS(wide, x, one, pto.CmpMode.LT), mask)]
        for j, (form, res) in enumerate(forms):
            try:
                form()
            except pto.PtoCheckError:
                continue                        # (a form this target does not compile on T)
            pto.TSTORE(MG(y + (k * CMP_SLOTS + j) * 256), res)


def cmp_narrow(fa, m, y):
    """TCMPS into masks of 1 and 3 valid columns (the stream packed into so few bytes per row,
    the rest of the tile zeroed) over float32 edge values, EQ and GT; each whole mask stored over
    a loaded pattern."""
    M = _gt(pto.uint8, 2, 32)
    x, whole = pto.Tile[V, pto.float32, 2, 64](), pto.Tile[V, pto.uint8, 2, 32]()
    pto.TLOAD(x, _gt(pto.float32, 2, 64)(fa))
    pto.TASSIGN(whole, 0x4000)
    for k, (vc, mode, v) in enumerate(((1, pto.CmpMode.EQ, -0.0), (3, pto.CmpMode.GT, 1.0))):
        mask = pto.Tile[V, pto.uint8, 2, 32, RM, 2, vc]()
        pto.TASSIGN(mask, 0x4000)
        pto.TLOAD(whole, M(m))
        pto.TCMPS(mask, x, v, mode)
        pto.TSTORE(M(y + k * 64), whole)


def cmp_bytes(a, b, m, u, y, z, zu):
    """A5's 1-byte compares (the one target that takes them): TCMP / TCMPS into a 96-byte mask
    row (32 bytes per 256 columns, the rest left as it was), TSEL / TSELS by it (16-byte steps
    per 256 columns), TADD (an odd width: no pad byte on A5), over 2 x 299 valid columns of 320;
    and TNEG of uint64 edge values (wrapping)."""
    T = pto.Tile[V, pto.int8, 2, 320, RM, 2, 299]
    G = _gt(pto.int8, 2, 320)
    M = _gt(pto.uint8, 2, 96)
    x, w, d = T(), T(), T()
    lm, mask, tmp = pto.Tile[V, pto.uint8, 2, 96](), pto.Tile[V, pto.uint8, 2, 96](), pto.Tile[V, pto.int32, 1, 8]()
    pto.TLOAD(x, G(a))
    pto.TLOAD(w, G(b))
    pto.TLOAD(lm, M(m))
    for j, mode in enumerate((pto.CmpMode.GT, pto.CmpMode.NE)):
        pto.TLOAD(mask, M(m))                           # (the bytes past a row's mask show)
        pto.TCMP(mask, x, w, mode)
        pto.TSTORE(M(y + j * 192), mask)
    pto.TLOAD(mask, M(m))
    pto.TCMPS(mask, x, 3, pto.CmpMode.EQ)
    pto.TSTORE(M(y + 384), mask)
    for k, op in enumerate((lambda: pto.TSEL(d, lm, x, w, tmp), lambda: pto.TSELS(d, lm, w, tmp, -5),
                            lambda: pto.TADD(d, x, w))):
        pto.TLOAD(d, G(b))
        op()
        pto.TSTORE(G(z + k * 640), d)
    U = _gt(pto.uint64, 2, 8)
    ua, ud = pto.Tile[V, pto.uint64, 2, 8](), pto.Tile[V, pto.uint64, 2, 8]()
    pto.TLOAD(ua, U(u))
    pto.TNEG(ud, ua)
    pto.TSTORE(U(zu), ud)


def mov_shapes(a, b, y):
    """TMOV between int16 4 x 64 tiles over prefilled destinations: 5 valid columns (A2/A3's
    burst per row brings the rest of a block), whole rows (one flat burst), 3 x 17, in place, and
    no valid rows."""
    G = _gt(pto.int16, 4, 64)
    full, src = pto.Tile[V, pto.int16, 4, 64](), pto.Tile[V, pto.int16, 4, 64]()
    pto.TASSIGN(full, 0x0)
    pto.TASSIGN(src, 0x0)
    pto.TLOAD(full, G(a))
    for k, (vr, vc) in enumerate(((4, 5), (3, 64), (3, 17), (4, 64), (0, 64))):
        d, whole = pto.Tile[V, pto.int16, 4, 64, RM, vr, vc](), pto.Tile[V, pto.int16, 4, 64]()
        s = pto.Tile[V, pto.int16, 4, 64, RM, vr, vc]()
        at = 0x200 * (k + 1)
        pto.TASSIGN(d, at)
        pto.TASSIGN(whole, at)
        pto.TASSIGN(s, 0x0)
        pto.TLOAD(whole, G(b))
        pto.TMOV(d, s if k < 3 else d)
        pto.TSTORE(G(y + k * 256), whole)


def mov_widths(a, b, y):
    """TMOV between int16 tiles of different widths over prefilled destinations: 4 x 32 valid
    of a 4 x 64 source into a whole 4 x 32 tile (every destination row whole, the rows
    strided apart in the source), the reverse, and 3 x 16 of a 4 x 32 into a 4 x 48 tile (the
    simulator and A5; A2/A3 requires equal tile shapes)."""
    G = _gt(pto.int16, 4, 64)
    wide = pto.Tile[V, pto.int16, 4, 64]()
    pto.TASSIGN(wide, 0x0)
    pto.TLOAD(wide, G(a))
    for k, (src, dst) in enumerate(((pto.Tile[V, pto.int16, 4, 64, RM, 4, 32], pto.Tile[V, pto.int16, 4, 32]),
                                    (pto.Tile[V, pto.int16, 4, 32], pto.Tile[V, pto.int16, 4, 64, RM, 4, 32]),
                                    (pto.Tile[V, pto.int16, 4, 32, RM, 3, 16], pto.Tile[V, pto.int16, 4, 48, RM, 3, 16]))):
        s, d, whole = src(), dst(), pto.Tile[V, pto.int16, 4, 64]()
        at = 0x200 * (k + 1)
        pto.TASSIGN(s, 0x0)
        pto.TASSIGN(d, at)
        pto.TASSIGN(whole, at)
        pto.TLOAD(whole, G(b))
        pto.TMOV(d, s)
        pto.TSTORE(G(y + k * 256), whole)


def overlaps(a, b, v, ix, y, y8):
    """Operands that share bytes without being the same tile, which every kernel must leave to
    NumPy (its check pass: a read of bytes the call writes), beside the same calls in place or
    apart, which the kernels run: TADD with src1 one row into dst and in place, TMOV onto its own
    source shifted by 32 bytes, TCVT float32 -> int32 over its source's second half, TCMP into a
    mask over src0's last row, TSEL with its mask inside dst, TSORT32 with idx overlapping dst; on A5 also TMOV ND -> NZ over its
    own source, TGATHERB into its own source, MGATHER<Elem> into a ColMajor tile, and TCMPS of 129
    half columns (its mask written in chunks of 128 columns). Every result stored."""
    G = _gt(pto.int32, 4, 64)
    Y = _gt(pto.int32, 4, 64)
    Ti = pto.Tile[V, pto.int32, 4, 64]
    buf = Ti()                                       # the whole scratch, 0x0 .. 0x400
    pto.TASSIGN(buf, 0x0)
    k = 0

    def fresh():
        pto.TLOAD(buf, G(a))
        t = Ti()
        pto.TASSIGN(t, 0x400)
        pto.TLOAD(t, G(b))

    def store():
        nonlocal k
        pto.TSTORE(Y(y + k * 256), buf)
        k += 1
    for shift in (0x100, 0x0):                       # TADD: src1 a row into dst, then in place
        fresh()
        d, s0, s1 = pto.Tile[V, pto.int32, 3, 64](), pto.Tile[V, pto.int32, 3, 64](), pto.Tile[V, pto.int32, 3, 64]()
        pto.TASSIGN(d, 0x0)
        pto.TASSIGN(s0, 0x400)
        pto.TASSIGN(s1, shift)
        pto.TADD(d, s0, s1)
        store()
    for shift in (0x20, 0x0):                        # TMOV onto its source 8 columns on (A5: vregs), apart
        fresh()
        d, s = pto.Tile[V, pto.int32, 2, 64, RM, 2, 40](), pto.Tile[V, pto.int32, 2, 64, RM, 2, 40]()
        pto.TASSIGN(d, shift)
        pto.TASSIGN(s, 0x0 if shift else 0x400)
        pto.TMOV(d, s)
        store()
    for at in (0x80, 0x200):                         # TCVT over its source's second half, then apart
        fresh()
        f, i = pto.Tile[V, pto.float32, 1, 64](), pto.Tile[V, pto.int32, 1, 64]()
        pto.TASSIGN(f, 0x0)
        pto.TASSIGN(i, at)
        pto.TCVT(i, f, pto.RoundMode.CAST_RINT)
        store()
    for at in (0x300, 0x200):                        # TCMP's mask over src0's last row, then apart
        fresh()
        x, w = pto.Tile[V, pto.int32, 4, 64](), pto.Tile[V, pto.int32, 4, 64]()
        pto.TASSIGN(x, 0x0)
        pto.TASSIGN(w, 0x400)
        m = pto.Tile[V, pto.uint8, 4, 32]()
        pto.TASSIGN(m, at if at == 0x300 else 0x800)
        pto.TCMP(m, x, w, pto.CmpMode.GT)
        if at == 0x200:
            mm = pto.Tile[V, pto.int32, 1, 32]()
            pto.TASSIGN(mm, 0x800)
            cp = pto.Tile[V, pto.int32, 1, 32]()
            pto.TASSIGN(cp, 0x200)
            pto.TMOV(cp, mm)
        store()
    for at in (0x300, 0x800):                        # TSEL: its mask inside dst's bytes, then apart
        fresh()
        d, s0 = pto.Tile[V, pto.int32, 4, 64](), pto.Tile[V, pto.int32, 4, 64]()
        pto.TASSIGN(d, 0x0)
        pto.TASSIGN(s0, 0x400)
        m = pto.Tile[V, pto.uint8, 4, 32]()
        pto.TASSIGN(m, at)
        tmp = pto.Tile[V, pto.int32, 4, 64]()
        pto.TASSIGN(tmp, 0xC00)
        pto.TSEL(d, m, s0, d, tmp)
        store()
    for at in (0x100, 0x600):                        # TSORT32: idx over dst's second block, then apart
        fresh()
        t = pto.Tile[V, pto.float32, 1, 64]()
        pto.TASSIGN(t, 0x400)
        ixt = pto.Tile[V, pto.uint32, 1, 64]()
        pto.TASSIGN(ixt, at)
        pto.TLOAD(ixt, _gt(pto.uint32, 1, 64)(ix))
        pto.TLOAD(t, _gt(pto.float32, 1, 64)(v))
        out = pto.Tile[V, pto.float32, 1, 128]()
        pto.TASSIGN(out, 0x0)
        pto.TSORT32(out, t, ixt)
        store()
    if pto.current_core().target.name != "a5":
        return
    big = pto.Tile[V, pto.int32, 8, 64]()            # A5: TMOV ND -> NZ (its own kernel) over its source
    pto.TASSIGN(big, 0x0)
    for at in (0x200, 0x800):
        pto.TLOAD(big, _gt(pto.int32, 8, 64)(a))
        src = pto.Tile[V, pto.half, 16, 32, RM, 12, 20]()
        nz = pto.Tile[V, pto.half, 16, 32, pto.BLayout.ColMajor, 12, 20, pto.SLayout.RowMajor]()
        pto.TASSIGN(src, 0x0)
        pto.TASSIGN(nz, at)
        pto.TMOV(nz, src)
        pto.TASSIGN(big, 0x0 if at == 0x200 else 0x800)
        pto.TSTORE(_gt(pto.int32, 8, 64)(y + k * 256), big)
        k += 2
    tg = pto.Tile[V, pto.uint32, 1, 8]()             # TGATHERB into its own source, then apart
    pto.TASSIGN(tg, 0x800)
    for at in (0x100, 0x400):
        fresh()
        pto.TLOAD(tg, _gt(pto.uint32, 1, 8)(ix))
        pto.TANDS(tg, tg, 15)                        # (blocks 0..15 of src: the upper 8 are dst's bytes)
        pto.TMULS(tg, tg, 32)
        s8, d8 = pto.Tile[V, pto.int8, 1, 512](), pto.Tile[V, pto.int8, 1, 256]()
        pto.TASSIGN(s8, 0x0)
        pto.TASSIGN(d8, at)
        pto.TGATHERB(d8, s8, tg)
        store()
        if at == 0x400:
            pto.TSTORE(_gt(pto.int8, 1, 256)(y8), d8)
    # MGATHER<Elem> into a ColMajor (dn) destination, through the API's launch
    table = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 512], pto.Stride[512, 512, 512, 512, 1]](a)
    fresh()
    it = pto.Tile[V, pto.int32, 8, 16]()
    pto.TASSIGN(it, 0x400)
    pto.TANDS(it, it, 511)
    dn = pto.Tile[V, pto.int32, 8, 16, pto.BLayout.ColMajor]()
    pto.TASSIGN(dn, 0x0)
    pto.MGATHER[pto.Coalesce.Elem](dn, table, it)
    store()
    fresh()                                          # TCMP half of 129 columns: its mask's 2 chunks of 16 bytes
    h = pto.Tile[V, pto.half, 1, 144, RM, 1, 129]()
    pto.TASSIGN(h, 0x400)
    m = pto.Tile[V, pto.uint8, 1, 64]()
    pto.TASSIGN(m, 0x0)
    pto.TCMPS(m, h, 0.0, pto.CmpMode.GT)
    store()


def mov_relayouts(a, y):
    """A5's TMOV relayouts of a 32 x 32 half ND tile in UB, over prefilled destinations: ND -> NZ
    (30 valid rows of 20 columns: ceil16 row blocks, pad rows unwritten) and ND -> ZN (whole
    fractals of 32 x 48 valid: the column blocks of 16 that fit), each destination stored as its
    raw bytes."""
    CM, SR, SC = pto.BLayout.ColMajor, pto.SLayout.RowMajor, pto.SLayout.ColMajor
    G = _gt(pto.half, 32, 64)
    src, full = pto.Tile[V, pto.half, 32, 64](), pto.Tile[V, pto.half, 32, 64]()
    pto.TASSIGN(src, 0x0)
    pto.TLOAD(src, G(a))
    for k, (d, vr, vc) in enumerate(((pto.Tile[V, pto.half, 32, 64, CM, -1, -1, SR], 30, 20),
                                     (pto.Tile[V, pto.half, 32, 64, RM, -1, -1, SC], 32, 48))):
        dst = d(vr, vc)
        at = 0x1000 * (k + 1)
        pto.TASSIGN(full, at)
        pto.TLOAD(full, G(a + 2048))                # (the prefill: the pad bytes show)
        pto.TASSIGN(dst, at)
        pto.TMOV(dst, src)
        pto.TSTORE(G(y + k * 2048), full)


def sort_edges(vf, vh, idx, yf, yh, tf, mf, mh):
    """TSORT32 of 2 rows of 72 float32 and 72 half edge values (NaN payloads, signed zeros, ties)
    with their indices, tmp given (the NPUs pad the tail block with NaN there, stored: mf, mh;
    the simulator sorts the partial block), and of 64 float32 without tmp."""
    for T, v, y, m, size in ((pto.float32, vf, yf, mf, 4), (pto.half, vh, yh, mh, 2)):
        src, ix = pto.Tile[V, T, 2, 96, RM, 2, 72](), pto.Tile[V, pto.uint32, 2, 96, RM, 2, 72]()
        d, tmp = pto.Tile[V, T, 2, 96 * 8 // size](), pto.Tile[V, T, 1, 160]()
        pto.TLOAD(src, _gt(T, 2, 72)(v))
        pto.TLOAD(ix, _gt(pto.uint32, 2, 72)(idx))
        pto.TEXPANDS(d, 0)
        pto.TEXPANDS(tmp, 1)
        pto.TSORT32(d, src, ix, tmp)
        pto.TSTORE(_gt(T, 2, 96 * 8 // size)(y), d)
        pto.TSTORE(_gt(T, 1, 160)(m), tmp)
    src, ix = pto.Tile[V, pto.float32, 2, 64](), pto.Tile[V, pto.uint32, 2, 64]()
    d = pto.Tile[V, pto.float32, 2, 128]()
    pto.TLOAD(src, _gt(pto.float32, 2, 64)(vf))
    pto.TLOAD(ix, _gt(pto.uint32, 2, 64)(idx))
    pto.TSORT32(d, src, ix)
    pto.TSTORE(_gt(pto.float32, 2, 128)(tf), d)


def mrgsort_edges(vf, vh, idx, v8, v64, sf, sh, mf, mh, df, dh, cf, ch, d8, d64):
    """TMRGSORT as a top-k uses it, on 128 float32 and 128 half edge values (NaN heads, signed
    zeros, ties between lists): TSORT32 into 4 sorted blocks (stored: sf, sh), the single-list
    form merging them (mf, mh), and lists loaded back from the blocks -- 4 of them of uneven
    lengths, then 2 in exhausted mode, into a dst that holds fewer records than they do (df,
    dh) -- with the executed counts stored as int32 (cf, ch)."""
    for T, v, s, m, d, c, size in ((pto.float32, vf, sf, mf, df, cf, 4), (pto.half, vh, sh, mh, dh, ch, 2)):
        E = 8 // size
        n = 128 * E                                 # the sorted records' elements
        src, ix = pto.Tile[V, T, 1, 128](), pto.Tile[V, pto.uint32, 1, 128]()
        srt, mrg = pto.Tile[V, T, 1, n](), pto.Tile[V, T, 1, n]()
        pto.TLOAD(src, _gt(T, 1, 128)(v))
        pto.TLOAD(ix, _gt(pto.uint32, 1, 128)(idx))
        pto.TSORT32(srt, src, ix)
        pto.TSTORE(_gt(T, 1, n)(s), srt)
        pto.TMRGSORT(mrg, srt, 32 * E)
        pto.TSTORE(_gt(T, 1, n)(m), mrg)
        counts = pto.Tile[V, pto.int32, 1, 8]()
        for k, (vcs, dvc, exh) in enumerate((((32, 20, 7, 32), 80, False), ((32, 25), 64, True))):
            lists = []
            for j, vc in enumerate(vcs):
                t = pto.Tile[V, T, 1, 32 * E, RM, 1, vc * E]()
                pto.TLOAD(t, pto.GlobalTensor[T, pto.Shape[1, 1, 1, 1, vc * E], pto.Stride[n, n, n, n, 1]](
                    s + j * 32 * E))
                lists.append(t)
            dst = pto.Tile[V, T, 1, n, RM, 1, dvc * E]()
            tmp = pto.Tile[V, T, 1, n]()
            if k:                                   # (placed first, tmp lies below dst: the NPUs' copy
                pto.TEXPANDS(tmp, 0)                # from tmp to dst then runs from its top)
            pto.TEXPANDS(dst, 0)
            ex = pto.MrgSortExecutedNumList()
            pto.TMRGSORT[exh](dst, ex, tmp, *lists)
            pto.TSTORE(_gt(T, 1, dvc * E)(d + k * n), dst)
            for j, f in enumerate((ex.mrgSortList0, ex.mrgSortList1, ex.mrgSortList2, ex.mrgSortList3)):
                pto.TEXPANDS(counts, f)
                pto.TSTORE(_gt(pto.int32, 1, 1)(c + 4 * k + j), counts)
    if pto.current_core().target.name == "cpu":          # (the simulator merges any type of 1 to 8 bytes)
        for T, v, d in ((pto.uint8, v8, d8), (pto.uint64, v64, d64)):
            E = 8 // np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(T))).itemsize
            a, b = pto.Tile[V, T, 1, 16 * E](), pto.Tile[V, T, 1, 16 * E]()
            dst, tmp = pto.Tile[V, T, 1, 32 * E](), pto.Tile[V, T, 1, 32 * E]()
            pto.TLOAD(a, _gt(T, 1, 16 * E)(v))
            pto.TLOAD(b, _gt(T, 1, 16 * E)(v + 16 * E))
            pto.TMRGSORT(dst, pto.MrgSortExecutedNumList(), tmp, a, b)
            pto.TSTORE(_gt(T, 1, 32 * E)(d), dst)


def cvt_edges(a, i, y32, y16, yh, yb, yf, z16, zh, z32, s16):
    """TCVT of float32 edge values (ties at +-0.5, 1.5, 2.5 and of half's and bfloat16's
    roundings, NaN payloads, infinities, denormals, the extremes) to int32, int16, half,
    bfloat16 and float32 (the NPUs' round to integral: -0.4 to -0.0) under every round mode the
    target's pair table takes for them, saturating by default
    (2 x 64 elements a call); then int32 edge values to int16, half and float32 (the pairs the
    target takes), saturation ON and OFF."""
    from ..isa.tcvt.api import letter_for
    src = pto.Tile[V, pto.float32, 2, 64]()
    pto.TLOAD(src, _gt(pto.float32, 2, 64)(a))
    core = pto.current_core()
    for D, y in ((pto.int32, y32), (pto.int16, y16), (pto.half, yh), (pto.bfloat16, yb), (pto.float32, yf)):
        d = pto.Tile[V, D, 2, 64]()
        for k, mode in enumerate(pto.RoundMode):
            if letter_for(core, "float32", pto.dtypes.name_of(pto.dtypes.as_dtype(D)), mode) is None:
                continue
            pto.TCVT(d, src, mode)
            pto.TSTORE(_gt(D, 2, 64)(y + k * 128), d)
    mode = next(m for m in pto.RoundMode if letter_for(core, "float32", "int16", m) is not None)
    d16 = pto.Tile[V, pto.int16, 2, 64]()
    for j, sat in enumerate((pto.SaturationMode.ON, pto.SaturationMode.OFF)):     # float32 -> int16, both ways
        pto.TCVT(d16, src, mode, sat)
        pto.TSTORE(_gt(pto.int16, 2, 64)(s16 + j * 128), d16)
    isrc = pto.Tile[V, pto.int32, 2, 64]()
    pto.TLOAD(isrc, _gt(pto.int32, 2, 64)(i))
    z = (z16, zh, z32)
    for k, D in enumerate((pto.int16, pto.half, pto.float32)):
        name = pto.dtypes.name_of(pto.dtypes.as_dtype(D))
        mode = next((m for m in pto.RoundMode if letter_for(core, "int32", name, m) is not None), None)
        if mode is None:
            continue
        d = pto.Tile[V, D, 2, 64]()
        for j, sat in enumerate((pto.SaturationMode.ON, pto.SaturationMode.OFF)):
            pto.TEXPANDS(d, 0)
            pto.TCVT(d, isrc, mode, sat)
            pto.TSTORE(_gt(D, 2, 64)(z[k] + j * 128), d)


def cvt_minifloats(a, h, c4, c5, c8, y4, y5, yh8, yw, yt16, yt8, ym16, ym8):
    """TCVT with the 8-bit floats, where a target has them: float32 and half edge values (the
    8-bit types' rounding midpoints, overflow, NaN, infinities, denormals) to each 8-bit type the
    target converts them to, and every code of each 8-bit type to float32 (A5's vcvt; the
    simulator's MXType and hifloat8 table); where it has none (A2/A3), the NonSatTorch tmp form
    of float32 -> int16 and half -> int8 under every RoundMode (int32 saturation, then the low
    bits). On the simulator, TMOV between types too (its element loop assigns: a C++ cast)."""
    from ..isa.tcvt.api import letter_for
    core = pto.current_core()
    name = lambda T: pto.dtypes.name_of(pto.dtypes.as_dtype(T))          # noqa: E731
    src, hs = pto.Tile[V, pto.float32, 2, 64](), pto.Tile[V, pto.half, 2, 64]()
    pto.TLOAD(src, _gt(pto.float32, 2, 64)(a))
    pto.TLOAD(hs, _gt(pto.half, 2, 64)(h))
    if core.target.tcvt.minifloats is None:
        tmp = pto.Tile[V, pto.int32, 2, 64]()
        d16, d8 = pto.Tile[V, pto.int16, 2, 64](), pto.Tile[V, pto.int8, 2, 64]()
        for k, mode in enumerate(pto.RoundMode):
            pto.TCVT(d16, src, tmp, mode, pto.SaturationMode.OFF)
            pto.TSTORE(_gt(pto.int16, 2, 64)(yt16 + k * 128), d16)
            pto.TCVT(d8, hs, tmp, mode, pto.SaturationMode.OFF)
            pto.TSTORE(_gt(pto.int8, 2, 64)(yt8 + k * 128), d8)
        return
    for k, s in enumerate((src, hs)):
        for D, y in ((pto.float8_e4m3, y4), (pto.float8_e5m2, y5), (pto.hifloat8, yh8)):
            mode = next((m for m in pto.RoundMode if letter_for(core, s.DType, name(D), m) is not None), None)
            if mode is not None:
                d = pto.Tile[V, D, 2, 64]()
                pto.TCVT(d, s, mode)
                pto.TSTORE(_gt(D, 2, 64)(y + k * 128), d)
    w = pto.Tile[V, pto.float32, 2, 64]()
    for k, (S, x) in enumerate(((pto.float8_e4m3, c4), (pto.float8_e5m2, c5), (pto.hifloat8, c8))):
        t = pto.Tile[V, S, 2, 64]()
        pto.TLOAD(t, _gt(S, 2, 64)(x))
        pto.TCVT(w, t, next(m for m in pto.RoundMode if letter_for(core, name(S), "float32", m) is not None))
        pto.TSTORE(_gt(pto.float32, 2, 64)(yw + k * 128), w)
    if core.target.tmov.engine == "elements":
        m16, m8 = pto.Tile[V, pto.int16, 2, 64](), pto.Tile[V, pto.float8_e5m2, 2, 64]()
        pto.TMOV(m16, src)
        pto.TSTORE(_gt(pto.int16, 2, 64)(ym16), m16)
        pto.TMOV(m8, hs)
        pto.TSTORE(_gt(pto.float8_e5m2, 2, 64)(ym8), m8)


def reg_gather(tab, i16, i32, off, y):
    """Reg::Gather on A5 over a 2 KiB table: b16 <- b8 (zero-extended) on 100 lanes, b16, b32 on
    50 lanes, b64 (a NumOne dst: the first 32 indices); then GatherB of 6 enabled blocks at
    offsets 16 bytes apart (a misaligned one is rounded down to its block)."""
    core = pto.current_core()
    t, ix16, ix32, ixb = (pto.Tile[V, pto.uint8, 8, 256](), pto.Tile[V, pto.uint16, 1, 128](),
                          pto.Tile[V, pto.uint32, 1, 64](), pto.Tile[V, pto.uint32, 1, 64]())
    out = pto.Tile[V, pto.uint8, 5, 256]()
    for x, a in ((t, 0x0), (ix16, 0x800), (ix32, 0x900), (ixb, 0xA00), (out, 0x1000)):
        pto.TASSIGN(x, a)
    pto.TLOAD(t, _gt(pto.uint8, 8, 256)(tab))
    pto.TLOAD(ix16, _gt(pto.uint16, 1, 128)(i16))
    pto.TLOAD(ix32, _gt(pto.uint32, 1, 64)(i32))
    pto.TLOAD(ixb, _gt(pto.uint32, 1, 64)(off))
    pto.TSHLS(ixb, ixb, 4)                               # 16-byte steps: half of them misaligned
    k16, k32, kb = reg.RegTensor[pto.uint16](), reg.RegTensor[pto.uint32](), reg.RegTensor[pto.uint32]()
    reg.LoadAlign(k16, core.ub_ptr(0x800, pto.uint16))
    reg.LoadAlign(k32, core.ub_ptr(0x900, pto.uint32))
    reg.LoadAlign(kb, core.ub_ptr(0xA00, pto.uint32))
    for n, (T, S, k, lanes) in enumerate(((pto.int16, pto.int8, k16, 100), (pto.half, pto.half, k16, 128),
                                          (pto.float32, pto.float32, k32, 50), (pto.int64, pto.int64, k32, 32))):
        d = reg.RegTensor[T]()
        mask, _ = reg.UpdateMask[T](lanes)
        reg.Gather(d, core.ub_ptr(0, S), k, mask)
        reg.StoreAlign(core.ub_ptr(0x1000 + 256 * n, T), d)
    b = reg.RegTensor[pto.float32]()
    with warnings.catch_warnings():                      # (a misaligned offset warns: rounded down)
        warnings.simplefilter("ignore", UserWarning)
        reg.GatherB(b, core.ub_ptr(0, pto.float32), kb, reg.UpdateMask[pto.float32](6)[0])
    reg.StoreAlign(core.ub_ptr(0x1400, pto.float32), b)
    pto.TSTORE(_gt(pto.uint8, 5, 256)(y), out)


def dma_pads(src, y, z):
    """The A5 aligned copies through the burst engine: GM -> UB Normal (the first element as
    filler), with the pad value as filler, with left/right pads, Compact; GM -> L1 with pads."""
    core = pto.current_core()
    asc.asc_set_copy_pad_val(0xA5B6)
    #                        dst                            src  n len left right dsel l2 sstride dstride
    asc.asc_copy_gm2ub_align(core.ub_ptr(0x000, pto.uint16), src, 3, 46, 0, 0, False, 0, 50, 64)
    asc.asc_copy_gm2ub_align(core.ub_ptr(0x100, pto.uint16), src, 3, 46, 0, 0, True, 0, 50, 64)
    asc.asc_copy_gm2ub_align(core.ub_ptr(0x200, pto.uint16), src, 3, 40, 3, 5, False, 0, 44, 64)
    asc.asc_copy_gm2ub_align(core.ub_ptr(0x300, pto.uint16), src, 4, 38, 0, 0, False, 0, 40, 38)
    t = pto.Tile[V, pto.uint16, 8, 128]()
    pto.TASSIGN(t, 0)
    pto.TSTORE(_gt(pto.uint16, 8, 128)(y), t)
    asc.asc_set_gm2l1_pad(0x1234)
    asc.asc_copy_gm2l1_align(core.l1_ptr(0x0, pto.uint16), src, 3, 40, 2, 4, False, 0, 44, 64)
    m = pto.Tile[pto.TileType.Mat, pto.uint16, 16, 16]()
    pto.TASSIGN(m, 0)
    pto.TSTORE(_gt(pto.uint16, 16, 16)(z), m)


def dma_edges(src, y, z):
    """The A5 aligned copy's burst engine at its edges: 1-byte bursts of 33 and 65 bytes (the fill
    takes each to the next 32-byte boundary: one block more than 32 and 64), with the pad value and
    with the first element as filler; and bursts whose fill ends exactly at the end of UB (the
    last byte a burst may write)."""
    core = pto.current_core()
    asc.asc_set_copy_pad_val(0x5A)
    #                        dst                            src  n len left right dsel l2 sstride dstride
    asc.asc_copy_gm2ub_align(core.ub_ptr(0x000, pto.uint8), src, 2, 33, 0, 0, False, 0, 40, 96)
    asc.asc_copy_gm2ub_align(core.ub_ptr(0x100, pto.uint8), src, 2, 65, 0, 0, True, 0, 70, 96)
    end = core.target.ub_assignable
    asc.asc_copy_gm2ub_align(core.ub_ptr(end - 128, pto.uint8), src, 2, 60, 0, 0, True, 0, 64, 64)
    t, u = pto.Tile[V, pto.uint8, 2, 256](), pto.Tile[V, pto.uint8, 1, 128]()
    pto.TASSIGN(t, 0)
    pto.TASSIGN(u, end - 128)
    pto.TSTORE(_gt(pto.uint8, 2, 256)(y), t)
    pto.TSTORE(_gt(pto.uint8, 1, 128)(z), u)


_IL = ((pto.int8, 511), (pto.half, 257), (pto.float32, 129), (pto.float32, 127))


def _il(T, VC: int, a, b, y) -> None:
    size = np.dtype(T).itemsize if not isinstance(T, str) else 2
    cols = -(-VC * size // 32) * 32 // size
    Src, Full, G = pto.Tile[V, T, 2, cols, RM, 2, VC], pto.Tile[V, T, 2, cols], _gt(T, 2, cols)
    s0, s1, f0, f1 = Src(), Src(), Full(), Full()
    Half = pto.Tile[V, T, 2, cols, RM, 2, VC // 2]        # the one-source form's dsts: src's VC // 2
    outs = [Src() for _ in range(4)] + [Half(), Half()]
    for t, k in ((s0, 0), (f0, 0), (s1, 1), (f1, 1), *((o, 2 + i) for i, o in enumerate(outs))):
        pto.TASSIGN(t, k * 2 * cols * size)
    pto.TLOAD(f0, G(a))
    pto.TLOAD(f1, G(b))
    d0, d1, e0, e1, g0, g1 = outs
    with warnings.catch_warnings():                      # odd widths are the point: the asserts
        warnings.simplefilter("ignore", pto.PtoAssertWarning)      # are compiled out, as in release
        pto.TINTERLEAVE(d1, d0, s1, s0)
        pto.TDEINTERLEAVE(e1, e0, d1, d0)
        pto.TDEINTERLEAVE(g1, g0, s0)
        pto.TINTERLEAVE(e1, e0, s1, e0)                  # in place: src0 is dst0 (the kernel hands it
    for i in range(6):                                   # to NumPy, which reads the sources first)
        w = Full()
        pto.TASSIGN(w, (2 + i) * 2 * cols * size)
        pto.TSTORE(G(y + i * 2 * cols), w)


def interleave(a8, b8, ah, bh, af, bf, y8, yh, yf, yg):
    """TINTERLEAVE, then both TDEINTERLEAVE forms, at the widths around a 256-byte repeat (2E+1
    for 1-, 2- and 4-byte elements, 2E-1 for 4-byte ones): the odd-width rule's last columns."""
    for (T, VC), a, b, y in zip(_IL, (a8, ah, af, af), (b8, bh, bf, bf), (y8, yh, yf, yg)):
        _il(T, VC, a, b, y)


_SCORES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, -0.5, -1.0, -1.5, -2.5, np.nan, np.inf, -np.inf, 2.0 ** 31,
                    7.0], np.float32)
"""TGATHER compare-form scores: around small k values, halves (A5 rounds), specials."""
_KS = np.array([0, 1, 2, 3, 7, 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD], np.uint32)
"""uint32 k values: small, and the negative scores' two's complements (-1, -2, -3: A5 rounds -1.5 to -2)."""
_U32_SCORES = np.concatenate([_KS, np.array([4, 8, 0x7FFFFFFF, 0x80000000, 0x80000001], np.uint32)])
"""uint32 scores: every k (ties), its neighbours, and both sides of 2^31 (an unsigned compare)."""
_F8_POOL = np.concatenate([edge_pool("float32"), np.array(
    [448.0, 464.0, 465.0, 480.0, -464.0, 57344.0, 61440.0, 61441.0, 2.0 ** -9, 1.5 * 2 ** -10, 2.0 ** -16,
     3 * 2.0 ** -18, 1.0625, 1.1875, 0.0625 * 13, 40960.0, 40959.0, 32768.0, 49152.0, 2.0 ** -23, 1.5 * 2.0 ** -23,
     2.0 ** 40, 1e9, -3e9], np.float32)])
"""float32 values the 8-bit floats treat specially: e4m3's largest (448), its ties to it and to NaN
(464, 480), e5m2's (57344, 61440), denormal steps and ties, mantissa ties, hifloat8's largest
(32768), its infinity threshold (40960), its denormals (2^-23 ...), past int32 (NonSatTorch)."""
_HKS = np.array([0, 1, 2, 3, 7, 2049, 2051, 4099, 32767, 32768, 65535], np.uint16)
"""uint16 k values: small, and some that A2/A3 rounds to half (ties to even, past 2048)."""
_HSCORES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, -0.5, -1.0, np.nan, np.inf, -np.inf, 65504.0, 7.0, 2048.0,
                     2052.0, 4096.0, 4104.0], np.float16)
_CVT_POOL = np.concatenate([edge_pool("float32"), np.array(
    [1 + 2 ** -11, 1 + 3 * 2 ** -11, 2049.0, -2049.0, 1 + 2 ** -8, -(1 + 3 * 2 ** -8), 3 * 2 ** -25, 65520.0,
     -(1 + 2 ** -11), 2 ** -149 * 3], np.float32)])
"""TCVT's inputs: float32 edge values and values that tie when rounded to half or bfloat16."""
_TIES = np.array([0.0, -0.0, np.nan, 1.0, -1.0, np.inf, -np.inf], np.float32)
"""Values that tie under max/min (signed zeros) or that the comparisons treat specially."""


def _bits(n, dt):
    return values(n, dt, "bits")


_FP4_POOL = np.array([0.0, -0.0, 0.1, 0.25, 0.3, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0,
                      7.0, 9.0, 1e30, np.nan, np.inf, 2.0 ** -130], np.float32)
_FP4_POOL = np.concatenate([_FP4_POOL, -_FP4_POOL])
"""bfloat16 -> float4 inputs: each format's grid, the ties between its codes, past its largest."""


def cvt_fp4(a, c, y, z):
    """bfloat16 -> float4_e2m1x2 and float4_e1m2x2 (RINT) and back, 2 x 64: the simulator rounds to
    an integral value and encodes by its truncating, wrapping MXType (bias 1); A5 takes the nearest
    code, ties to even, saturating. ``c`` and ``y`` are the packed bytes (two codes a byte)."""
    B = _gt(pto.bfloat16, 2, 64)
    tb = pto.Tile[V, pto.bfloat16, 2, 64]()
    for k, dt in enumerate((pto.float4_e2m1x2, pto.float4_e1m2x2)):
        F = _gt(dt, 2, 64)
        f = pto.Tile[V, dt, 2, 64]()
        pto.TLOAD(tb, B(a))
        pto.TCVT(f, tb, pto.RoundMode.CAST_RINT)
        pto.TSTORE(F(y.cast(dt) + 64 * k), f)
        pto.TLOAD(f, F(c.cast(dt) + 64 * k))
        pto.TCVT(tb, f, pto.RoundMode.CAST_RINT)
        pto.TSTORE(B(z + 128 * k), tb)


def stop_some(tab, ie, y):
    """About a fifth of the instances fault (the simulator's MGATHER Elem reading past GM: each
    of 16 indices in [0, 65) over a 64-element table that ends GM, the last 64 elements of ``y``);
    the TADD and TSTORE after run on the rest, as kernels launched around the stopped ones (whose
    results must stay zero)."""
    F = pto.float32
    T = pto.GlobalTensor[F, pto.Shape[1, 1, 1, 1, 64], pto.Stride[64, 64, 64, 64, 1]]
    it, d, e = pto.Tile[V, pto.int32, 2, 8](), pto.Tile[V, F, 2, 8](), pto.Tile[V, F, 2, 8]()
    pto.TLOAD(d, _gt(F, 2, 8)(tab))
    pto.TLOAD(it, _gt(pto.int32, 2, 8)(ie))
    pto.TSTORE(T(y + 16), pto.Tile[V, F, 1, 64]())          # (the table: what UB holds there)
    pto.MGATHER[pto.Coalesce.Elem](e, T(y + 16), it)
    pto.TADD(e, e, d)
    pto.TSTORE(_gt(F, 2, 8)(y), e)


def fp4_moves(c, y):
    """A5's float4 TLOAD and TSTORE of 2 x 10 valid codes of 2 x 64 (5 bytes a row): the load
    fills each row's burst to its 32-byte end in UB (the filler from the pad register), the store
    writes each row's 5 bytes to GM and nothing past them. The tile is bound through a UB
    pointer (TASSIGN of a Ptr)."""
    F4 = pto.float4_e2m1x2
    G = pto.GlobalTensor[F4, pto.Shape[1, 1, 1, 2, 10], pto.Stride[1, 1, 1, 64, 1]]
    t = pto.Tile[V, F4, 2, 64, RM, 2, 10]()
    pto.TASSIGN(t, pto.current_core().ub_ptr(0x100, F4))
    pto.TLOAD(t, G(c.cast(F4)))
    pto.TSTORE(G(y.cast(F4)), t)
    whole = pto.Tile[V, pto.uint8, 2, 32]()
    pto.TASSIGN(whole, 0x100)
    pto.TSTORE(_gt(pto.uint8, 2, 32)(y + 64), whole)


def gm2l1_edges(tab, ie, iw, y):
    """MGATHER's GM->L1 Elem form (four arguments: the scalar executor) whose GM scratch aliases
    its table: the scalar unit zeroes the scratch, then stores element by element, so later loads
    read earlier stores (NumPy runs it one element at a time). The table and the scratch over its
    last 256 elements are ``y``, whose bytes are compared. Then a gather whose dynamic valid
    region is wider than the tile (2 x 20 of 16 x 16): its NZ offsets past the scratch's 256
    elements leave GM when the scratch is GM's last 1 KiB, a fault before any write."""
    F = pto.float32
    T384 = pto.GlobalTensor[F, pto.Shape[1, 1, 1, 1, 384], pto.Stride[384, 384, 384, 384, 1]]
    S256 = pto.GlobalTensor[F, pto.Shape[1, 1, 1, 1, 256], pto.Stride[256, 256, 256, 256, 1]]
    v = pto.Tile[V, F, 8, 48]()
    pto.TLOAD(v, _gt(F, 8, 48)(tab))
    pto.TSTORE(_gt(F, 8, 48)(y), v)
    pto.pipe_barrier(pto.Pipe.PIPE_ALL)
    d = pto.Tile[M, F, 16, 16, pto.BLayout.ColMajor, 2, 3, pto.SLayout.RowMajor, 512]()
    pto.TASSIGN(d, 0)
    pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](d, T384(y), _gt(pto.int32, 2, 3)(ie), S256(y + 128))
    wide = pto.Tile[M, F, 16, 16, pto.BLayout.ColMajor, -1, -1, pto.SLayout.RowMajor, 512](2, 20)
    pto.TASSIGN(wide, 0x400)
    core = pto.current_core()
    pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](wide, T384(y), _gt(pto.int32, 2, 20)(iw),
                                                        S256(core.gm_ptr(core.gm.size - 1024, F)))


def ew_pad(a, b, y):
    """int8 TAND, TOR and TNOT of 2 x 33 valid columns of 64 over a prefilled destination (A2/A3's
    bitwise ops view the bytes as uint16 and round the width up: byte [r][33] too)."""
    G = _gt(pto.int8, 2, 64)
    T = pto.Tile[V, pto.int8, 2, 64, RM, 2, 33]
    ta, tb, d, whole = T(), T(), T(), pto.Tile[V, pto.int8, 2, 64]()
    for t, addr in ((ta, 0x0), (tb, 0x100), (d, 0x200), (whole, 0x200)):
        pto.TASSIGN(t, addr)
    pto.TLOAD(ta, G(a))
    pto.TLOAD(tb, G(b))
    for k, op in enumerate((lambda: pto.TAND(d, ta, tb), lambda: pto.TOR(d, ta, tb), lambda: pto.TNOT(d, ta))):
        pto.TLOAD(whole, G(b))
        op()
        pto.TSTORE(G(y + k * 128), whole)


_P = pto.PadValue
_PAD_CASES = (
    # (memory, element type, rows, cols, valid rows, valid cols, PadVal): row-major, 256 bytes;
    # of 512 bytes: NZ (ColMajor of RowMajor boxes)
    (V, pto.float32, 4, 16, 3, 5, _P.Max), (V, pto.float32, 4, 16, 3, 5, _P.Min),
    (V, pto.half, 4, 32, 3, 5, _P.Max), (V, pto.bfloat16, 4, 32, 3, 7, _P.Min),
    (V, pto.int8, 4, 64, 2, 33, _P.Max), (V, pto.uint8, 4, 64, 3, 5, _P.Min),
    (V, pto.int16, 4, 32, 3, 7, _P.Zero), (V, pto.int32, 4, 16, 3, 9, _P.Min),
    (V, pto.float32, 4, 16, 3, 5, _P.Null), (V, pto.float32, 4, 16, 3, 5, pto.PadValueCustom(1.5)),
    (V, pto.half, 4, 32, 3, 17, pto.PadValueCustom16(0x7E01)),
    (pto.TileType.Mat, pto.float32, 4, 16, 3, 5, _P.Max), (pto.TileType.Mat, pto.half, 4, 32, 3, 5, _P.Null),
    (pto.TileType.Mat, pto.half, 16, 16, 5, 9, _P.Null),           # NZ: ND -> NZ, the nd2nz tail
    (pto.TileType.Mat, pto.float32, 16, 8, 3, 5, _P.Max),          # NZ of 8-column boxes
)
"""TLOAD's pad cases: each PadVal on element sizes and types whose pad values differ by target,
Vec and Mat tiles (A5's Mat bursts)."""


def tload_pads(sel, junk, src, y):
    """TLOAD into a tile with a PadVal, one case of :data:`_PAD_CASES` an instance (``sel``), over
    a destination prefilled with the instance's ``junk`` bytes; the whole tile's bytes out: the
    simulator's whole-tile fill, the NPUs' burst fillers and pad register, A5's Mat bursts."""
    k = pto.Tile[V, pto.int32, 1, 8]()
    pto.TASSIGN(k, 0x1000)
    pto.TLOAD(k, _gt(pto.int32, 1, 8)(sel))
    loc, dt, rows, cols, vr, vc, pad = _PAD_CASES[int(k.data()[0]) % len(_PAD_CASES)]
    nz = rows * cols * np.dtype(dt).itemsize > 256
    bl, sl = (pto.BLayout.ColMajor, pto.SLayout.RowMajor) if nz else (RM, pto.SLayout.NoneBox)
    whole = pto.Tile[loc, pto.uint8, 8, 64]()
    tile = pto.Tile[loc, dt, rows, cols, bl, vr, vc, sl, 512, pad]()
    pto.TASSIGN(whole, 0)
    pto.TASSIGN(tile, 0)
    pto.TLOAD(whole, _gt(pto.uint8, 8, 64)(junk))
    pto.TLOAD(tile, _gt(dt, vr, vc)(src.cast(dt)))
    pto.TSTORE(_gt(pto.uint8, 8, 64)(y), whole)


_DN_CASES = ((pto.float32, 16, 4, 5, 3, _P.Max), (pto.half, 32, 4, 7, 3, _P.Null), (pto.int8, 64, 4, 33, 2, _P.Min))
"""DN -> ColMajor loads (a burst a valid column): (element type, rows, cols, valid rows, valid
cols, PadVal), 256 bytes each."""


def tload_bursts(junk, src, y):
    """Every case of :data:`_PAD_CASES` but A5's ND Mat ones, and the DN loads of
    :data:`_DN_CASES`, in turn, each over the instance's ``junk`` bytes, each tile's 512 bytes out:
    on a kernel backend the NPUs' Vec loads and ND -> NZ Mat loads run as the DMA bursts the
    vendor's TLoad issues (the burst engine, its own GetPadValue), which the NumPy semantics write
    from the rules (no branch on data: every instance live, so the bursts launch)."""
    k = 0
    cases = [(loc, RM, pto.SLayout.NoneBox, *x) for loc, *x in _PAD_CASES if loc == V]
    cases += [(V, pto.BLayout.ColMajor, pto.SLayout.NoneBox, *x) for x in _DN_CASES]
    cases += [(V, RM, pto.SLayout.NoneBox, dt, 4, 64 // np.dtype(dt).itemsize, 3, 3, pad)    # the rest of
              for dt, pad in ((pto.uint32, _P.Max), (pto.int16, _P.Max), (pto.uint16, _P.Min),   # GetPadValue's
                              (pto.int64, _P.Max), (pto.uint64, pto.PadCustom(-2.0)))]          # types
    cases += [(M, pto.BLayout.ColMajor, pto.SLayout.RowMajor, *x) for loc, *x in _PAD_CASES
              if loc == M and x[1] * x[2] * np.dtype(x[0]).itemsize > 256]
    for loc, bl, sl, dt, rows, cols, vr, vc, pad in cases:
        whole = pto.Tile[loc, pto.uint8, 8, 64]()
        tile = pto.Tile[loc, dt, rows, cols, bl, vr, vc, sl, 512, pad]()
        pto.TASSIGN(whole, 0)
        pto.TASSIGN(tile, 0)
        pto.TLOAD(whole, _gt(pto.uint8, 8, 64)(junk))
        if bl == pto.BLayout.ColMajor and loc == V:
            g = pto.GlobalTensor[dt, pto.Shape[1, 1, 1, vr, vc], pto.Stride[vr * vc, vr * vc, vr * vc, 1, vr],
                                 pto.Layout.DN](src.cast(dt))
        else:
            g = _gt(dt, vr, vc)(src.cast(dt))
        pto.TLOAD(tile, g)
        pto.TSTORE(_gt(pto.uint8, 8, 64)(y + 512 * k), whole)
        k += 1


FUZZ = {
    "tload_bursts": dict(inputs={"junk": _bits(512, "uint8"), "src": _bits(256, "uint8")},
                         outputs={"y": (512 * 21, pto.uint8)}, pair="a5@numpy:a5@native"),
    "tload_pads": dict(inputs={"sel": indices(8, len(_PAD_CASES), "int32", "uniform"), "junk": _bits(512, "uint8"),
                               "src": _bits(256, "uint8")},
                       outputs={"y": (512, pto.uint8)}, pair="cpu:a5"),
    "ew_float": dict(inputs={"a": _bits(256, "float32"), "b": _bits(256, "float32")},
                     outputs={"y": (256, pto.float32), "z": (256, pto.float32)}, pair="cpu:a5"),
    "ew_maxmin": dict(inputs={"a": _bits(256, "float32"), "b": _bits(256, "float32")},
                      outputs={"y": (256, pto.float32)}, pair="cpu:a5"),
    "ew_int": dict(inputs={"a": _bits(256, "int32"), "b": _bits(256, "int32")},
                   outputs={"y": (256, pto.int32)}, pair="cpu:a5"),
    "ew_pad": dict(inputs={"a": values(128, "int8", "edges"), "b": values(128, "int8", "edges")},
                   outputs={"y": (384, pto.int8)}, pair="a2a3:a5"),
    "ew_subs": dict(inputs={"a": values(256, "int32", "small")}, outputs={"y": (256, pto.int32)}, pair="cpu:a2a3"),
    "cmp": dict(inputs={"a": values(64, "int32", "small"), "b": values(64, "int32", "small")},
                outputs={"m": (128, pto.uint8)}, pair="cpu:a5"),
    "sel": dict(inputs={"a": values(64, "half", "small"), "b": values(64, "half", "small"),
                        "m": _bits(128, "uint8")}, outputs={"y": (64, pto.half)}, pair="cpu:a5"),
    "cvt": dict(inputs={"a": _bits(256, "float32")}, outputs={"y": (256, pto.int32)}, pair="cpu:a5"),
    "cvt_fp4": dict(inputs={"a": picks(128, _FP4_POOL, "bfloat16", rate=0.8), "c": _bits(128, "uint8")},
                    outputs={"y": (128, pto.uint8), "z": (256, pto.bfloat16)}, pair="cpu:a5"),
    "mov": dict(inputs={"a": _bits(256, "int16")}, outputs={"y": (256, pto.int16)}, pair="cpu:a2a3"),
    "stop_some": dict(inputs={"tab": values(16, "float32", "small"), "ie": indices((2, 8), 65, "int32", "uniform")},
                      outputs={"y": (80, pto.float32)}, pair="cpu@numpy:cpu@native"),
    "fp4_moves": dict(inputs={"c": _bits(64, "uint8")}, outputs={"y": (128, pto.uint8)}, pair="a5@numpy:a5@native"),
    "gm2l1_edges": dict(inputs={"tab": values(384, "float32", "small"), "ie": indices((2, 3), 384, "int32", "mixed"),
                                "iw": indices((2, 20), 384, "int32", "uniform")},
                        outputs={"y": (384, pto.float32)}, pair="a5@numpy:a5@native"),
    "cmp_types": dict(inputs={**{f"{s}{k}": values(256 // np.dtype(T).itemsize, T, "edges")
                                 for k, T in enumerate(_CMP_TYPES) for s in "ab"}, "m": _bits(256, "uint8")},
                      outputs={"y": (len(_CMP_TYPES) * CMP_SLOTS * 256, pto.uint8)}, pair="a5@numpy:a5@native"),
    "ew_types": dict(inputs={f"{s}{k}": values(64 // np.dtype(T).itemsize, T, "edges")
                             for k, (T, _) in enumerate(_EW_TYPES) for s in "ab"},
                     outputs={"y": (len(_EW_TYPES) * EW_SLOTS * 64, pto.uint8)}, pair="a5@numpy:a5@native"),
    "ew_edges": dict(inputs={f"{k}{v}": values(64 // n, t, "edges") for v in "ab"
                             for k, t, n in (("f", "float32", 4), ("h", "int16", 2), ("b", "uint8", 1), ("l", "int64", 8))},
                     outputs={"yf": (10 * 16, pto.float32), "yh": (17 * 32, pto.int16), "yb": (17 * 64, pto.uint8),
                              "yl": (17 * 8, pto.int64)}, pair="a5@numpy:a5@native"),
    "nz_gather": dict(inputs={"tab": _bits(1024, "half"), "ie": indices((16, 20), 1024, "int32", "mixed"),
                              "ir": indices((1, 20), 32, "int32", "mixed")},
                      outputs={"ye": (1024, pto.half), "yr": (1024, pto.half), "yz": (1024, pto.half),
                               "yw": (1024, pto.half)},
                      pair="a2a3@numpy:a2a3@native"),
    "tgatherb_float_offsets": dict(
        inputs={"src8": _bits(1024, "int8"), "srch": _bits(512, "half"), "oh": values(16, "half", "small"),
                "of": values(8, "float32", "small"), "oe": values(32, "float8_e4m3", "edges"),
                "o5": values(32, "float8_e5m2", "small")},
        outputs={"y8": (96, pto.int8), "yh": (48, pto.half), "ye": (16, pto.half), "y5": (16, pto.half)},
        pair="cpu@numpy:cpu@native"),
    "tgatherb_ub_end": dict(inputs={"src8": _bits(1024, "int8"), "off": indices(8, 993, "uint32", "uniform")},
                            outputs={"y": (256, pto.int8)}, pair="a5@numpy:a5@native"),
    "tgatherb_misaligned": dict(inputs={"src8": _bits(1024, "int8"), "off": indices(8, 1000, "uint32", "uniform")},
                                outputs={"y": (256, pto.int8)}, pair="a5@numpy:a5@native"),
    "mscatter_strided": dict(inputs={"v": values(128, "float32", "small"), "ix": indices(8, 20, "int32", "mixed")},
                             outputs={"y": (480, pto.float32), "z": (480, pto.float32)},
                             pair="a2a3@numpy:a2a3@native"),
    "mscatter_edges": dict(inputs={"vf": picks(128, _TIES, "float32", 0.9), "vi": values(128, "int32", "edges"),
                                   "vh": values(128, "half", "edges"), "vu": values(128, "uint32", "edges"),
                                   "idx": indices(128, 64, "int32", "uniform")},
                           outputs={"tmax": (32, pto.float32), "tmin": (32, pto.float32), "tadd": (32, pto.int32),
                                    "thadd": (32, pto.half), "tumin": (32, pto.uint32), "timax": (32, pto.int32)},
                           pair="a5@numpy:a5@native"),
    "tgather_cmp": dict(inputs={"v": picks(256, _SCORES, "float32", 0.9), "k": picks(16, _KS, "uint32", 0.9),
                                "hv": picks(256, _HSCORES, "half", 0.9),
                                "kh": picks(16, _HKS, "uint16", 0.9), "iv": values(256, "int32", "small"),
                                "uv": picks(256, _U32_SCORES, "uint32", 0.9)},
                        outputs={"y": (512, pto.int32), "c": (16, pto.int32), "yh": (264, pto.int32),
                                 "yi": (264, pto.int32), "yu": (264, pto.int32)}, pair="a5@numpy:a5@native"),
    "tgather_scratch_end": dict(inputs={"a": values(128, "half", "small"), "i": indices(128, 128, "int32", "uniform")},
                                outputs={"y": (768, pto.half)}, pair="a2a3@numpy:a2a3@native"),
    "tgather_in_place": dict(inputs={"a": values(128, "int32", "small"), "i": indices(128, 32, "int32", "uniform"),
                                     "k": values(16, "uint32", "small")},
                             outputs={"y": (256, pto.int32), "z": (128, pto.int32)}, pair="a5@numpy:a5@native"),
    "cmp_narrow": dict(inputs={"fa": values(128, "float32", "edges"), "m": _bits(64, "uint8")},
                       outputs={"y": (128, pto.uint8)}, pair="a2a3@numpy:a2a3@native"),
    "dma_edges": dict(inputs={"src": _bits(256, "uint8")}, outputs={"y": (512, pto.uint8), "z": (128, pto.uint8)},
                      pair="a5@numpy:a5@native"),
    "cmp_edges": dict(inputs={"fa": values(128, "float32", "edges"), "fb": values(128, "float32", "edges"),
                              "ha": values(256, "half", "edges"), "hb": values(256, "half", "edges"),
                              "ia": values(128, "int32", "edges"), "ib": values(128, "int32", "edges"),
                              "ua": values(160, "uint64", "edges"), "ub": values(160, "uint64", "edges"),
                              "m": _bits(64, "uint8")},
                      outputs={"y": (24 * 64, pto.uint8), "zf": (256, pto.float32), "zh": (512, pto.half),
                               "zi": (256, pto.int32), "yu": (6 * 64, pto.uint8)}, pair="a5@numpy:a5@native"),
    "cmp_bytes": dict(inputs={"a": values(640, "int8", "edges"), "b": values(640, "int8", "edges"),
                              "m": _bits(192, "uint8"), "u": values(16, "uint64", "edges")},
                      outputs={"y": (576, pto.uint8), "z": (3 * 640, pto.int8), "zu": (16, pto.uint64)},
                      pair="a5@numpy:a5@native"),
    "overlaps": dict(inputs={"a": values(512, "int32", "small"), "b": values(256, "int32", "small"),
                             "v": values(64, "float32", "edges"), "ix": values(64, "uint32", "small")},
                     outputs={"y": (20 * 256, pto.int32), "y8": (256, pto.int8)}, pair="a5@numpy:a5@native"),
    "mov_relayouts": dict(inputs={"a": _bits(2 * 2048, "half")}, outputs={"y": (2 * 2048, pto.half)},
                          pair="a5@numpy:a5@native"),
    "mov_widths": dict(inputs={"a": _bits(256, "int16"), "b": _bits(256, "int16")},
                       outputs={"y": (768, pto.int16)}, pair="a5@numpy:a5@native"),
    "mov_shapes": dict(inputs={"a": _bits(256, "int16"), "b": _bits(256, "int16")},
                       outputs={"y": (1280, pto.int16)}, pair="a2a3@numpy:a2a3@native"),
    "sort_edges": dict(inputs={"vf": values(144, "float32", "edges"), "vh": values(144, "half", "edges"),
                               "idx": values(144, "uint32", "small")},
                       outputs={"yf": (2 * 192, pto.float32), "yh": (2 * 384, pto.half), "tf": (256, pto.float32),
                                "mf": (160, pto.float32), "mh": (160, pto.half)},
                       pair="a5@numpy:a5@native"),
    "mrgsort_edges": dict(inputs={"vf": picks(128, _TIES, "float32", 0.5), "vh": values(128, "half", "edges"),
                                  "idx": values(128, "uint32", "small"), "v8": values(256, "uint8", "edges"),
                                  "v64": values(32, "uint64", "edges")},
                          outputs={"sf": (256, pto.float32), "sh": (512, pto.half), "mf": (256, pto.float32),
                                   "mh": (512, pto.half), "df": (512, pto.float32), "dh": (1024, pto.half),
                                   "cf": (8, pto.int32), "ch": (8, pto.int32), "d8": (256, pto.uint8),
                                   "d64": (32, pto.uint64)}, pair="a5@numpy:a5@native"),
    "cvt_minifloats": dict(inputs={"a": picks(128, _F8_POOL, "float32", 0.7), "h": values(128, "half", "edges"),
                                   "c4": values(128, "float8_e4m3", "bits"), "c5": values(128, "float8_e5m2", "bits"),
                                   "c8": values(128, "hifloat8", "bits")},
                           outputs={"y4": (256, pto.float8_e4m3), "y5": (256, pto.float8_e5m2),
                                    "yh8": (256, pto.hifloat8), "yw": (3 * 128, pto.float32),
                                    "yt16": (len(pto.RoundMode) * 128, pto.int16),
                                    "yt8": (len(pto.RoundMode) * 128, pto.int8), "ym16": (128, pto.int16),
                                    "ym8": (128, pto.float8_e5m2)},
                           pair="a5@numpy:a5@native"),
    "cvt_edges": dict(inputs={"a": picks(128, _CVT_POOL, "float32", 0.6), "i": values(128, "int32", "edges")},
                      outputs={"y32": (7 * 128, pto.int32), "y16": (7 * 128, pto.int16), "yh": (7 * 128, pto.half),
                               "yb": (7 * 128, pto.bfloat16), "yf": (7 * 128, pto.float32), "z16": (256, pto.int16), "zh": (256, pto.half),
                               "z32": (256, pto.float32), "s16": (256, pto.int16)},
                      pair="a5@numpy:a5@native"),
    "reg_gather": dict(inputs={"tab": _bits(2048, "uint8"), "i16": indices(128, 2048, "uint16", "mixed"),
                               "i32": indices(64, 512, "uint32", "uniform"), "off": indices(64, 64, "uint32", "uniform")},
                       outputs={"y": (1280, pto.uint8)}, pair="a5@numpy:a5@native"),
    "dma_pads": dict(inputs={"src": _bits(128, "uint16")}, outputs={"y": (1024, pto.uint16), "z": (256, pto.uint16)},
                     pair="a5@numpy:a5@native"),
    "interleave": dict(inputs={"a8": _bits(2 * 512, "int8"), "b8": _bits(2 * 512, "int8"),
                               "ah": _bits(2 * 272, "half"), "bh": _bits(2 * 272, "half"),
                               "af": _bits(2 * 136, "float32"), "bf": _bits(2 * 136, "float32")},
                       outputs={"y8": (12 * 512, pto.int8), "yh": (12 * 272, pto.half), "yf": (12 * 136, pto.float32),
                                "yg": (12 * 128, pto.float32)}, pair="a5@numpy:a5@native"),
    "sort": dict(inputs={"v": values(40, "float32", "small")}, outputs={"y": (128, pto.float32)},
                 fixed={"idx": np.arange(40, dtype=np.uint32)}, pair="cpu:a2a3"),
}
