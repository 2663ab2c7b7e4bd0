"""Bad input to the instructions around the gathers (element-wise, compare and select, TCVT,
TMOV, the sorts): any operands -- wrong types, tiles of any element type, shape, Loc and layout,
aliasing ones, odd scalars and modes -- give the target's verdict (PtoCheckError, PtoFault, a
warning) and nothing else: no other exception, no byte written outside the arenas."""
from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptogpu as pto

V, M = pto.TileType.Vec, pto.TileType.Mat
CALLS = ["TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TAND", "TOR", "TXOR", "TSHL", "TSHR", "TNOT", "TNEG",
         "TABS", "TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS", "TMINS", "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS",
         "TEXPANDS", "TCMP", "TCMPS", "TSEL", "TSELS", "TCVT", "TMOV", "TSORT32", "TMRGSORT"]
DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "half", "bfloat16", "float32",
          "float8_e4m3", "hifloat8"]
SHAPES = [(1, 32), (2, 64), (4, 16), (16, 16), (1, 256)]
SCALARS = [0, 1, -1, 7, 2 ** 31, -2 ** 63, 2 ** 64 + 3, 0.5, -0.0, float("nan"), float("inf"), 1e300, True, None,
           "3", np.int8(-5), np.float16(2.5), pto.CmpMode.GT, pto.RoundMode.CAST_ODD, pto.SaturationMode.OFF]


def _tile(dt: str, shape, loc, valid, col_major: bool):
    rows, cols = shape
    size = np.dtype(getattr(pto, dt)).itemsize
    step = 32 // size
    cols = -(-cols // step) * step                    # (a row a whole number of 32-byte blocks)
    layout = pto.BLayout.ColMajor if col_major and rows * size % 32 == 0 else pto.BLayout.RowMajor
    vr, vc = valid
    try:
        return pto.Tile[loc, getattr(pto, dt), rows, cols, layout, min(vr, rows), min(vc, cols)]()
    except pto.PtoError:
        return pto.Tile[V, getattr(pto, dt), rows, cols]()


tiles = st.builds(_tile, st.sampled_from(DTYPES), st.sampled_from(SHAPES), st.sampled_from([V, V, V, M]),
                  st.tuples(st.integers(0, 20), st.integers(0, 300)), st.booleans())
operands = st.one_of(tiles, tiles, tiles, st.sampled_from(SCALARS), st.just(pto.MrgSortExecutedNumList()))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(target=st.sampled_from(["cpu", "a2a3", "a5"]), call=st.sampled_from(CALLS),
       ops=st.lists(operands, min_size=0, max_size=7), addrs=st.lists(st.integers(0, 6), min_size=7, max_size=7),
       exhausted=st.booleans())
def test_any_operands_give_the_targets_verdict_and_nothing_else(target, call, ops, addrs, exhausted):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pto.Core(target, "numpy") as core:
            placed = 0
            for x, a in zip(ops, addrs):
                if isinstance(x, pto.Tile):
                    try:                              # aliasing tiles: several at one address
                        pto.TASSIGN(x, a * 0x1000)
                        placed += 1
                    except pto.PtoError:
                        pass                          # (some stay for automatic placement)
            fn = getattr(pto, call)
            if call == "TMRGSORT" and exhausted:
                fn = fn[True]
            before = {s: core.arena(s).size for s in ("ub", "l1")}
            try:
                fn(*ops)
            except pto.PtoError:
                pass
            assert {s: core.arena(s).size for s in ("ub", "l1")} == before


ARITY = {**{c: 3 for c in ("TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TAND", "TOR", "TSHL", "TSHR")},
         "TXOR": 4, "TNOT": 2, "TNEG": 2, "TABS": 2, "TMOV": 2, "TCVT": 2}
SCALAR_CALLS = ("TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS", "TMINS", "TANDS", "TORS", "TSHLS", "TSHRS")


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(target=st.sampled_from(["cpu", "a2a3", "a5"]), call=st.sampled_from(list(ARITY) + list(SCALAR_CALLS)),
       dt=st.sampled_from(DTYPES[:11]), shape=st.sampled_from(SHAPES),
       valids=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 300)), min_size=4, max_size=4),
       addrs=st.lists(st.integers(-2, 250), min_size=4, max_size=4), scalar=st.sampled_from(SCALARS[:12]),
       fill=st.integers(0, 255))
def test_well_formed_calls_on_any_memory_give_the_verdict_and_write_only_their_region(
        target, call, dt, shape, valids, addrs, scalar, fill):
    """Same-type tiles at any addresses (overlapping, past UB's end), any valid dims and any
    bytes in memory: the call runs or gives the target's verdict; memory keeps its size."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pto.Core(target, "numpy") as core:
            core.write("ub", 0, np.full(core.ub.size, fill, np.uint8))
            ts = [_tile(dt, shape, V, v, False) for v in valids]
            for t, a in zip(ts, addrs):
                try:
                    pto.TASSIGN(t, a * 0x400)
                except pto.PtoError:
                    pass
            fn = getattr(pto, call)
            args = ts[:ARITY[call]] if call in ARITY else [ts[0], ts[1], scalar]
            if call == "TCVT":
                args = [ts[0], ts[1], pto.RoundMode.CAST_RINT]
            try:
                fn(*args)
            except pto.PtoError:
                pass
            assert core.arena("ub").size == core.ub.size
