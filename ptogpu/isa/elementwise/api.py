"""The element-wise calls: tile-tile ``TADD TSUB TMUL TDIV TMAX TMIN TAND TOR TXOR TSHL TSHR``,
unary ``TNOT TNEG TABS``, tile-scalar ``TADDS TSUBS TMULS TDIVS TMAXS TMINS TANDS TORS TXORS
TSHLS TSHRS``, and the generators ``TEXPANDS`` and ``TCI``; each with every target's static
checks (``PtoCheckError``) and run-time asserts, then the NumPy semantics (docs/elementwise.md
has every rule per target)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...core import current_core
from ...enums import DYNAMIC, DivAlgorithm, TileType
from ...errors import PtoCheckError, PtoFault, asserts_live, check, runtime_assert
from ...ops.events import instruction
from ...ops.template import Forms
from ...semantics.tile_moves import grid, hazard
from ...tile import Tile
from . import kernels as K
from . import semantics as S
from . import semantics_values as V
from .rules import ARITH

BINARY = {"TADD": "add", "TSUB": "sub", "TMUL": "mul", "TDIV": "div", "TMAX": "max", "TMIN": "min",
          "TAND": "and", "TOR": "or", "TXOR": "xor", "TSHL": "shl", "TSHR": "shr"}
UNARY = {"TNOT": "not", "TNEG": "neg", "TABS": "abs"}
SCALAR = {"TADDS": "add", "TSUBS": "sub", "TMULS": "mul", "TDIVS": "div", "TMAXS": "max", "TMINS": "min",
          "TANDS": "and", "TORS": "or", "TXORS": "xor", "TSHLS": "shl", "TSHRS": "shr"}
BITWISE = ("and", "or", "xor", "not", "shl", "shr")


def _rules(core):
    return core.target.elementwise, core.target.name


def check_tiles(core, call: str, named: dict) -> None:
    """Every target's static checks of ``call`` over its tile operands ``named`` (dst first)."""
    R, t = _rules(core)
    for name, x in named.items():
        if not isinstance(x, Tile):
            raise PtoCheckError(f"{name} must be a Tile, got {type(x).__name__}", rule=f"{call} operands", target=t)
    tiles = list(named.items())
    dst = tiles[0][1]
    op = BINARY.get(call) or UNARY.get(call) or SCALAR.get(call) or call
    allowed = R.dtypes.get(call, ARITH)
    if allowed is not None:
        check(dst.DType in allowed, f"{call}: Invalid data type", t,
              f"{dst.DType} is not one of {', '.join(allowed)}")
    if op in BITWISE and dst.DType in V.FLOATS and call not in R.bitwise_floats:
        raise PtoCheckError(f"{call} on {dst.DType}: the operator is not defined for floating types",
                            rule=f"{call}: Invalid data type", target=t)
    for name, x in tiles[1:]:
        check(x.DType == dst.DType, f"{call}: The data type of dst must be consistent with src", t,
              f"{name} holds {x.DType}, dst holds {dst.DType}")
    for name, x in tiles:
        if call not in R.any_loc:
            check(x.Loc == TileType.Vec, f"{call}: TileType of src and dst tiles must be TileType::Vec", t,
                  f"{name} is TileType.{x.Loc.name}")
        elif x.Loc not in (TileType.Vec, TileType.Mat):
            raise PtoCheckError(f"{name} is TileType.{x.Loc.name}: Vec and Mat tiles are emulated",
                                rule=f"{call} operands", target=t)
        if call in R.row_major:
            check(x.isRowMajor, f"{call} only support row major layout", t, f"{name} is ColMajor")
    if call in R.one_tile_type:
        for name, x in tiles[1:]:
            check(type(x) is type(dst), f"{call}: one tile type for every operand (one template parameter)", t,
                  f"{name} is {type(x).__name__}, dst {type(dst).__name__}")
    for _, x in tiles:
        x._bound()


def valid_shapes(core, call: str, named: dict) -> None:
    """The run-time asserts that every operand's valid shape is dst's: the simulator's C
    ``assert`` (ElementTileOp.h, live unless NDEBUG) where the call has one, else the NPUs'
    PTO_ASSERT (a _DEBUG build only); where compiled out, dst's valid region is the domain."""
    R, t = _rules(core)
    items = list(named.items())
    dst = items[0][1]
    if R.c_assert is not None and call not in R.c_assert:
        return
    macro = core.target.assert_macro
    for name, x in items[1:]:
        runtime_assert(core, (x.valid_row, x.valid_col) == (dst.valid_row, dst.valid_col),
                       f"{call}: {macro}(valid shapes of all I/O tiles are the same)",
                       f"{name} valid {x.valid_row}x{x.valid_col}, dst {dst.valid_row}x{dst.valid_col}")


def scalar(core, call: str, T: str, s) -> np.ndarray:
    """The call's scalar argument as T's bits (converted as C++ converts the argument). An
    :class:`~ptogpu.instance_values.InstanceValues` (what ``tile.data()[i]`` / ``GetValue`` read
    on a core of N running a program) gives every instance its own: the bits of the step's
    instances, shape (instances, 1), so one run serves them all (no instance parked by value)."""
    from ...instance_values import InstanceValues
    if isinstance(s, InstanceValues):
        v = np.asarray(s.values)[core.step_instances()]
        if v.dtype == dtypes.as_dtype(T):                # the tile's own type: its bits as they are
            return v.view(V.U(T)).reshape(-1, 1)
        return np.array([_one_scalar(core, call, T, x) for x in v.tolist()], V.U(T)).reshape(-1, 1)
    return _one_scalar(core, call, T, s)


def _one_scalar(core, call: str, T: str, s) -> np.ndarray:
    t = core.target.name
    if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, float, np.integer, np.floating)):
        raise PtoCheckError(f"{call}'s scalar is a {T}: give a number, got {type(s).__name__}",
                            rule=f"{call} scalar", target=t)
    if not V.is_float(T) and isinstance(s, (float, np.floating)):
        lo, hi = (-(1 << (V.width(T) - 1)), 1 << (V.width(T) - 1)) if T.startswith("int") else (0, 1 << V.width(T))
        if not np.isfinite(s) or not lo - 1 < float(s) < hi:
            raise PtoCheckError(f"{call}: {s!r} does not convert to {T} (undefined in C++)",
                                rule=f"{call} scalar", target=t)
    return V.scalar_bits(s, T)


# -- what each call computes (on the sources' bits) ------------------------------------------------
def binary_fn(core, call: str, T: str):
    R, t = _rules(core)
    op = BINARY.get(call) or SCALAR.get(call)
    s_form = call in SCALAR
    if op in ("add", "sub", "mul"):
        return lambda a, b: V.arith(op, a, b, T, R.ftz and V.is_float(T))
    if op == "div":
        if V.is_float(T):
            return lambda a, b: V.arith("div", a, b, T, R.ftz)
        if R.int_div == "c" or (s_form and R.int_divs == "c"):
            return lambda a, b: V.int_div(a, b, T)
        if dtypes.as_dtype(T).itemsize == 8 and R.b64_cols is not None:
            return lambda a, b: V.int_div(a, b, T, zero_gives=0)            # A5's 8-byte long division
        if s_form:              # the NPUs' scalar-unit loop: a zero scalar is refused; MIN / -1 wraps (modelled)
            return lambda a, b: V.int_div(a, b, T, zero_gives=0)
        # a5/TDiv.hpp:35: vdiv on integer lanes; the vendor's test expects the truncated quotient
        return lambda a, b: V.int_div(a, b, T, zero_gives=0)
    if op in ("max", "min"):
        model = R.minmax_scalar if s_form else R.minmax
        return lambda a, b: V.maxmin(op, a, b, T, model, R.ftz)
    if op in ("shl", "shr"):
        model = R.shift_scalar if s_form else R.shift
        return lambda a, b: V.shift(op, a, b, T, model)
    return lambda a, b: V.bitwise(op, a, b)


def unary_fn(core, call: str, T: str):
    R, _ = _rules(core)
    op = UNARY[call]
    if op == "not":
        return lambda a: V.bitwise("not", a, None)
    if op == "neg":
        return lambda a: V.neg(a, T, R.neg, R.ftz)
    return lambda a: V.absolute(a, T, R.abs)


# -- the calls -------------------------------------------------------------------------------------
def _binary(call: str, ops: tuple, enums: dict) -> None:
    core = current_core()
    t = core.target.name
    want = 4 if call == "TXOR" else 3
    if len(ops) != want:
        raise PtoCheckError(f"{call} takes {want} tile operands ({'dst, src0, src1' + (', tmp' if want == 4 else '')}), "
                            f"got {len(ops)}", rule=f"{call} forms", target=t)
    named = dict(zip(("dst", "src0", "src1", "tmp"), ops))
    check_tiles(core, call, named)
    dst, s0, s1 = ops[:3]
    valid_shapes(core, call, {k: named[k] for k in ("dst", "src0", "src1")})
    hazard(call, {"dst": dst}, {"src0": s0, "src1": s1}, in_place_ok=True)
    T = dst.DType
    fn = binary_fn(core, call, T)
    R = core.target.elementwise
    extra = S.pad_byte(core, call, dst, [s0, s1], fn)
    if call == "TXOR" and R.xor_tmp:                      # a2a3/TXor.hpp:50-61: tmp = src0 | src1 first
        tmp = ops[3]
        tr, tc = grid(tmp.valid_row, tmp.valid_col)
        extra = (tmp, tr, tc, [s0, s1], lambda a, b: V.bitwise("or", a, b))
    if extra is None and K.run(core, BINARY[call], False, dst, [s0, s1], *_region(core, call, dst)):
        return                                          # native/cupy kernel
    S.apply(core, call, dst, [s0, s1], fn, extra=extra)


def _unary(call: str, ops: tuple, enums: dict) -> None:
    core = current_core()
    if len(ops) != 2:
        raise PtoCheckError(f"{call} takes (dst, src), got {len(ops)} operands", rule=f"{call} forms",
                            target=core.target.name)
    dst, src = ops
    check_tiles(core, call, {"dst": dst, "src": src})
    valid_shapes(core, call, {"dst": dst, "src": src})
    fn = unary_fn(core, call, dst.DType)
    extra = S.pad_byte(core, call, dst, [src], fn)
    if extra is None and K.run(core, UNARY[call], False, dst, [src], *_region(core, call, dst)):
        return                                          # native/cupy kernel
    S.apply(core, call, dst, [src], fn, extra=extra)


def _scalar(call: str, ops: tuple, enums: dict) -> None:
    core = current_core()
    R, t = _rules(core)
    want = 4 if call == "TXORS" else 3
    if len(ops) != want:
        form = "dst, src, scalar" + (", tmp" if want == 4 else "")
        raise PtoCheckError(f"{call} takes ({form}), got {len(ops)} operands", rule=f"{call} forms", target=t)
    if call == "TDIVS" and isinstance(ops[1], Tile) is False and isinstance(ops[2], Tile):
        return _rdivs(core, ops)
    dst, src, s = ops[0], ops[1], ops[2]
    named = {"dst": dst, "src": src}
    if want == 4:
        named["tmp"] = ops[3]
    check_tiles(core, call, named)
    valid_shapes(core, call, {"dst": dst, "src": src})
    T = dst.DType
    sb = scalar(core, call, T, s)
    op = SCALAR[call]
    same = dst.space == src.space and dst.addr == src.addr
    fn = binary_fn(core, call, T)
    plain = True                                        # the element's operation only: a kernel may run it
    if op == "div" and not V.is_float(T) and (sb.view(dtypes.as_dtype(T)) == 0).any() and R.int_divs == "scalar_unit" \
            and not (dst.Element.itemsize == 8 and R.b64_cols is not None):
        raise PtoCheckError(f"{call}: integer division by zero on the scalar unit ({t}/TDivS.hpp's loop): the result "
                            "is not defined by the code, so ptogpu refuses the call", rule="TDIVS integer zero",
                            target=t)
    if op == "sub" and R.subs_float:                    # a2a3/TSubS.hpp:22: vadds(src, (T)(-(float)s))
        v = -np.float32(sb.view(dtypes.as_dtype(T)).astype(np.float32))
        nb = V.fbits(v, T) if V.is_float(T) else V.wrap(np.trunc(np.float64(v)).astype(np.int64), T)
        add = binary_fn(core, "TADDS", T)
        fn, sb, plain = add, nb, False
    if op == "div" and V.is_float(T) and R.divs_inplace and same:     # a2a3/TDivS.hpp:107-114
        inv = V.fbits(np.float32(1) / np.float32(sb.view(dtypes.as_dtype(T)).astype(np.float32)), T)
        fn, sb, plain = (lambda a, b: V.arith("mul", a, b, T, R.ftz)), inv, False
    if op in ("and", "or", "xor") and R.bitwise_s_inplace and same:   # a2a3/TBitwiseSOp.hpp:98-137
        fn = {"and": lambda a, b: np.broadcast_to(b, a.shape), "or": lambda a, b: np.broadcast_to(b, a.shape),
              "xor": lambda a, b: a & ~b}[op]
        plain = False
    extra = None
    if call == "TXORS" and R.xor_tmp:                   # TORS(tmp, src, s) first
        tmp = ops[3]
        tr, tc = grid(tmp.valid_row, tmp.valid_col)
        extra = (tmp, tr, tc, [src], lambda a, b=sb: V.bitwise("or", a, b))
    if plain and extra is None and K.run(core, op, True, dst, [src], *_region(core, call, dst), scalar_bits=sb):
        return                                          # native/cupy kernel
    S.apply(core, call, dst, [src], lambda a: fn(a, sb), extra=extra)


def _region(core, call: str, dst) -> tuple[int, int]:
    """(rows, columns) a call computes (``semantics.columns``)."""
    return dst.valid_row, S.columns(core, call, dst)


def _rdivs(core, ops) -> None:
    """``TDIVS(dst, scalar, src)``: dst = scalar / src. The simulator asserts ``src != 0`` per
    element (ElementOp.h:428-432, a C assert: floats too); A2/A3 in place divides s by s."""
    R, t = _rules(core)
    dst, s, src = ops
    check_tiles(core, "TDIVS", {"dst": dst, "src": src})
    valid_shapes(core, "TDIVS", {"dst": dst, "src": src})
    T = dst.DType
    sb = scalar(core, "TDIVS", T, s)
    fn = binary_fn(core, "TDIVS", T)
    same = dst.space == src.space and dst.addr == src.addr
    asserts = R.rdivs_assert and asserts_live(core)

    def go(a):
        num = np.broadcast_to(sb, a.shape)
        den = num if (V.is_float(T) and R.divs_inplace and same) else a     # a2a3/TDivS.hpp:73-75
        got = fn(num, den)
        bits, trap = got if isinstance(got, tuple) else (got, None)
        if asserts:
            return bits, a.view(dtypes.as_dtype(T)) == 0, (
                'TDIVS: assert(src != 0 && "Divider cannot be equal to zero")', "assert(src != 0) fails")
        return (bits, trap) if trap is not None else bits
    S.apply(core, "TDIVS", dst, [src], go)


def _texpands(ops: tuple, enums: dict) -> None:
    core = current_core()
    R, t = _rules(core)
    if len(ops) != 2:
        raise PtoCheckError(f"TEXPANDS takes (dst, scalar), got {len(ops)} operands", rule="TEXPANDS forms", target=t)
    dst, s = ops
    check_tiles(core, "TEXPANDS", {"dst": dst})
    T = dst.DType
    sb = scalar(core, "TEXPANDS", T, s) if T in V.FLOATS or dtypes.as_dtype(T).kind in "iu" else \
        _raw_scalar(core, T, s)
    VR, VC = dst.valid_row, S.columns(core, "TEXPANDS", dst)
    row_major = dst.isRowMajor
    # the storage offsets written
    if R.expands_mat_whole and dst.Loc == TileType.Mat:  # pto_create_cbuf_matrix: the whole tile
        off = np.arange(dst.Rows * dst.Cols, dtype=np.int64)
    elif R.expands_flat and ((row_major and VR > 1 and (dst.ValidCol != DYNAMIC or VC == dst.Cols)) or
                             (not row_major and VC > 1 and (dst.ValidRow != DYNAMIC or VR == dst.Rows))):
        n = VR * VC                                      # a2a3/TExpandS.hpp:61-65: VR*VC elements, flat
        if R.expands_b8_extra and dst.Element.itemsize == 1 and n % 2:
            n += 1
        off = np.arange(n, dtype=np.int64)
    else:                                                # the valid region through the layout (the NPUs
        r, c = grid(VR, VC)                              # fill column-major tiles column by column)
        off = S.offsets(core, dst, r, c, layout=True)
        if R.expands_b8_extra and dst.Element.itemsize == 1 and VC % 2 and VR and row_major:
            if VR == 1 or VC == dst.Cols:
                off = np.arange(VR * VC + 1, dtype=np.int64)
            else:
                off = np.concatenate([off, np.arange(VR, dtype=np.int64) * dst.Cols + VC])
    S.fill_offsets(core, "TEXPANDS", dst, sb, off)


def _raw_scalar(core, T: str, s) -> np.ndarray:
    """An 8-bit float type's scalar (the simulator's TEXPANDS takes any type): its value, rounded."""
    dt = dtypes.as_dtype(T)
    if T == "hifloat8":
        raise PtoCheckError("TEXPANDS of a hifloat8 scalar: give the tile's bits with set() (NumPy has no "
                            "hifloat8 arithmetic type)", rule="TEXPANDS scalar", target=core.target.name)
    return np.asarray(np.float64(s)).astype(dt).view(np.dtype(f"u{dt.itemsize}"))


class _TCI:
    """``TCI[TileData, T, descending](dst, start)`` and ``TCI[TileData, TileDataTmp, T,
    descending](dst, start, tmp)``: dst[0, i] = start + i (start - i descending) for i < the
    valid width, row 0 only (pto_instr.hpp:1228-1242; T and descending have no default)."""

    def __init__(self, given: tuple = ()) -> None:
        self.given = given
        self.__doc__ = _TCI.__doc__

    def __getitem__(self, args) -> "_TCI":
        if self.given:
            raise TypeError("TCI: template arguments already given")
        return _TCI(args if isinstance(args, tuple) else (args,))

    def __call__(self, *args):
        return instruction("TCI")(self._run)(*args)

    def __repr__(self) -> str:
        return "TCI" if not self.given else f"TCI[{', '.join(map(str, self.given))}]"

    def _run(self, dst, start, tmp=None) -> None:
        ops = (dst, start) + (() if tmp is None else (tmp,))
        core = current_core()
        R, t = _rules(core)
        g = self.given
        tmp_form = len(ops) == 3
        if len(g) != (4 if tmp_form else 3):
            raise PtoCheckError("TCI's element type and descending flag have no default: write "
                                + ("TCI[DstTile, TmpTile, T, descending](dst, start, tmp)" if tmp_form
                                   else "TCI[DstTile, T, descending](dst, start)"),
                                rule="TCI template", target=t)
        if not isinstance(g[0], type) or not isinstance(dst, g[0]):
            raise PtoCheckError(f"template argument TileData = {g[0]!r} does not match dst", rule="TCI template deduction",
                                target=t)
        T = dtypes.name_of(dtypes.as_dtype(g[-2]))
        desc = int(g[-1])
        check_tiles(core, "TCI", {"dst": dst})
        check(T == dst.DType, "TCI: T is the tile's element type", t, f"T = {T}, dst holds {dst.DType}")
        if R.tci_dtypes is not None:
            check(T in R.tci_dtypes, "TCI: Invalid data type", t, f"{T} is not one of {', '.join(R.tci_dtypes)}")
        check(dst.Rows == 1, "TCI: TileData::Rows == 1", t, f"Rows = {dst.Rows}")
        if tmp_form and R.tci_tmp == "none":
            raise PtoCheckError("the simulator defines no TCI overload with tmp (cpu/TCI.hpp)", rule="TCI forms",
                                target=t)
        VC = dst.valid_col
        if tmp_form and R.tci_tmp == "a5" and VC == 0:
            raise PtoFault("TCI with tmp and no valid columns: (uint16_t)(0 - 1) = 65535 loop trips write past the "
                           "tile (a5/Tci.hpp:69,81)", rule="TCI tmp, zero valid columns", target=t)
        down = (desc == 1) if R.tci_desc_is_one else desc != 0
        i = np.arange(VC, dtype=np.int64)
        sb = scalar(core, "TCI", T, start)
        if V.is_float(T):
            sv = sb.view(dtypes.as_dtype(T)).astype(np.float64)
            vals = V.fbits((sv - i) if down else (sv + i), T)
        else:
            sv = sb.view(dtypes.as_dtype(T)).astype(np.int64)     # one start, or one per instance (K, 1)
            if tmp_form and R.tci_tmp == "neg" and down:            # a2a3/TCI.hpp:97-100: vmuls by -1
                vals = V.wrap(-(sv + i), T)
            else:
                vals = V.wrap((sv - i) if down else (sv + i), T)
        S.fill(core, "TCI", dst, vals, np.zeros(VC, np.int64), i)


def _call(name: str, run, most: int, doc: str):
    return Forms(name, lambda ops, enums: run(name, ops, enums), (DivAlgorithm,), most, doc=doc)


_DOCS = {
    "add": "dst = src0 + src1", "sub": "dst = src0 - src1", "mul": "dst = src0 * src1", "div": "dst = src0 / src1",
    "max": "dst = max(src0, src1)", "min": "dst = min(src0, src1)", "and": "dst = src0 & src1",
    "or": "dst = src0 | src1", "xor": "dst = src0 ^ src1 (tmp: A2/A3 writes src0 | src1 there)",
    "shl": "dst = src0 << src1", "shr": "dst = src0 >> src1 (arithmetic for signed types)",
}

TADD, TSUB, TMUL, TDIV, TMAX, TMIN, TAND, TOR, TXOR, TSHL, TSHR = (
    _call(c, _binary, 4 if c == "TXOR" else 3, f"{c}(dst, src0, src1{', tmp' if c == 'TXOR' else ''}): "
          f"{_DOCS[o]} over dst's valid region (docs/elementwise.md).") for c, o in BINARY.items())
TNOT, TNEG, TABS = (_call(c, _unary, 2, f"{c}(dst, src): dst = {o}(src) over dst's valid region "
                          "(docs/elementwise.md).") for c, o in UNARY.items())
TADDS, TSUBS, TMULS, TDIVS, TMAXS, TMINS, TANDS, TORS, TXORS, TSHLS, TSHRS = (
    _call(c, _scalar, 4 if c == "TXORS" else 3,
          f"{c}(dst, src, scalar{', tmp' if c == 'TXORS' else ''}): {_DOCS[o].replace('src0', 'src').replace('src1', 'scalar')}"
          + (" (or TDIVS(dst, scalar, src): scalar / src)" if c == "TDIVS" else "") + " (docs/elementwise.md).")
    for c, o in SCALAR.items())
TEXPANDS = Forms("TEXPANDS", _texpands, (), 2, doc="TEXPANDS(dst, scalar): every valid element of dst = scalar "
                 "(docs/elementwise.md).")
TCI = _TCI()

CALLS = (*BINARY, *UNARY, *SCALAR, "TEXPANDS", "TCI")
