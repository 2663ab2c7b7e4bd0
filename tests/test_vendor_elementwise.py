"""The vendor's own system tests of the element-wise tile instructions, ported to pytest.

Instructions: TADD TSUB TMUL TDIV TMAX TMIN TAND TOR TXOR TSHL TSHR (tile-tile), TNOT TNEG TABS
(unary), TADDS TSUBS TMULS TDIVS TMAXS TMINS TANDS TORS TXORS TSHLS TSHRS (tile-scalar),
TEXPANDS and TCI.

Source: ``hw-native-sys/pto-isa`` (commit 3186c381), the directories ``<op>/`` (one per
instruction, lower case) of

* ``tests/cpu/st/testcase/``
* ``tests/npu/a2a3/src/st/testcase/``
* ``tests/npu/a5/src/st/testcase/``

(``main.cpp`` lists the cases and their shapes, ``gen_data.py`` writes inputs and goldens,
``*_kernel.cpp`` holds the tile declarations, the ``TASSIGN`` addresses and the calls;
summaries in the spec notes ``shared/spec/elementwise.md`` section 5 and
``shared/spec/scalar-ops.md`` section 11).

Every vendor case is one test per (target, case) on the ``numpy`` backend. Each test declares the
kernel's tiles (same shapes, valid shapes -- dynamic or static as the kernel has them --, element
types, layouts) at the kernel's ``TASSIGN`` addresses, loads the valid region of each input the way
the kernel's ``TLOAD`` does (row ``r`` of the region to ``tile_base + r * Cols * sizeof``), makes the
kernel's call, and compares the bytes of dst's valid region (what ``TSTORE`` writes and the host
compares; the rest of the host's buffer is its own memset) with a golden computed here with NumPy
by the ``gen_data.py`` formula (never by ptogpu). Inputs come from a fixed per-case seed, drawn as
``gen_data.py`` draws them (same distributions and dtypes), not the vendor's random stream (several
vendor scripts have no seed at all); the two A5 TADD int64 cases use the script's own
``default_rng(5)``.

Comparison: exact bytes wherever the formula is exact for the target's arithmetic (every
integer case, and the float cases whose results numpy rounds as the target does). Float
division on the NPUs (``vdiv``, whose precision the vendor code leaves to the hardware) and the
NPUs' float TNEG/TABS cases (``random()`` draws half subnormals, which the NPUs may flush) are
compared as the vendor's ``ResultCmp`` does (``tests/common/test_common.h:231``: an element
fails when ``|e-a| > eps and |e-a|/|e| > eps`` or exactly one side is NaN; at most
``size*eps`` failures), with the vendor's eps.

Harness details reproduced from the vendor kernels and hosts:

* Scalars that the host passes as a ``float`` (``divider.bin``/``scalar.bin`` written with
  ``struct.pack('f')``) reach the kernel as ``(T)float``. Where that conversion is inexact (the
  int32/uint32 scalars of A5 TADDS/TSUBS and the int32 TEXPANDS fill on CPU and A2/A3) the
  ``gen_data.py`` golden uses the unrounded value and passes only through ``ResultCmp``'s
  tolerance; here the call gets the scalar the kernel gets and the golden uses that value (the
  test also checks the vendor golden would pass ``ResultCmp``).
* Mislabelled dtypes: the bytes are those of ``gen_data.py``'s dtype, the tiles have the kernel's
  (CPU TNOT cases 4-7: uint tiles on int data; A2/A3 TAND case6 and A5 TAND case10: half tiles on
  16-bit integer data; A5 TAND case11: a float tile on int32 data). All are bit operations.
* A2/A3 and A5 TNEG/TABS draw ``np.random.random().astype(T)``: every integer input is 0 (a
  vendor test bug kept as is: those cases check 0 -> 0).
* A2/A3 ``tmins/`` calls TMIN (tile-tile, static valid shapes), not TMINS; it is ported as TMIN.
* A2/A3 TDIVS declares its dst tile with the src tile's shape (``tdivs_kernel.cpp``); kept.
* A5 TADDS ``case11`` launches kernel 10 (``main.cpp``: ``TAddSTestFramework<10, uint8_t, 1, 64,
  ...>``): the 256x64 / 256x32 tiles run on a 1x32 input, the rest of its rows is whatever follows
  in GM; the host compares row 0 only (its 64-byte buffer). Ported as that.
* ``PadValue`` of the vendor tile types only matters to ``TLOAD`` padding outside the valid region
  (never compared), so the ports declare their tiles without it (ptogpu's tiles take it: docs/dma.md).
* CPU bf16 cases exist only with ``CPU_SIM_BFLOAT_ENABLED``; they are ported too.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptogpu as pto
from vendor_common import assert_bytes, result_cmp

pytestmark = pytest.mark.usefixtures("fresh_stack")

V = pto.TileType.Vec
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
SEED = 20260821
HP = pto.DivAlgorithm.HIGH_PRECISION

# dtype key -> (tile element type, numpy dtype, vendor name in case names)
DT = {"f32": (pto.float32, np.float32, "float"), "f16": (pto.half, np.float16, "half"),
      "bf16": (pto.bfloat16, ml_dtypes.bfloat16, "bf16"), "i8": (pto.int8, np.int8, "int8"),
      "u8": (pto.uint8, np.uint8, "uint8"), "i16": (pto.int16, np.int16, "int16"),
      "u16": (pto.uint16, np.uint16, "uint16"), "i32": (pto.int32, np.int32, "int32"),
      "u32": (pto.uint32, np.uint32, "uint32"), "i64": (pto.int64, np.int64, "int64"),
      "u64": (pto.uint64, np.uint64, "uint64")}
FLOATS = ("f32", "f16", "bf16")


# --------------------------------------------------------------------------------------------
# helpers


def npd(key):
    return DT[key][1]


def isz(key) -> int:
    return np.dtype(npd(key)).itemsize


def rng(*key) -> np.random.RandomState:
    """A fixed stream per case (legacy RandomState: the draws gen_data.py's np.random.* make)."""
    return np.random.RandomState((SEED + sum(map(ord, "/".join(map(str, key))))) % (2 ** 32))


def ne(values, key):
    """tests/cpu/st/utils.py NumExt.astype: bf16 rounds float32 to nearest-even, others astype."""
    if key == "bf16":
        return np.asarray(values, np.float32).astype(ml_dtypes.bfloat16)
    return np.asarray(values).astype(npd(key))


def f32(a):
    return np.asarray(a).astype(np.float32)


def iinfo(key):
    return np.iinfo(npd(key))


def tile(key, rows, cols, vr, vc, *, static=False, layout=RM):
    """``Tile<Vec, T, rows, cols, layout, -1, -1>(vr, vc)`` or, static, ``Tile<..., vr, vc>``."""
    el = DT[key][0]
    if static:
        return pto.Tile[V, el, rows, cols, layout, vr, vc]()
    return pto.Tile[V, el, rows, cols, layout, -1, -1](vr, vc)


def at(t, addr: int):
    pto.TASSIGN(t, addr)
    return t


def put(core, t, a) -> None:
    """What TLOAD of a dense (vr, vc) region into a row-major tile writes: row r at
    ``addr + r * Cols * itemsize`` (only the valid bytes; the array's dtype gives the bytes)."""
    a = np.ascontiguousarray(a)
    a = a.reshape(1, -1) if a.ndim == 1 else a
    rows, cols = a.shape
    assert (rows, cols) == (t.valid_row, t.valid_col) and a.itemsize == t.Element.itemsize
    if cols == t.Cols:
        core.write("ub", t.addr, a.view(np.uint8).reshape(-1))
        return
    for r in range(rows):
        core.write("ub", t.addr + r * t.Cols * a.itemsize, a[r].view(np.uint8))


def get(core, t, dtype) -> np.ndarray:
    """dst's valid region (what TSTORE writes to the dense GM region) as a (vr, vc) array."""
    dt = np.dtype(dtype)
    n = dt.itemsize
    vr, vc = t.valid_row, t.valid_col
    if t.isRowMajor:
        raw = core.read("ub", t.addr, ((vr - 1) * t.Cols + vc) * n)
        raw = np.concatenate([raw, np.zeros((t.Cols - vc) * n, np.uint8)])
        return np.ascontiguousarray(raw.view(dt).reshape(vr, t.Cols)[:, :vc])
    raw = core.read("ub", t.addr, ((vc - 1) * t.Rows + vr) * n)      # column c at addr + c*Rows*n
    raw = np.concatenate([raw, np.zeros((t.Rows - vr) * n, np.uint8)])
    return np.ascontiguousarray(raw.view(dt).reshape(vc, t.Rows)[:, :vr].T)


def check(got, golden, eps, what):
    if eps is None:
        assert_bytes(got, golden, what)
    else:
        result_cmp(golden, got, eps, what)


def params(cases):
    out = []
    for c in cases:
        marks = []
        if c.get("xfail"):
            reason, exc = c["xfail"]
            marks = [pytest.mark.xfail(strict=True, raises=exc, reason=reason)]
        out.append(pytest.param(c, id=f"{c['target']}-{c['dir']}-{c['name']}", marks=marks))
    return out


def name3(key, *shapes):
    return f"case_{DT[key][2]}_" + "_".join(f"{r}x{c}" for r, c in shapes)


def errstate(fn):
    def wrapped(*a):
        with np.errstate(all="ignore"):
            return fn(*a)
    return wrapped


# --------------------------------------------------------------------------------------------
# golden formulas (gen_data.py)

ADD, SUB, MUL = (lambda a, b: a + b), (lambda a, b: a - b), (lambda a, b: a * b)
AND, OR, XOR = (lambda a, b: a & b), (lambda a, b: a | b), (lambda a, b: a ^ b)
SHL, SHR = (lambda a, b: a << b), (lambda a, b: a >> b)
MAX, MIN = np.maximum, np.minimum


def truediv_into(key):
    """``golden[...] = in1 / in2`` assigned into an array of the input dtype (float: the dtype's
    own division; integer: float64 true division truncated by the assignment)."""
    return lambda a, b: np.asarray(np.true_divide(a, b)).astype(npd(key))


def numext_op(op, key):
    """CPU goldens ``NumExt.astype(op(in1, in2), dt)``: bf16 values are float32 there."""
    if key == "bf16":
        return lambda a, b: ne(op(f32(a), f32(b)), key)
    return lambda a, b: ne(op(a, b), key)


# ============================================================================================
# tile-tile: TADD TSUB TMUL TDIV TMAX TMIN TAND TOR TXOR TSHL TSHR
# case: target, dir, name, call, k (tile dtype), g (data dtype), dst/s0/s1 tile shapes, valid,
# static (static valid shape), addr (dst, src0, src1[, tmp]), gen(r) -> (x, y), golden(x, y),
# eps (None: exact bytes), hp (TDIV HIGH_PRECISION), xfail.

BINARY = []


def B(target, d, name, call, k, dst, s0, s1, valid, addr, gen, golden, *, g=None, static=False, eps=None,
      hp=False, xfail=None):
    BINARY.append(dict(target=target, dir=d, name=name, call=call, k=k, g=g or k, dst=dst, s0=s0, s1=s1,
                       valid=valid, static=static, addr=addr, gen=gen, golden=golden, eps=eps, hp=hp,
                       xfail=xfail))


def gen_pair(draw):
    return lambda r: (draw(r), draw(r))


# ---- CPU (tests/cpu/st/testcase/<op>): randint(1, 10) inputs, full valid tiles --------------
CPU_ARITH = [("f32", 64, 64), ("i32", 64, 64), ("i16", 64, 64), ("f16", 16, 256), ("bf16", 16, 256)]
for _d, _call, _op, _extra in (("tadd", "TADD", ADD, []), ("tsub", "TSUB", SUB, []),
                               ("tmul", "TMUL", MUL, [("u8", 64, 64), ("u16", 64, 64), ("u32", 64, 64)]),
                               ("tdiv", "TDIV", None, []), ("tmax", "TMAX", MAX, []), ("tmin", "TMIN", MIN, [])):
    for _k, _R, _C in CPU_ARITH + _extra:
        _n = _R * _C * isz(_k)
        # tadd/tsub/tmul kernels: TASSIGN 0x0 / 0x4000 / 0x8000; the others (re)assign 0 / n / 2n
        _addr = (0x8000, 0x0, 0x4000) if _d in ("tadd", "tsub", "tmul") else (2 * _n, 0, _n)
        _gold = numext_op(_op, _k) if _op is not None else (
            (lambda a, b: ne(f32(a) / f32(b), "bf16")) if _k == "bf16" else truediv_into(_k))
        B("cpu", _d, name3(_k, (_R, _C), (_R, _C), (_R, _C)), _call, _k, (_R, _C), (_R, _C), (_R, _C),
          (_R, _C), _addr, gen_pair(lambda r, k=_k, R=_R, C=_C: ne(r.randint(1, 10, [R, C]), k)), _gold)

for _d, _call, _op, _cases in (
        ("tand", "TAND", AND, [("i16", 64, 64), ("i32", 16, 256), ("i32", 32, 32), ("i32", 77, 96), ("i32", 8, 64),
                               ("u32", 64, 64), ("u32", 16, 32), ("u32", 12, 128), ("u32", 4, 64)]),
        ("tor", "TOR", OR, [("i16", 64, 64), ("i32", 16, 256), ("i32", 64, 64), ("i32", 77, 96), ("i32", 32, 32),
                            ("u32", 64, 64), ("u32", 16, 32), ("u32", 77, 96), ("u32", 32, 64)]),
        ("txor", "TXOR", XOR, [("i16", 64, 64), ("i32", 16, 256)]),
        ("tshl", "TSHL", SHL, [("i16", 64, 64), ("i32", 16, 256)]),
        ("tshr", "TSHR", SHR, [("i16", 64, 64), ("i32", 16, 256)])):
    for _k, _R, _C in _cases:
        _n = _R * _C * isz(_k)
        _addr = (2 * _n, 0, _n) + ((3 * _n,) if _call == "TXOR" else ())
        B("cpu", _d, name3(_k, (_R, _C), (_R, _C), (_R, _C)), _call, _k, (_R, _C), (_R, _C), (_R, _C),
          (_R, _C), _addr, gen_pair(lambda r, k=_k, R=_R, C=_C: r.randint(1, 10, [R, C]).astype(npd(k))), _op)

# ---- A2/A3 (tests/npu/a2a3/src/st/testcase/<op>) ----------------------------------------
# tadd: Tile<R, C> full valid at 0x0 / 0x10000 / 0x20000
for _k, _R, _C in (("f32", 64, 64), ("i32", 64, 64), ("i16", 64, 64), ("f16", 16, 256)):
    B("a2a3", "tadd", name3(_k, (_R, _C), (_R, _C)), "TADD", _k, (_R, _C), (_R, _C), (_R, _C), (_R, _C),
      (0x20000, 0, 0x10000), gen_pair(lambda r, k=_k, R=_R, C=_C: r.randint(1, 10, [R, C]).astype(npd(k))), ADD)
# tsub: 0x0 / 0x4000 / 0x8000
for _k in ("f32", "i32", "i16", "f16"):
    B("a2a3", "tsub", name3(_k, (64, 64), (64, 64), (64, 64)), "TSUB", _k, (64, 64), (64, 64), (64, 64), (64, 64),
      (0x8000, 0, 0x4000), gen_pair(lambda r, k=_k: r.randint(1, 10, [64, 64]).astype(npd(k))), SUB)
# tmul / tdiv: Tile<tR, tC> with valid gR x gC, compact randint(1, 10, [gR, gC]) data
for _d, _call, _cases in (
        ("tmul", "TMUL", [("f32", 64, 64, 64, 64), ("i32", 64, 64, 64, 64), ("f16", 16, 16, 16, 16),
                          ("i16", 64, 64, 64, 64), ("f16", 61, 61, 64, 64), ("i32", 60, 30, 64, 32),
                          ("i32", 32, 32, 32, 32)]),
        ("tdiv", "TDIV", [("f32", 64, 64, 64, 64), ("f16", 64, 64, 64, 64), ("f16", 61, 61, 64, 64),
                          ("f32", 60, 30, 64, 32), ("f32", 32, 32, 32, 32)])):
    for _k, _gR, _gC, _tR, _tC in _cases:
        B("a2a3", _d, name3(_k, (_gR, _gC), (_tR, _tC), (_gR, _gC)), _call, _k, (_tR, _tC), (_tR, _tC), (_tR, _tC),
          (_gR, _gC), (0x8000, 0, 0x4000),
          gen_pair(lambda r, k=_k, R=_gR, C=_gC: r.randint(1, 10, [R, C]).astype(npd(k))),
          MUL if _call == "TMUL" else truediv_into(_k),
          eps=None if _call == "TMUL" else 0.001)   # TDIV: vdiv, HW precision: the vendor's ResultCmp


def wide(r, k, shape):
    """a2a3 tmax/tmin/tmins gen_data.py value ranges."""
    if k == "i16":
        return r.randint(-30_000, 30_000, size=shape).astype(np.int16)
    if k == "i32":
        return r.randint(-2_000_000_000, 2_000_000_000, size=shape).astype(np.int32)
    if k == "f16":
        return r.uniform(-30_000, 30_000, size=shape).astype(np.float16)
    return r.uniform(-2_000_000_000, 2_000_000_000, size=shape).astype(np.float32)


# tmax / tmin: Tile<tR, tC, ..., PadValue> valid vR x vC at 0x0 / 0x4000 / 0x8000 (the 20x512 int16
# tiles overlap the next address, their valid rows do not)
for _d, _call, _op, _pad in (("tmax", "TMAX", MAX, "MAX"), ("tmin", "TMIN", MIN, "MIN")):
    for _k, _gR, _gC, _tR, _tC, _vR, _vC, _p in (
            ("f32", 64, 64, 64, 64, 64, 64, "NULL"), ("i32", 64, 64, 64, 64, 64, 64, "NULL"),
            ("f16", 64, 64, 64, 64, 64, 64, "NULL"), ("i16", 64, 64, 64, 64, 64, 64, "NULL"),
            ("f32", 60, 60, 64, 64, 60, 60, _pad), ("i32", 60, 60, 64, 64, 60, 60, _pad),
            ("f16", 1, 3600, 2, 4096, 1, 3600, _pad), ("i16", 16, 200, 20, 512, 16, 200, _pad)):
        B("a2a3", _d, name3(_k, (_gR, _gC), (_tR, _tC), (_vR, _vC)) + f"_PAD_VALUE_{_p}", _call, _k, (_tR, _tC),
          (_tR, _tC), (_tR, _tC), (_vR, _vC), (0x8000, 0, 0x4000),
          gen_pair(lambda r, k=_k, R=_gR, C=_gC: wide(r, k, [R, C])), _op)
# tmins/ (calls TMIN): static-valid tiles dst / src0 / src1 at 0x20000 / 0x0 / 0x10000
for _k, _dR, _dC, _aR, _aC, _bR, _bC, _vR, _vC, _p in (
        ("f32", 64, 64, 64, 64, 64, 64, 64, 64, "NULL"), ("i32", 64, 64, 64, 64, 64, 64, 64, 64, "NULL"),
        ("f16", 64, 64, 64, 64, 64, 64, 64, 64, "NULL"), ("i16", 64, 64, 64, 64, 64, 64, 64, 64, "NULL"),
        ("f32", 60, 128, 64, 64, 60, 128, 60, 60, "MIN"), ("i32", 60, 128, 64, 64, 60, 128, 60, 60, "MIN"),
        ("f16", 1, 3600, 2, 4096, 1, 3600, 1, 3600, "MIN"), ("i16", 16, 256, 20, 512, 16, 256, 16, 200, "MIN")):
    B("a2a3", "tmins(TMIN)", f"case_{DT[_k][2]}_{_vR}x{_vC}_PAD_VALUE_{_p}", "TMIN", _k, (_dR, _dC), (_aR, _aC),
      (_bR, _bC), (_vR, _vC), (0x20000, 0, 0x10000),
      lambda r, k=_k, a=(_aR, _aC), b=(_bR, _bC): (wide(r, k, list(a)), wide(r, k, list(b))), MIN, static=True)


def full_range(r, k, size):
    """``randint(iinfo.min, iinfo.max, size).astype(T)``."""
    i = iinfo(k)
    return r.randint(int(i.min), int(i.max), size=size, dtype=np.int64).astype(npd(k))


# tand / tor: Tile<tR, tC> valid vR x vC at 0x0 / 0x10000 / 0x20000, compact full-range data
_A2_BITWISE = [("u16", 64, 64, 64, 64), ("u16", 64, 64, 63, 63), ("u16", 1, 16384, 1, 16384),
               ("u16", 2048, 16, 2048, 16), ("i16", 64, 64, 64, 64)]
_A2_BITWISE_TAIL = [("u8", 64, 64, 63, 63), ("i8", 64, 64, 63, 63), ("u32", 64, 64, 64, 64), ("u32", 64, 64, 61, 61),
                    ("u32", 1, 16384, 1, 16384), ("u32", 1024, 16, 1024, 16)]
for _d, _call, _op, _cases in (
        ("tand", "TAND", AND, _A2_BITWISE + [("u16>f16", 64, 64, 64, 64)] + _A2_BITWISE_TAIL),
        ("tor", "TOR", OR, _A2_BITWISE + _A2_BITWISE_TAIL)):
    for _i, (_k, _tR, _tC, _vR, _vC) in enumerate(_cases, 1):
        _g, _, _kk = _k.partition(">")
        _kk = _kk or _g
        B("a2a3", _d, f"case{_i}", _call, _kk, (_tR, _tC), (_tR, _tC), (_tR, _tC), (_vR, _vC), (0x20000, 0, 0x10000),
          gen_pair(lambda r, g=_g, R=_vR, C=_vC: full_range(r, g, R * C).reshape(R, C)), _op, g=_g,
          xfail=None)
# txor: dst / src0 / src1 / tmp packed from 0x0 in that order; GM strides are the tile widths
for _k, _d0, _a0, _b0, _v in (("i16", (64, 64), (64, 64), (64, 64), (64, 64)),
                              ("i16", (32, 128), (32, 128), (32, 256), (32, 128)),
                              ("i16", (32, 128), (32, 128), (32, 256), (32, 127)),
                              ("u16", (64, 64), (64, 64), (64, 64), (64, 64)),
                              ("u16", (32, 128), (32, 128), (32, 256), (32, 128)),
                              ("u16", (32, 128), (32, 128), (32, 256), (32, 127)),
                              ("i8", (32, 128), (32, 128), (32, 256), (32, 127)),
                              ("u8", (32, 128), (32, 128), (32, 256), (32, 127)),
                              ("i32", (32, 128), (32, 128), (32, 256), (32, 127)),
                              ("u32", (32, 128), (32, 128), (32, 256), (32, 127))):
    _ds, _as, _bs = (isz(_k) * s[0] * s[1] for s in (_d0, _a0, _b0))
    B("a2a3", "txor", name3(_k, _d0, _a0, _b0, _v), "TXOR", _k, _d0, _a0, _b0, _v, (0, _ds, _ds + _as, _ds + _as + _bs),
      lambda r, k=_k, a=_a0, b=_b0: (full_range(r, k, list(a)), full_range(r, k, list(b))), XOR)
# tshl / tshr: values randint(-100, 100), counts randint(0, 32) for every dtype, compact
_SHIFT_CASES = [("u16", 64, 64, 64, 64), ("u16", 64, 64, 63, 63), ("u16", 1, 16384, 1, 16384),
                ("u16", 2048, 16, 2048, 16), ("u8", 32, 32, 32, 32), ("u32", 8, 8, 8, 8), ("i8", 32, 32, 32, 32),
                ("i16", 16, 16, 16, 16), ("i32", 8, 8, 8, 8)]


def shift_gen(k, R, C):
    def gen(r):
        x = r.randint(-100, 100, size=R * C).astype(npd(k)).reshape(R, C)
        y = r.randint(0, 32, size=R * C).astype(npd(k)).reshape(R, C)
        return x, y
    return gen


for _d, _call, _op in (("tshl", "TSHL", SHL), ("tshr", "TSHR", SHR)):
    for _i, (_k, _tR, _tC, _vR, _vC) in enumerate(_SHIFT_CASES, 1):
        B("a2a3", _d, f"case{_i}", _call, _k, (_tR, _tC), (_tR, _tC), (_tR, _tC), (_vR, _vC), (0x20000, 0, 0x10000),
          shift_gen(_k, _vR, _vC), _op)

# ---- A5 (tests/npu/a5/src/st/testcase/<op>) -----------------------------------------------
_A5_MIXED = [("f16", (16, 64), (16, 128), (16, 128), (16, 64)), ("f32", (16, 32), (16, 64), (16, 32), (16, 32)),
             ("i16", (32, 128), (32, 128), (32, 256), (32, 128)), ("i32", (16, 32), (16, 64), (16, 32), (16, 32)),
             ("f16", (16, 64), (16, 128), (16, 128), (16, 63)), ("f32", (16, 32), (16, 64), (16, 32), (16, 31)),
             ("i16", (32, 128), (32, 128), (32, 256), (32, 127)), ("i32", (16, 32), (16, 64), (16, 32), (16, 31))]


def sq(k, R, C, v=None):
    return (k, (R, C), (R, C), (R, C), v or (R, C))


def gen_tiles(draw):
    """gen_data.py draws each input with its own tile's shape."""
    return lambda r, a, b: (draw(r, a), draw(r, b))


_A5_TADD = [sq("f32", 64, 64), sq("f32", 64, 128), sq("i32", 64, 64), sq("i64", 4, 16, (4, 15)),
            sq("u64", 4, 16, (4, 15)), sq("i64", 32, 32), sq("i64", 1, 1024), sq("i16", 64, 64), sq("f16", 16, 256)] \
    + _A5_MIXED + [sq("f16", 2, 128, (1, 106))]
for _k, _d0, _a0, _b0, _v in _A5_TADD:
    _nm = name3(_k, _d0, _a0, _b0, _v)
    if _nm in ("case_int64_32x32_32x32_32x32_32x32", "case_int64_1x1024_1x1024_1x1024_1x1024"):
        # gen_data.py: rng = np.random.default_rng(5); integers(-10, 11) for both (reproducible)
        def _g(r, a, b):
            g5 = np.random.default_rng(5)
            return (g5.integers(-10, 11, size=list(a), dtype=np.int64),
                    g5.integers(-10, 11, size=list(b), dtype=np.int64))
    else:
        _g = gen_tiles(lambda r, s, k=_k: r.randint(1, 10, size=list(s)).astype(npd(k)))
    B("a5", "tadd", _nm, "TADD", _k, _d0, _a0, _b0, _v, (0x20000, 0, 0x10000),
      lambda r, g=_g, a=_a0, b=_b0: g(r, a, b), ADD,
      xfail=None)

_A5_STD = [sq("f32", 64, 64), sq("i32", 64, 64), sq("i16", 64, 64), sq("f16", 16, 256)] + _A5_MIXED \
    + [sq("i64", 4, 16), sq("u64", 4, 16)]
for _d, _call, _op in (("tsub", "TSUB", SUB), ("tmul", "TMUL", MUL), ("tmax", "TMAX", MAX), ("tmin", "TMIN", MIN)):
    for _k, _d0, _a0, _b0, _v in _A5_STD:
        _same = _d0 == _a0 == _b0
        # sameTile (main.cpp): one Tile<dR, dC> type, full valid, at 0x0 / 0x4000 / 0x8000; else 0x0 / 0x10000 / 0x20000
        B("a5", _d, name3(_k, _d0, _a0, _b0, _v), _call, _k, _d0, _a0, _b0, _v,
          (0x8000, 0, 0x4000) if _same else (0x20000, 0, 0x10000),
          lambda r, k=_k, a=_a0, b=_b0: (r.randint(1, 10, size=list(a)).astype(npd(k)),
                                         r.randint(1, 10, size=list(b)).astype(npd(k))), _op)


def a5_tdiv_gen(k):
    def gen(r, a, b):
        if k in ("i64", "u64"):
            x = r.randint(1, 1000, size=list(a)).astype(npd(k))
            y = r.randint(1, 20, size=list(b)).astype(npd(k))
            if k == "i64":
                x.flat[:4] = [np.iinfo(np.int64).min, -7, 7, np.iinfo(np.int64).max]
                y.flat[:4] = [-1, 3, -3, 0]
            else:
                x.flat[:3] = [np.iinfo(np.uint64).max, 7, 0]
                y.flat[:3] = [3, 0, np.iinfo(np.uint64).max]
            return x, y
        if k in FLOATS:
            fi = np.finfo(npd(k))
            return (r.uniform(fi.min, fi.max, size=list(a)).astype(npd(k)),
                    r.uniform(fi.min, fi.max, size=list(b)).astype(npd(k)))
        return full_range(r, k, list(a)), full_range(r, k, list(b))
    return gen


def a5_tdiv_golden(k):
    if k not in ("i64", "u64"):
        return errstate(truediv_into(k))

    def golden(x, y):           # gen_data.py: rhs == 0 -> 0, INT64_MIN / -1 -> INT64_MIN, else truncation
        out = np.zeros(x.shape, npd(k))
        for i, j in np.ndindex(x.shape):
            lhs, rhs = int(x[i, j]), int(y[i, j])
            if rhs == 0:
                v = 0
            elif k == "i64" and lhs == np.iinfo(np.int64).min and rhs == -1:
                v = lhs
            else:
                q = abs(lhs) // abs(rhs)
                v = -q if (lhs < 0) != (rhs < 0) else q
            out[i, j] = v
        return out
    return golden


for _k, _d0, _a0, _b0, _v, _hp in [c + (False,) for c in _A5_STD[:-2]] + [
        (*sq("f32", 2, 16), True), (*sq("f16", 2, 32), True), (*sq("i64", 4, 16), False), (*sq("u64", 4, 16), False)]:
    _nm = name3(_k, _d0, _a0, _b0, _v)
    _nm = _nm.replace(f"case_{DT[_k][2]}", f"case_{DT[_k][2]}_hp") if _hp else _nm
    B("a5", "tdiv", _nm, "TDIV", _k, _d0, _a0, _b0, _v, (0x20000, 0, 0x10000),
      lambda r, gg=a5_tdiv_gen(_k), a=_a0, b=_b0: gg(r, a, b), a5_tdiv_golden(_k), hp=_hp,
      eps=(1e-7 if _hp else 0.001) if _k in FLOATS else None,     # vdiv / HIGH_PRECISION: the vendor's ResultCmp
      xfail=None)

# tand / tor / txor: Tile<tR, tC> valid vR x vC at 0x0 / 0x10000 / 0x20000, compact randint(1, 16383)
_A5_BITWISE = [("u16", 64, 64, 64, 64), ("u16", 64, 64, 63, 63), ("u16", 1, 16384, 1, 16384),
               ("u16", 2048, 16, 2048, 16), ("u8", 32, 32, 32, 32), ("u32", 8, 8, 8, 8), ("i8", 32, 32, 32, 32),
               ("i16", 16, 16, 16, 16), ("i32", 8, 8, 8, 8)]
# tand case10: int16 data on half tiles (LaunchTAnd2); case11: int32 data on float tiles
for _d, _call, _op, _cases in (("tand", "TAND", AND, _A5_BITWISE + [("i16>f16", 16, 16, 16, 16),
                                                                    ("i32>f32", 8, 8, 8, 8)]),
                               ("tor", "TOR", OR, _A5_BITWISE), ("txor", "TXOR", XOR, _A5_BITWISE)):
    for _i, (_k, _tR, _tC, _vR, _vC) in enumerate(_cases, 1):
        _g, _, _kk = _k.partition(">")
        # txor_kernel.cpp passes dstTile as tmp
        B("a5", _d, f"case{_i}", _call, _kk or _g, (_tR, _tC), (_tR, _tC), (_tR, _tC), (_vR, _vC),
          (0x20000, 0, 0x10000) + ((0x20000,) if _call == "TXOR" else ()),
          gen_pair(lambda r, g=_g, R=_vR, C=_vC: r.randint(1, 16383, size=R * C).astype(npd(g)).reshape(R, C)),
          _op, g=_g)


def a5_shift_gen(k, R, C, left):
    def gen(r):
        x = r.randint(-100, 100, size=R * C).astype(npd(k))
        y = r.randint(0, 32, size=R * C).astype(npd(k))
        if k in ("i64", "u64"):
            if left:
                x[:4] = [1, 1, 1, np.iinfo(npd(k)).max]
            else:
                edge = np.iinfo(npd(k)).min if k == "i64" else np.iinfo(npd(k)).max
                x[:4] = [edge, edge, edge, 1]
            y[:4] = [0, 63, 64, 65]
        return x.reshape(R, C), y.reshape(R, C)
    return gen


for _d, _call, _op, _tail in (("tshl", "TSHL", SHL, [("i64", 4, 16, 4, 15, "case_int64_4x16_4x15"),
                                                      ("u64", 4, 16, 4, 15, "case_uint64_4x16_4x15")]),
                              ("tshr", "TSHR", SHR, [("i64", 4, 16, 4, 16, "case_int64_4x16"),
                                                     ("u64", 4, 16, 4, 16, "case_uint64_4x16")])):
    for _i, (_k, _tR, _tC, _vR, _vC, *_nm) in enumerate([c + (None,) for c in _SHIFT_CASES] + _tail, 1):
        _gold = (lambda x, y, op=_op: op(x, y & np.asarray(63, x.dtype))) if _k in ("i64", "u64") else _op
        B("a5", _d, _nm[0] or f"case{_i}", _call, _k, (_tR, _tC), (_tR, _tC), (_tR, _tC), (_vR, _vC),
          (0x20000, 0, 0x10000), a5_shift_gen(_k, _vR, _vC, _call == "TSHL"), _gold)


@pytest.mark.parametrize("c", params(BINARY))
def test_binary(c):
    vr, vc = c["valid"]
    with np.errstate(all="ignore"):
        x, y = c["gen"](rng(c["target"], c["dir"], c["name"]))
    x, y = x[:vr, :vc], y[:vr, :vc]                 # TLOAD moves the valid region only
    with np.errstate(all="ignore"):
        golden = np.asarray(c["golden"](x, y), dtype=x.dtype)
    k = c["k"]
    with pto.Core(c["target"], "numpy") as core:
        # (equal template arguments make one C++ tile type, as ptogpu's Tile[...] classes are one class)
        d = tile(k, *c["dst"], vr, vc, static=c["static"])
        a = tile(k, *c["s0"], vr, vc, static=c["static"])
        b = tile(k, *c["s1"], vr, vc, static=c["static"])
        at(a, c["addr"][1]), at(b, c["addr"][2]), at(d, c["addr"][0])
        put(core, a, x)
        put(core, b, y)
        call = getattr(pto, c["call"])
        if c["call"] == "TXOR":
            tmp = d if c["addr"][3] == c["addr"][0] else at(tile(k, *c["dst"], vr, vc), c["addr"][3])
            call(d, a, b, tmp)
        elif c["hp"]:
            call[HP](d, a, b)
        else:
            call(d, a, b)
        got = get(core, d, x.dtype)
    check(got, golden, c["eps"], f"{c['target']} {c['dir']} {c['name']}")


# ============================================================================================
# unary: TNOT TNEG TABS
# case: target, dir, name, call, k, g, src tile, dst tile, valid, addr (dst, src), gen(r) -> x, eps

UNARY = []


def U(target, d, name, call, k, src, dst, valid, addr, gen, *, g=None, eps=None):
    UNARY.append(dict(target=target, dir=d, name=name, call=call, k=k, g=g or k, src=src, dst=dst, valid=valid,
                      addr=addr, gen=gen, eps=eps))


# CPU tnot: main.cpp <T, sTR, sTC, dTR, dTC, gR, gC>; gen_data.py writes int32/int16 for the u32/u16 cases
for _i, (_k, _g, _sR, _sC, _dR, _dC, _gR, _gC) in enumerate(
        [("i32", "i32", 64, 64, 64, 64, 60, 55), ("i16", "i16", 64, 64, 64, 64, 60, 55),
         ("i32", "i32", 64, 64, 96, 96, 64, 60), ("i16", "i16", 64, 64, 96, 96, 64, 60),
         ("u32", "i32", 64, 64, 64, 64, 60, 55), ("u16", "i16", 64, 64, 64, 64, 60, 55),
         ("u32", "i32", 96, 96, 96, 96, 64, 60), ("u16", "i16", 96, 96, 64, 64, 64, 60)]):
    U("cpu", "tnot", f"case_{_i}", "TNOT", _k, (_sR, _sC), (_dR, _dC), (_gR, _gC), (_sR * _sC * isz(_k), 0),
      lambda r, g=_g, R=_gR, C=_gC: r.randint(1, 10, size=[R, C]).astype(npd(g)), g=_g)
# CPU tneg (src 0, dst n) and tabs (src 0x0, dst 0x8000)
for _k, _R, _C in CPU_ARITH:
    U("cpu", "tneg", name3(_k, (_R, _C), (_R, _C), (_R, _C)), "TNEG", _k, (_R, _C), (_R, _C), (_R, _C),
      (_R * _C * isz(_k), 0), lambda r, k=_k, R=_R, C=_C: ne(r.randint(1, 10, size=[R, C]), k))
for _k, _R, _C in [("f32", 64, 64), ("i32", 64, 64), ("i16", 64, 64), ("i8", 64, 64), ("f16", 16, 256),
                   ("bf16", 16, 256)]:
    U("cpu", "tabs", name3(_k, (_R, _C), (_R, _C), (_R, _C)), "TABS", _k, (_R, _C), (_R, _C), (_R, _C),
      (0x8000, 0), lambda r, k=_k, R=_R, C=_C: ne(r.randint(-10, 10, size=[R, C]), k))
# A2/A3 and A5 tnot: Tile<tR, tC> valid gR x gC, src 0x0, dst 0x4000
for _k, _gR, _gC, _tR, _tC in (("i16", 64, 64, 64, 64), ("u16", 60, 60, 64, 64), ("i8", 64, 64, 64, 64),
                               ("u8", 60, 60, 64, 64), ("i32", 64, 64, 64, 64), ("u32", 60, 60, 64, 64)):
    U("a2a3", "tnot", name3(_k, (_gR, _gC), (_tR, _tC), (_gR, _gC)), "TNOT", _k, (_tR, _tC), (_tR, _tC), (_gR, _gC),
      (0x4000, 0), lambda r, k=_k, R=_gR, C=_gC: full_range(r, k, [R, C]))


def a5_not_gen(k, R, C):
    lo, hi = {1: (-100, 100), 2: (-30_000, 30_000), 4: (-1_000_000, 1_000_000)}[isz(k)]
    return lambda r: r.randint(lo, hi, size=[R, C]).astype(npd(k))


for _k, _gR, _gC, _tR, _tC in (("i8", 64, 64, 64, 64), ("u8", 60, 60, 64, 64), ("i16", 64, 64, 64, 64),
                               ("u16", 60, 60, 64, 64), ("i32", 64, 64, 64, 64), ("u32", 60, 60, 64, 64)):
    U("a5", "tnot", name3(_k, (_gR, _gC), (_tR, _tC), (_gR, _gC)), "TNOT", _k, (_tR, _tC), (_tR, _tC), (_gR, _gC),
      (0x4000, 0), a5_not_gen(_k, _gR, _gC))
# A2/A3 and A5 tneg / tabs: np.random.random(...).astype(T) (integer inputs: all 0), src 0x0,
# dst 0x20000 (tabs in place: 0x0). main.cpp compares with ResultCmp, eps float 1e-4, half 1e-3, integers 0:
# random() draws half subnormals, which the NPUs may flush (FTZ), so floats are compared as the vendor does
_NEG_EPS = {"f32": 1e-4, "f16": 1e-3}
for _t, _cases in (("a2a3", [("f32", 64, 64), ("i32", 32, 32), ("f16", 32, 64), ("i16", 64, 16)]),
                   ("a5", [("f32", 64, 64), ("i32", 32, 32), ("f16", 32, 64), ("i16", 64, 16), ("i16", 1, 16)])):
    for _k, _R, _C in _cases:
        U(_t, "tneg", name3(_k, (_R, _C), (_R, _C)), "TNEG", _k, (_R, _C), (_R, _C), (_R, _C), (0x20000, 0),
          lambda r, k=_k, R=_R, C=_C: r.random(size=(R, C)).astype(npd(k)), eps=_NEG_EPS.get(_k))
for _t, _keys in (("a2a3", ("f32", "f16")), ("a5", ("f32", "f16", "i8", "i16", "i32"))):
    for _k in _keys:
        for _inplace in (True, False):
            _nm = name3(_k, (64, 64), (64, 64), (64, 64)) + (
                f"_inPlace_{_inplace}" if _t == "a2a3" else ("_InPlace" if _inplace else ""))
            U(_t, "tabs", _nm, "TABS", _k, (64, 64), (64, 64), (64, 64), (0x0 if _inplace else 0x20000, 0),
              lambda r, k=_k: r.random(size=(64, 64)).astype(npd(k)), eps=_NEG_EPS.get(_k))

_UNARY_GOLDEN = {"TNOT": lambda x: ~x, "TNEG": lambda x: -x, "TABS": np.abs}


@pytest.mark.parametrize("c", params(UNARY))
def test_unary(c):
    vr, vc = c["valid"]
    with np.errstate(all="ignore"):
        x = c["gen"](rng(c["target"], c["dir"], c["name"]))[:vr, :vc]
        golden = _UNARY_GOLDEN[c["call"]](x)
        if c["k"] == "bf16":
            golden = ne(_UNARY_GOLDEN[c["call"]](f32(x)), "bf16")     # NumExt: computed on float32, rounded
    k = c["k"]
    with pto.Core(c["target"], "numpy") as core:
        s, d = tile(k, *c["src"], vr, vc), tile(k, *c["dst"], vr, vc)
        at(s, c["addr"][1]), at(d, c["addr"][0])
        put(core, s, x)
        getattr(pto, c["call"])(d, s)
        got = get(core, d, x.dtype)
    check(got, golden, c["eps"], f"{c['target']} {c['dir']} {c['name']}")


# ============================================================================================
# tile-scalar: TADDS TSUBS TMULS TDIVS TMAXS TMINS TANDS TORS TXORS TSHLS TSHRS
# case: target, dir, name, call, k, dst tile, src tile, valid, addr (dst, src[, tmp]),
# gen(r) -> (x, s) with s the scalar the kernel receives (a numpy scalar of the data dtype),
# golden(x, s), rdiv (TDIVS scalar / tile), static, eps, hp, rows (rows of dst compared)

SCALAR = []


def S(target, d, name, call, k, dst, src, valid, addr, gen, golden, *, static=False, eps=None, hp=False, rdiv=False,
      rows=None, xfail=None):
    SCALAR.append(dict(target=target, dir=d, name=name, call=call, k=k, dst=dst, src=src, valid=valid, addr=addr,
                       gen=gen, golden=golden, static=static, eps=eps, hp=hp, rdiv=rdiv, rows=rows, xfail=xfail))


def via_float(s, k):
    """The host reads ``divider.bin`` as a float and the kernel converts it to T: ``(T)(float)s``."""
    f = np.float32(s)
    if k in FLOATS:
        return np.asarray(f).astype(npd(k))[()]
    i = iinfo(k)
    assert i.min <= float(f) <= i.max, "out-of-range float -> int conversion (UB); pick another seed"
    return npd(k)(int(f))


def uniform_gen(lo, hi, k, shape):
    """``input = uniform(lo, hi, shape).astype(T); scalar = uniform(lo, hi, (1, 1)).astype(T)``, the scalar passed
    through the host's float."""
    def gen(r):
        x = r.uniform(lo, hi, size=shape).astype(npd(k))
        s = r.uniform(lo, hi, size=(1, 1)).astype(npd(k))[0, 0]
        return x, via_float(s, k)
    return gen


def randint_gen(lo, hi, k, shape, s_size=(1, 1)):
    def gen(r):
        x = ne(r.randint(lo, hi, size=shape), k)
        s = ne(r.randint(lo, hi, size=s_size), k).reshape(-1)[0]
        return x, s
    return gen


def sop(op, k=None):
    if k == "bf16":
        return lambda x, s: ne(op(f32(x), np.float32(s)), "bf16")
    return lambda x, s: op(x, np.asarray(s, x.dtype))


# ---- CPU ----------------------------------------------------------------------------------
# tadds: runTAddS<T, vR, vC, iR, iC, oR, oC>: src Tile<iR, iC> at 0x0, dst Tile<oR, oC> at 0x28000
for _i, (_k, _vR, _vC, _iR, _iC, _oR, _oC) in enumerate(
        [("f32", 32, 64, 32, 64, 32, 64), ("f16", 63, 64, 63, 64, 63, 64), ("i32", 31, 128, 31, 128, 31, 128),
         ("i16", 15, 192, 15, 192, 15, 192), ("f32", 7, 448, 7, 448, 7, 448), ("f32", 256, 16, 256, 16, 256, 16),
         ("f32", 16, 16, 32, 32, 64, 64)], 1):
    S("cpu", "tadds", f"case{_i}", "TADDS", _k, (_oR, _oC), (_iR, _iC), (_vR, _vC), (0x28000, 0),
      uniform_gen(-8, 8, _k, (_iR, _iC)), sop(ADD))
# tmuls: runTMulS<T, row, row, col, col>: both tiles Tile<row, col>, src 0x0, dst 0x28000
for _i, (_k, _R, _C) in enumerate([("f32", 32, 64), ("f16", 63, 64), ("i32", 31, 128), ("i16", 15, 192),
                                   ("f32", 7, 448), ("f32", 256, 16), ("u8", 32, 64), ("u16", 32, 64),
                                   ("u32", 32, 64)], 1):
    _lo = 0 if _k in ("u8", "u16", "u32") else -8
    S("cpu", "tmuls", f"case{_i}", "TMULS", _k, (_R, _C), (_R, _C), (_R, _C), (0x28000, 0),
      uniform_gen(_lo, 4 if _k == "u8" else 8, _k, (_R, _C)), sop(MUL))
# tdivs: case1-4 src / s, case5-8 s / src, uniform(1, 8), src 0x0, dst 0x28000
for _i, (_k, _R, _C) in enumerate([("f32", 32, 64), ("f16", 63, 64), ("i32", 31, 128), ("i16", 15, 192)] * 2, 1):
    _rd = _i > 4
    _div = truediv_into(_k)
    S("cpu", "tdivs", f"case{_i}", "TDIVS", _k, (_R, _C), (_R, _C), (_R, _C), (0x28000, 0),
      uniform_gen(1, 8, _k, (_R, _C)),
      (lambda x, s, dv=_div: dv(np.asarray(s, x.dtype), x)) if _rd else
      (lambda x, s, dv=_div: dv(x, np.asarray(s, x.dtype))),
      rdiv=_rd)
# tsubs / tmaxs: randint(1, 10) input and scalar (native), src 0, dst n
for _d, _call, _op in (("tsubs", "TSUBS", SUB), ("tmaxs", "TMAXS", MAX)):
    for _k, _R, _C in CPU_ARITH:
        S("cpu", _d, name3(_k, (_R, _C), (_R, _C), (_R, _C)), _call, _k, (_R, _C), (_R, _C), (_R, _C),
          (_R * _C * isz(_k), 0), randint_gen(1, 10, _k, [_R, _C]), sop(_op, _k))


def cpu_tmins_gen(k, R, C):
    def gen(r):
        if k in ("i16", "i32"):
            return r.randint(1, 10, size=[R, C]).astype(npd(k)), r.randint(1, 10, size=[1]).astype(npd(k))[0]
        return (ne(r.uniform(-13.033, 101.011, size=[R, C]), k), ne(r.uniform(-13.033, 101.011, size=[1]), k)[0])
    return gen


# tmins: src 0x400, dst 0x8400; eps 1e-4 (np.minimum is exact)
for _k, _R, _C in [("f32", 64, 64), ("i32", 64, 64), ("i16", 64, 64), ("f16", 64, 64), ("bf16", 64, 64),
                   ("f16", 16, 256), ("bf16", 16, 256)]:
    S("cpu", "tmins", name3(_k, (_R, _C), (_R, _C), (_R, _C)), "TMINS", _k, (_R, _C), (_R, _C), (_R, _C),
      (0x8400, 0x400), cpu_tmins_gen(_k, _R, _C), sop(MIN, _k))
# tands / tors / txors: randint(1, 10) input and scalar, src 0, dst n (txors tmp 2n)
for _d, _call, _op, _cases in (
        ("tands", "TANDS", AND, [("i16", 64, 64), ("i32", 64, 64), ("i32", 16, 256), ("i32", 77, 96), ("i32", 1, 32),
                                 ("u32", 32, 32), ("u32", 8, 64), ("u32", 128, 128), ("u32", 16, 32)]),
        ("tors", "TORS", OR, [("i16", 64, 64), ("i32", 64, 64), ("i32", 16, 256), ("i32", 77, 96), ("i32", 8, 32),
                              ("u32", 32, 32), ("u32", 16, 64), ("u32", 12, 128), ("u32", 64, 64)]),
        ("txors", "TXORS", XOR, [("i32", 64, 64), ("i16", 64, 64)]),
        ("tshls", "TSHLS", SHL, [("i16", 64, 64), ("i32", 16, 256)]),
        ("tshrs", "TSHRS", SHR, [("i16", 64, 64), ("i32", 16, 256)])):
    for _k, _R, _C in _cases:
        _n = _R * _C * isz(_k)
        S("cpu", _d, name3(_k, (_R, _C), (_R, _C), (_R, _C)), _call, _k, (_R, _C), (_R, _C), (_R, _C),
          (_n, 0) + ((2 * _n,) if _call == "TXORS" else ()), randint_gen(1, 10, _k, [_R, _C]), sop(_op))

# ---- A2/A3 --------------------------------------------------------------------------------
# tadds / tsubs / tmuls / tmaxs: <T, dR, dC, sR, vR, sC, vC>, src Tile<sR, sC> at 0x0 valid = src,
# dst Tile<dR, dC> at 0x28000; the scalar goes through the host's float
_A2_SCALAR = [("f32", 32, 64, 32, 64), ("f16", 63, 64, 63, 64), ("i32", 31, 128, 31, 128), ("i16", 15, 192, 15, 192),
              ("f32", 7, 448, 7, 448), ("f32", 256, 16, 256, 16), ("f32", 32, 128, 32, 64), ("f16", 63, 128, 63, 64),
              ("i32", 31, 256, 31, 128), ("i16", 15, 192, 15, 192), ("f32", 7, 512, 7, 448), ("f32", 256, 32, 256, 16)]
for _d, _call, _lo, _gold in (("tadds", "TADDS", 8, sop(ADD)), ("tsubs", "TSUBS", 80, sop(SUB)),
                              ("tmuls", "TMULS", 8, sop(MUL)),
                              ("tmaxs", "TMAXS", 8000, lambda x, s: np.where(x > s, x, np.asarray(s, x.dtype)))):
    for _i, (_k, _dR, _dC, _sR, _sC) in enumerate(_A2_SCALAR, 1):
        S("a2a3", _d, f"case{_i}", _call, _k, (_dR, _dC), (_sR, _sC), (_sR, _sC), (0x28000, 0),
          uniform_gen(-_lo, _lo, _k, (_sR, _sC)), _gold)
# tdivs: both tiles Tile<sR, sC> (tdivs_kernel.cpp declares dst with the src shape), src 0x0, dst 0x28000;
# input uniform(1, 16383), scalar uniform(1, 10); golden '/' for float, '//' for int; case10-18: s / src.
# Integers: the scalar unit's C division, eps 0 (exact); floats: vdiv, eps 1e-3
_A2_TDIVS = [("f32", 32, 64, 32, 64), ("f16", 63, 64, 63, 64), ("i32", 31, 128, 31, 128), ("i16", 15, 192, 15, 192),
             ("f32", 32, 128, 32, 64), ("f16", 63, 128, 63, 64), ("i16", 15, 192, 15, 192), ("f32", 7, 512, 7, 448),
             ("f32", 256, 32, 256, 16)]
for _i, (_k, _dR, _dC, _sR, _sC) in enumerate(_A2_TDIVS * 2, 1):
    _rd = _i >= 10
    _fl = _k in FLOATS
    _op = (lambda a, b: a / b) if _fl else (lambda a, b: a // b)
    S("a2a3", "tdivs", f"case{_i}", "TDIVS", _k, (_sR, _sC), (_sR, _sC), (_sR, _sC), (0x28000, 0),
      lambda r, k=_k, R=_sR, C=_sC: (r.uniform(1, 16383, size=(R, C)).astype(npd(k)),
                                     via_float(r.uniform(1, 10, size=(1, 1)).astype(npd(k))[0, 0], k)),
      (lambda x, s, op=_op: op(np.asarray(s, x.dtype), x)) if _rd else
      (lambda x, s, op=_op: op(x, np.asarray(s, x.dtype))),
      rdiv=_rd, eps=0.001 if _fl else None)
# tands / tors / txors: <T, dR, dC, sR, sC, vR, vC>, full-range input and (native) scalar;
# tands/tors: src 0x0, dst 0x20000; txors: dst 0x0, src dstSize, tmp dstSize + srcSize
_A2_BITS = [(k, *s) for k in ("i16", "u16", "i32", "u32")
            for s in ((64, 64, 64, 64, 64, 64), (32, 128, 32, 128, 32, 128), (32, 112, 32, 128, 32, 111))]
for _d, _call, _op in (("tands", "TANDS", AND), ("tors", "TORS", OR), ("txors", "TXORS", XOR)):
    for _k, _dR, _dC, _sR, _sC, _vR, _vC in _A2_BITS:
        _ds, _ss = _dR * _dC * isz(_k), _sR * _sC * isz(_k)
        S("a2a3", _d, name3(_k, (_dR, _dC), (_sR, _sC), (_vR, _vC)), _call, _k, (_dR, _dC), (_sR, _sC), (_vR, _vC),
          (0, _ds, _ds + _ss) if _call == "TXORS" else (0x20000, 0),
          lambda r, k=_k, R=_sR, C=_sC: (full_range(r, k, [R, C]), full_range(r, k, [1, 1])[0, 0]), sop(_op))
# tshls / tshrs: int16 / uint16 only, scalar randint(1, 7), src 0x0, dst 0x20000
for _d, _call, _op in (("tshls", "TSHLS", SHL), ("tshrs", "TSHRS", SHR)):
    for _k, _dR, _dC, _sR, _sC, _vR, _vC in [c for c in _A2_BITS if c[0] in ("i16", "u16")]:
        S("a2a3", _d, name3(_k, (_dR, _dC), (_sR, _sC), (_vR, _vC)), _call, _k, (_dR, _dC), (_sR, _sC), (_vR, _vC),
          (0x20000, 0),
          lambda r, k=_k, R=_sR, C=_sC: (full_range(r, k, [R, C]), r.randint(1, 7, size=(1, 1)).astype(npd(k))[0, 0]),
          sop(_op))

# ---- A5 -----------------------------------------------------------------------------------
# a5 tadds / tsubs: gen_data.py's golden uses the full-range int32/uint32 scalar itself, but divider.bin is written
# as a float and the kernel gets (T)float (ScalarT = float in main.cpp): the golden here uses that value


def a5_full_gen(k, shape, s64, lo64=1):
    """a5 tadds/tsubs: full-range uniform input and scalar (scalar through the host's float); int64/uint64:
    randint(lo64, 1000) input, native scalar s64."""
    def gen(r):
        if k in ("i64", "u64"):
            return r.randint(lo64, 1000, size=shape).astype(npd(k)), npd(k)(s64)
        info = np.finfo(npd(k)) if k in FLOATS else iinfo(k)
        x = r.uniform(float(info.min), float(info.max), size=shape).astype(npd(k))
        s = r.uniform(float(info.min), float(info.max), size=(1, 1)).astype(npd(k))[0, 0]
        return x, via_float(s, k)
    return gen


_A5_ADDS = [("f32", 32, 128, 32, 64), ("f16", 63, 128, 63, 64), ("i32", 31, 256, 31, 128), ("i16", 15, 192, 15, 192),
            ("f32", 7, 512, 7, 448), ("f32", 256, 32, 256, 16), ("u32", 256, 32, 256, 16), ("u16", 256, 32, 256, 16),
            ("i8", 256, 64, 256, 32), ("u8", 256, 64, 256, 32), ("u8", 1, 64, 1, 32)]
for _d, _call, _op, _lo64 in (("tadds", "TADDS", ADD, 1), ("tsubs", "TSUBS", SUB, 20)):
    for _i, (_k, _dR, _dC, _sR, _sC) in enumerate(_A5_ADDS, 1):
        _rows = None
        if _d == "tadds" and _i == 11:
            # main.cpp case11 runs kernel 10: Tile<256, 64> / Tile<256, 32>, valid 256 x 32, on the 1x32 input;
            # rows 1.. come from whatever follows in GM; the host compares its 1x64 buffer: row 0
            _dR, _dC, _sR, _sC, _rows = 256, 64, 256, 32, 1
        S("a5", _d, f"case{_i}", _call, _k, (_dR, _dC), (_sR, _sC), (_sR, _sC), (0x28000, 0),
          a5_full_gen(_k, (_sR, _sC), 17, _lo64), errstate(sop(_op)), rows=_rows)
    for _k in ("i64", "u64"):
        S("a5", _d, f"case_{DT[_k][2]}_4x16", _call, _k, (4, 16), (4, 16), (4, 16), (0x28000, 0),
          a5_full_gen(_k, (4, 16), 17, _lo64), sop(_op))
# tmuls: uniform(-8, 8) (scalar via float), int64/uint64 randint(1, 1000) * 7; src 0x0, dst 0x26000
for _i, (_k, _dR, _dC, _sR, _sC) in enumerate(_A5_ADDS[:6] + [("f32", 1, 32, 1, 16)], 1):
    S("a5", "tmuls", f"case{_i}", "TMULS", _k, (_dR, _dC), (_sR, _sC), (_sR, _sC), (0x26000, 0),
      uniform_gen(-8, 8, _k, (_sR, _sC)), sop(MUL))
for _k in ("i64", "u64"):
    S("a5", "tmuls", f"case_{DT[_k][2]}_4x16", "TMULS", _k, (4, 16), (4, 16), (4, 16), (0x26000, 0),
      lambda r, k=_k: (r.randint(1, 1000, size=(4, 16)).astype(npd(k)), npd(k)(7)), sop(MUL))


def a5_tdivs_gen(k, shape):
    def gen(r):
        if k in ("i64", "u64"):
            return r.randint(1, 1000, size=shape).astype(npd(k)), npd(k)(7)
        if k in FLOATS:
            fi = np.finfo(npd(k))
            return (r.uniform(fi.min, fi.max, size=shape).astype(npd(k)),
                    r.uniform(fi.min, fi.max, size=(1, 1)).astype(npd(k))[0, 0])
        return full_range(r, k, shape), full_range(r, k, (1, 1))[0, 0]      # divider.bin: native T
    return gen


# tdivs (main.cpp runs case1, 2, 4-7, HP1, HP2, int64, uint64; no case3): src 0x0, dst 0x26000;
# floats: vdiv, ResultCmp eps 1e-3 (HIGH_PRECISION: 1e-7); int16: scalar unit, exact; 64-bit: exact
for _nm, _k, _dR, _dC, _sR, _sC, _hp in (
        ("case1", "f32", 32, 128, 32, 64, False), ("case2", "f16", 63, 128, 63, 64, False),
        ("case4", "i16", 15, 192, 15, 192, False), ("case5", "f32", 7, 512, 7, 448, False),
        ("case6", "f32", 256, 32, 256, 16, False), ("case7", "f32", 1, 32, 1, 16, False),
        ("caseHP1", "f32", 2, 16, 2, 16, True), ("caseHP2", "f16", 2, 32, 2, 32, True),
        ("case_int64_4x16", "i64", 4, 16, 4, 16, False), ("case_uint64_4x16", "u64", 4, 16, 4, 16, False)):
    _gold = (lambda x, s: x // np.asarray(s, x.dtype)) if _k in ("i64", "u64") else errstate(
        lambda x, s, k=_k: truediv_into(k)(x, np.asarray(s, x.dtype)))
    S("a5", "tdivs", _nm, "TDIVS", _k, (_dR, _dC), (_sR, _sC), (_sR, _sC), (0x26000, 0), a5_tdivs_gen(_k, (_sR, _sC)),
      _gold, hp=_hp, eps=(1e-7 if _hp else 0.001) if _k in FLOATS else None)


def a5_minmax_gen(k, shape):
    def gen(r):
        if k in FLOATS:
            return (r.uniform(-13.013, 130.013, size=shape).astype(npd(k)),
                    r.uniform(-13.013, 130.013, size=[1]).astype(npd(k))[0])
        return r.randint(1, 100, size=shape).astype(npd(k)), npd(k)(50)
    return gen


# tmaxs / tmins: static valid shapes Tile<..., vR, vC>, src 0x0, dst 0x8000; eps 1e-4 (exact formula)
for _d, _call, _op in (("tmaxs", "TMAXS", MAX), ("tmins", "TMINS", MIN)):
    for _k, _dR, _dC, _sR, _sC, _vR, _vC in (
            ("f32", 64, 64, 32, 32, 32, 32), ("f32", 128, 128, 64, 64, 64, 64), ("f32", 60, 128, 64, 64, 60, 60),
            ("f32", 16, 200, 20, 512, 16, 200), ("f32", 1, 3600, 2, 4096, 1, 3600), ("i32", 32, 32, 32, 32, 32, 32),
            ("u32", 32, 32, 32, 32, 32, 32), ("i16", 32, 128, 32, 128, 32, 128), ("u16", 32, 128, 32, 128, 32, 128),
            ("i8", 32, 128, 32, 128, 32, 128), ("u8", 32, 128, 32, 128, 32, 128), ("f16", 16, 256, 20, 224, 16, 200),
            ("f16", 1, 256, 1, 224, 1, 200), ("i64", 4, 16, 4, 16, 4, 16), ("u64", 4, 16, 4, 16, 4, 16)):
        S("a5", _d, name3(_k, (_dR, _dC), (_sR, _sC), (_vR, _vC)), _call, _k, (_dR, _dC), (_sR, _sC), (_vR, _vC),
          (0x8000, 0), a5_minmax_gen(_k, (_sR, _sC)), sop(_op), static=True)
# tands / tors / txors: Tile<tR, tC> valid vR x vC, randint(1, 16383).astype(T) input and native scalar,
# src 0x0, dst 0x20000 (txors passes dstTile as tmp)
for _d, _call, _op in (("tands", "TANDS", AND), ("tors", "TORS", OR), ("txors", "TXORS", XOR)):
    for _i, (_k, _tR, _tC, _vR, _vC) in enumerate(_A5_BITWISE + [("i32", 1, 8, 1, 8)], 1):
        S("a5", _d, f"case{_i}", _call, _k, (_tR, _tC), (_tR, _tC), (_vR, _vC),
          (0x20000, 0) + ((0x20000,) if _call == "TXORS" else ()),
          lambda r, k=_k, R=_vR, C=_vC: (r.randint(1, 16383, size=(R, C)).astype(npd(k)),
                                         r.randint(1, 16383, size=(1, 1)).astype(npd(k))[0, 0]), sop(_op))


def a5_shifts_gen(k, shape):
    def gen(r):
        if k == "i64":
            x = r.randint(-1000000, 1000000, size=shape).astype(np.int64)
        elif k == "u64":
            x = r.randint(0, 2000000, size=shape).astype(np.uint64)
        else:
            x = full_range(r, k, shape)
        return x, r.randint(1, 7, size=(1, 1)).astype(npd(k))[0, 0]
    return gen


# tshls / tshrs: src 0x0, dst 0x20000
for _d, _call, _op in (("tshls", "TSHLS", SHL), ("tshrs", "TSHRS", SHR)):
    for _k, _dR, _dC, _sR, _sC, _vR, _vC in [c for c in _A2_BITS if c[0] in ("i16", "u16")][:3] + [
            c for c in _A2_BITS if c[0] == "u16"] + [("u16", 1, 112, 1, 128, 1, 111), ("i64", 4, 16, 4, 16, 4, 16),
                                                     ("u64", 4, 16, 4, 16, 4, 16)]:
        S("a5", _d, name3(_k, (_dR, _dC), (_sR, _sC), (_vR, _vC)), _call, _k, (_dR, _dC), (_sR, _sC), (_vR, _vC),
          (0x20000, 0), a5_shifts_gen(_k, (_sR, _sC)), sop(_op))


@pytest.mark.parametrize("c", params(SCALAR))
def test_scalar(c):
    vr, vc = c["valid"]
    with np.errstate(all="ignore"):
        x, s = c["gen"](rng(c["target"], c["dir"], c["name"]))
    x = x[:vr, :vc]
    rows = c["rows"] or vr
    if c["rows"]:            # A5 TADDS case11: only row 0 holds the host's data, the rest is what follows in GM
        x = x.copy()
        x[1:] = rng(c["target"], c["dir"], c["name"], "gm").randint(0, 256, size=x[1:].shape).astype(x.dtype)
    with np.errstate(all="ignore"):
        golden = np.asarray(c["golden"](x, s), dtype=x.dtype)[:rows]
    k = c["k"]
    sv = float(s) if k in FLOATS else int(s)
    with pto.Core(c["target"], "numpy") as core:
        src = tile(k, *c["src"], vr, vc, static=c["static"])
        dst = tile(k, *c["dst"], vr, vc, static=c["static"])
        at(src, c["addr"][1]), at(dst, c["addr"][0])
        put(core, src, x)
        call = getattr(pto, c["call"])
        if c["call"] == "TXORS":
            tmp = dst if c["addr"][2] == c["addr"][0] else at(tile(k, *c["dst"], vr, vc), c["addr"][2])
            call(dst, src, sv, tmp)
        elif c["rdiv"]:
            call(dst, sv, src)
        elif c["hp"]:
            call[HP](dst, src, sv)
        else:
            call(dst, src, sv)
        got = get(core, dst, x.dtype)[:rows]
    check(got, golden, c["eps"], f"{c['target']} {c['dir']} {c['name']}")


# ============================================================================================
# TEXPANDS: dst only; the host compares the whole GM tensor (= the valid region) with the scalar

EXPANDS = []


def E(target, name, k, tile_shape, valid, addr, scalar_gen, *, colmajor=False):
    xf = None
    EXPANDS.append(dict(target=target, dir="texpands", name=name, k=k, tile=tile_shape, valid=valid, addr=addr,
                        gen=scalar_gen, colmajor=colmajor, xfail=xf))


def int32_via_float(draw):
    """CPU / A2A3: scalar.bin is a float, the kernel converts it: (int32_t)(float)M; gen_data.py's golden is M."""
    def gen(r):
        m = draw(r)
        return via_float(m, "i32"), m
    return gen


_TEX = [("f32", 64, 64, 64, 64, 64, 64, "NULL"), ("i32", 64, 64, 64, 64, 64, 64, "NULL"),
        ("i16", 64, 64, 64, 64, 64, 64, "NULL"), ("f16", 64, 64, 64, 64, 64, 64, "NULL"),
        ("f32", 60, 60, 64, 64, 60, 60, "MAX"), ("i32", 60, 60, 64, 64, 60, 60, "MAX"),
        ("f16", 1, 3600, 2, 4096, 1, 3600, "MAX"), ("i16", 16, 200, 20, 512, 16, 200, "MAX")]


def tex_name(k, gR, gC, tR, tC, vR, vC, pad, a5=False):
    nm = DT[k][2] if not (a5 and k == "bf16") else "bfloat16"
    return f"case_{nm}_{gR}x{gC}_{tR}x{tC}_{vR}x{vC}_PAD_VALUE_{pad}"


def cpu_tex_draw(k):
    if k == "i16":
        return lambda r: r.randint(-30_000, 30_000, size=[1, 1]).astype(np.int16)[0, 0]
    if k == "i32":
        return lambda r: r.randint(-2_000_000_000, 2_000_000_000, size=[1, 1]).astype(np.int32)[0, 0]
    return lambda r: ne(r.uniform(-8, 8, size=[1, 1]), k)[0, 0]


# CPU: row-major Tile<tR, tC, RowMajor, -1, -1, NoneBox, 512, pad> at 0x400; scalar via float
for _k, _gR, _gC, _tR, _tC, _vR, _vC, _p in _TEX + [("bf16", 64, 64, 64, 64, 64, 64, "NULL"),
                                                    ("bf16", 1, 3600, 2, 4096, 1, 3600, "MAX")]:
    _draw = cpu_tex_draw(_k)
    E("cpu", tex_name(_k, _gR, _gC, _tR, _tC, _vR, _vC, _p), _k, (_tR, _tC), (_vR, _vC), 0x400,
      int32_via_float(_draw) if _k == "i32" else (lambda r, dr=_draw: (dr(r), None)))


def a2_tex_draw(k):
    """a2a3: uniform(min, max).astype(T) for every dtype, written as a float, converted back by the kernel."""
    def draw(r):
        info = iinfo(k) if k not in FLOATS else np.finfo(npd(k))
        return r.uniform(float(info.min), float(info.max), size=[1, 1]).astype(npd(k))[0, 0]
    return draw


# A2/A3 and A5: the kernel's tile is ColMajor when tR * sizeof(T) % 32 == 0 (with a DN GM tensor), at 0x0
for _k, _gR, _gC, _tR, _tC, _vR, _vC, _p in _TEX + [("i8", 16, 200, 20, 512, 16, 200, "MAX")]:
    _draw = a2_tex_draw(_k)
    E("a2a3", tex_name(_k, _gR, _gC, _tR, _tC, _vR, _vC, _p), _k, (_tR, _tC), (_vR, _vC), 0x0,
      int32_via_float(_draw) if _k == "i32" else (lambda r, dr=_draw, k=_k: (via_float(dr(r), k), None)),
      colmajor=_tR * isz(_k) % 32 == 0)


def a5_tex_draw(k):
    if k == "i64":
        return lambda r: np.int64(-4_000_000_007)
    if k == "u64":
        return lambda r: np.uint64(10_000_000_019)
    return cpu_tex_draw(k)                 # i16 / i32 randint, f16 / bf16 / f32 uniform(-8, 8): native scalar.bin


for _k, _gR, _gC, _tR, _tC, _vR, _vC, _p in _TEX[:4] + [("bf16", 64, 64, 64, 64, 64, 64, "NULL")] + _TEX[4:6] + [
        ("bf16", 1, 3600, 2, 4096, 1, 3600, "MAX")] + _TEX[6:] + [("i16", 1, 200, 1, 512, 1, 200, "MAX"),
                                                                   ("i64", 5, 16, 5, 16, 5, 16, "NULL"),
                                                                   ("u64", 5, 16, 5, 16, 5, 16, "NULL")]:
    E("a5", tex_name(_k, _gR, _gC, _tR, _tC, _vR, _vC, _p, a5=True), _k, (_tR, _tC), (_vR, _vC), 0x0,
      lambda r, dr=a5_tex_draw(_k): (dr(r), None), colmajor=_tR * isz(_k) % 32 == 0)


@pytest.mark.parametrize("c", params(EXPANDS))
def test_texpands(c):
    k = c["k"]
    vr, vc = c["valid"]
    with np.errstate(all="ignore"):
        s, vendor_s = c["gen"](rng(c["target"], c["dir"], c["name"]))
    golden = np.full((vr, vc), s, dtype=npd(k))
    if vendor_s is not None:
        # int32 through the host's float: gen_data.py's golden (M itself) passes only through ResultCmp's tolerance
        result_cmp(np.full((vr, vc), vendor_s, np.int32), golden, 0.001, "vendor golden vs (int32)(float)M")
    with pto.Core(c["target"], "numpy") as core:
        d = at(tile(k, *c["tile"], vr, vc, layout=CM if c["colmajor"] else RM), c["addr"])
        pto.TEXPANDS(d, float(s) if k in FLOATS else int(s))
        got = get(core, d, npd(k))
    assert_bytes(got, golden, f"{c['target']} texpands {c['name']}")


# ============================================================================================
# TCI: Tile<1, N> (dynamic valid 1 x N) at 0x0; the tmp form's tmp is Tile<Vec, float, 1, 512, 1, 512> at 0x20000

TCI_CASES = []


def C(target, name, k, start, desc, n, tmp=False):
    TCI_CASES.append(dict(target=target, dir="tci", name=name, k=k, start=start, desc=desc, n=n, tmp=tmp))


C("cpu", "case_i32_asc_S0", "i32", 0, 0, 16)
C("cpu", "case_i32_desc_S100", "i32", 100, 1, 16)
# a2a3: start 0 in every case (runTCI(..., 0)); mode 1 = with tmp
for _i, (_k, _n, _desc, _tmp) in enumerate(
        [("i32", 128, 0, 0), ("i32", 600, 0, 0), ("i32", 32, 1, 0), ("i32", 2000, 1, 0), ("i16", 256, 0, 0),
         ("i16", 800, 1, 0), ("i16", 64, 0, 0), ("i16", 5120, 1, 0), ("i32", 128, 0, 1), ("i32", 32, 1, 1),
         ("i16", 256, 0, 1), ("i16", 800, 1, 1), ("i16", 3328, 1, 1), ("i16", 64, 0, 1), ("i16", 32, 1, 1)], 1):
    C("a2a3", f"case{_i}_{DT[_k][2]}", _k, 0, _desc, _n, bool(_tmp))
for _i, (_k, _s, _desc, _n, _tmp) in enumerate(
        [("i32", 100, 1, 128, 0), ("i16", -1, 0, 128, 0), ("i16", -1, 1, 128, 0), ("i16", -1, 1, 192, 0),
         ("i32", -1, 1, 192, 0), ("i32", 0, 1, 600, 0), ("i16", 0, 0, 800, 0), ("i32", 0, 1, 2560, 0),
         ("i32", 0, 0, 3200, 0), ("i32", 0, 0, 8, 0), ("i32", 100, 1, 128, 1), ("i32", 0, 0, 3200, 1),
         ("i16", -1, 1, 128, 1), ("i16", 0, 0, 800, 1), ("i16", 20, 1, 3840, 1), ("i16", 50, 0, 1408, 1)], 1):
    C("a5", f"case{_i}", _k, _s, _desc, _n, bool(_tmp))


@pytest.mark.parametrize("c", params(TCI_CASES))
def test_tci(c):
    k, n, s = c["k"], c["n"], c["start"]
    ar = np.arange(n)
    golden = np.asarray((s - ar) if c["desc"] else (s + ar)).astype(npd(k)).reshape(1, n)   # gen_data.py
    with pto.Core(c["target"], "numpy") as core:
        T = pto.Tile[V, DT[k][0], 1, n, RM, -1, -1]
        d = at(T(1, n), 0x0)
        if c["tmp"]:
            TT = pto.Tile[V, pto.float32, 1, 512, RM, 1, 512]
            pto.TCI[T, TT, DT[k][0], c["desc"]](d, s, at(TT(), 0x20000))
        else:
            pto.TCI[T, DT[k][0], c["desc"]](d, s)
        got = get(core, d, npd(k))
    assert_bytes(got, golden, f"{c['target']} tci {c['name']}")
