"""TGATHER and TSCATTER per target (docs/tgather.md), byte-exact over the whole UB.

The goldens are element loops written here from the vendor's code (include/pto/{cpu,npu/a2a3,
npu/a5}/TGather.hpp, TScatter.hpp), not taken from ptogpu: every form on cpu, a2a3 and a5,
on numpy and native (the index forms run the tgather.cu kernels there), with UB filled with
random bytes first so that a byte written where the target writes none shows. The module
runs on cores of 3 as well (tests/conftest.py BATCHED_MODULES).
"""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto

V = pto.TileType.Vec
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
TARGETS = ["cpu", "a2a3", "a5"]
BACKENDS = ["numpy", "native"]
P = pto.MaskPattern
F = {P.P0101: (2, 0), P.P1010: (2, 1), P.P0001: (4, 0), P.P0010: (4, 1), P.P0100: (4, 2), P.P1000: (4, 3),
     P.P1111: (1, 0)}


pytestmark = pytest.mark.usefixtures("fresh_stack")


def T(dt, rows, cols, vr=None, vc=None, layout=RM):
    return pto.Tile[V, getattr(pto, dt), rows, cols, layout, rows if vr is None else vr, cols if vc is None else vc]


def core_with(target, backend, quirks=None, seed=0):
    core = pto.Core(target, backend, quirks=quirks).__enter__()
    core.write("ub", 0, np.random.default_rng(seed).integers(0, 256, core.ub.size, dtype=np.uint8))
    return core


def place(core, *types, gap=0x2000):
    tiles = [t() for t in types]
    for k, t in enumerate(tiles):
        pto.TASSIGN(t, k * gap)
    return tiles


def ub(core):
    return core.read("ub", 0, core.ub.size)


def elem(mem, tile, r, c):
    s = tile.Element.itemsize
    a = tile.addr + (r * tile.Cols + c) * s
    return mem[a: a + s]


def int_at(mem, addr, size, signed):
    return int.from_bytes(bytes(mem[addr: addr + size]), "little", signed=signed)


def done(core):
    core.__exit__(None, None, None)


# ---- TGATHER index form ------------------------------------------------------------------------
def gather_index_golden(target, mem, dst, src0, idx, tmp):
    out = mem.copy()
    t, isz = dst.Element.itemsize, idx.Element.itemsize
    signed = idx.Element.kind == "i"
    cols = min(dst.valid_col, 64) if target == "a5" and t == 8 else dst.valid_col
    for r in range(dst.valid_row):
        for c in range(cols):
            raw = int_at(mem, idx.addr + (r * idx.Cols + c) * isz, isz, signed)
            da = dst.addr + (r * dst.Cols + c) * t
            if target == "cpu":             # cpu/TGather.hpp:97-111: 0 outside src0's tile
                v = mem[src0.addr + raw * t: src0.addr + raw * t + t] if 0 <= raw < src0.Rows * src0.Cols \
                    else np.zeros(t, np.uint8)
            elif target == "a2a3":          # a2a3:62-85: (int32 idx * sizeof T) as a u32 byte offset
                off = (raw * t) & 0xFFFFFFFF
                v = mem[src0.addr + off: src0.addr + off + t]
                if t == 2:                  # the offsets go to tmp + r*dst.Cols (int32)
                    ta = tmp.addr + (r * dst.Cols + c) * 4
                    out[ta: ta + 4] = np.frombuffer(off.to_bytes(4, "little"), np.uint8)
            else:                           # a5: vgather2's unsigned index lanes, element offsets
                u = raw & ((1 << (8 * isz)) - 1)
                v = mem[src0.addr + u * t: src0.addr + u * t + t]
            out[da: da + t] = v
    return out


INDEX_CASES = {   # target: [(data, index, src shape, dst shape, dst valid)]
    "cpu": [("float32", "int32", (4, 32), (4, 16), (3, 11)), ("int8", "int32", (2, 64), (2, 32), (2, 32)),
            ("int64", "uint32", (2, 16), (2, 8), (2, 8)), ("half", "int32", (2, 32), (2, 32), (2, 20))],
    "a2a3": [("float32", "int32", (4, 32), (4, 16), (3, 11)), ("half", "int32", (2, 32), (2, 32), (2, 20)),
             ("int16", "uint32", (4, 16), (2, 32), (2, 32)), ("bfloat16", "int32", (2, 32), (2, 16), (1, 16))],
    "a5": [("float32", "int32", (4, 32), (4, 16), (3, 11)), ("half", "int16", (2, 32), (2, 32), (2, 20)),
           ("int8", "uint16", (2, 64), (2, 32), (2, 32)), ("int64", "uint32", (2, 16), (2, 80), (2, 70)),
           ("half", "int32", (2, 32), (2, 16), (2, 16))],
}


def _index_values(rng, n, reach, dt):
    """In range, past src0 (inside UB) and (signed types) negative small values."""
    v = rng.integers(0, reach, n)
    v[rng.random(n) < 0.2] += reach                       # past src0: its neighbours' bytes
    if np.dtype(dt).kind == "i":
        v[rng.random(n) < 0.1] = -1 if dt != "int32" else 0  # (int32 -1 leaves UB on the NPUs: below)
    return v.astype(dt)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target, case", [(t, c) for t in TARGETS for c in INDEX_CASES[t]])
def test_tgather_index_form(target, case, backend):
    data, index, ss, ds, dv = case
    core = core_with(target, backend)
    idx_t = T(index, *ds, *dv)
    src, dst, ix, tmp = place(core, T(data, *ss), T(data, *ds, *dv), idx_t, idx_t)
    rng = np.random.default_rng(1)
    reach = ss[0] * ss[1]
    ix.set(_index_values(rng, dv[0] * dv[1], reach, index).reshape(dv))
    before = ub(core)
    pto.TGATHER(dst, src, ix, tmp)
    assert np.array_equal(ub(core), gather_index_golden(target, before, dst, src, ix, tmp))
    done(core)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_tgather_index_past_ub_faults_and_writes_nothing(target, backend):
    core = core_with(target, backend)
    src, dst, ix, tmp = place(core, T("float32", 1, 32), T("float32", 2, 8), T("int32", 2, 8), T("int32", 2, 8))
    img = np.arange(16, dtype=np.int32).reshape(2, 8)
    img[1, 3] = 1 << 20                                   # 4 MiB past src0: outside UB
    ix.set(img)
    before = ub(core)
    with pytest.raises(pto.PtoFault, match="TGATHER source read") as e:
        pto.TGATHER(dst, src, ix, tmp)
    assert e.value.code == pto.errors.F_TABLE
    assert np.array_equal(ub(core), before)
    done(core)


# ---- TSCATTER index form -----------------------------------------------------------------------
def scatter_index_golden(target, mem, dst, src, idx):
    out = mem.copy()
    t, isz = dst.Element.itemsize, idx.Element.itemsize
    signed = idx.Element.kind == "i"
    if target != "cpu":                                   # vector_dup / vsts zero: the whole tile
        out[dst.addr: dst.addr + dst.Rows * dst.Cols * t] = 0
    cols = min(idx.valid_col, 64) if target == "a5" and t == 8 else idx.valid_col
    lanes = (64 if t == 8 else 256 // max(isz, 2)) if target == "a5" else max(cols, 1)
    for i in range(idx.valid_row):
        for j0 in range(0, cols, lanes):
            chunk = list(range(j0, min(cols, j0 + lanes)))
            for j in (reversed(chunk) if target == "a5" else chunk):    # a5: the lowest lane stays
                raw = int_at(mem, idx.addr + (i * idx.Cols + j) * isz, isz, signed)
                k = raw & 0xFFFFFFFF if target == "cpu" else raw if target == "a2a3" else raw & ((1 << 8 * isz) - 1)
                a = dst.addr + k * t
                out[a: a + t] = elem(mem, src, i, j)
    return out


SCATTER_CASES = {   # target: [(data, index, src/idx shape, valid, dst shape)]
    "cpu": [("int32", "int32", (4, 16), (3, 13), (4, 16)), ("float32", "uint16", (2, 32), (2, 32), (2, 32))],
    "a2a3": [("int32", "int32", (4, 16), (3, 13), (4, 16)), ("half", "uint16", (2, 32), (2, 32), (2, 32)),
             ("int8", "int16", (2, 32), (2, 30), (2, 32))],
    "a5": [("int32", "int32", (4, 16), (3, 13), (4, 16)), ("half", "int16", (2, 256), (2, 200), (2, 256)),
           ("uint64", "uint32", (2, 80), (2, 70), (2, 80)), ("int8", "uint16", (2, 32), (2, 32), (2, 32))],
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target, case", [(t, c) for t in TARGETS for c in SCATTER_CASES[t]])
def test_tscatter_index_form(target, case, backend):
    data, index, shape, valid, dshape = case
    core = core_with(target, backend)
    src, ix, dst = place(core, T(data, *shape, *valid), T(index, *shape, *valid), T(data, *dshape), gap=0x3000)
    rng = np.random.default_rng(2)
    n = dshape[0] * dshape[1]
    vals = rng.integers(0, n, valid[0] * valid[1])
    vals[rng.random(vals.size) < 0.3] = 3                 # collisions: who stays is the rule
    vals[rng.random(vals.size) < 0.1] += n                # past dst, inside UB
    if target == "a2a3" and np.dtype(index).kind == "i":
        vals[:2] = -1                                     # below dst: A2/A3's signed reach
    ix.set(vals.astype(index).reshape(valid))
    before = ub(core)
    pto.TSCATTER(dst, src, ix)
    assert np.array_equal(ub(core), scatter_index_golden(target, before, dst, src, ix))
    done(core)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", TARGETS)
def test_tscatter_index_past_ub_faults_before_the_clear(target, backend):
    core = core_with(target, backend)
    src, ix, dst = place(core, T("int32", 2, 8), T("int32", 2, 8), T("int32", 2, 8))
    img = np.arange(16, dtype=np.int32).reshape(2, 8)
    img[0, 5] = -(1 << 20) if target == "a2a3" else 1 << 20
    ix.set(img)
    before = ub(core)
    with pytest.raises(pto.PtoFault, match="TSCATTER dst write") as e:
        pto.TSCATTER(dst, src, ix)
    assert e.value.code == pto.errors.F_DST
    assert np.array_equal(ub(core), before)
    done(core)


# ---- mask forms --------------------------------------------------------------------------------
def gather_mask_golden(target, mem, dst, src, pat, col):
    out = mem.copy()
    t = dst.Element.itemsize
    f, pos = F[pat]
    if not col:
        if target == "a5" and t == 8:                     # Int64GatherPattern: rows at Cols/f
            for r in range(src.valid_row):
                for k in range(min(src.valid_col // f, 64)):
                    a = dst.addr + (r * (dst.Cols // f) + k) * t
                    out[a: a + t] = elem(mem, src, r, f * k + pos)
            return out
        k = 0                                             # one stream from dst's base
        for r in range(src.valid_row):
            for c in range(src.valid_col):
                if c % f == pos or pat == P.P1111:
                    out[dst.addr + k * t: dst.addr + (k + 1) * t] = elem(mem, src, r, c)
                    k += 1
        return out
    if target == "cpu":                                   # the selected rows, in order
        rows = [r for r in range(src.valid_row) if r % f == pos or pat == P.P1111]
        for j, r in enumerate(rows):
            for c in range(src.valid_col):
                a = dst.addr + (j * dst.Cols + c) * t
                out[a: a + t] = elem(mem, src, r, c)
        return out
    for i in range(src.valid_row):                        # the NPUs: src.VR rows (over-run)
        for c in range(src.valid_col):
            a = dst.addr + (i * dst.Cols + c) * t
            b = src.addr + ((f * i + pos) * src.Cols + c) * t
            out[a: a + t] = mem[b: b + t]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pat", [P.P0101, P.P1010, P.P0001, P.P0100, P.P1000, P.P1111])
def test_tgather_mask_row(target, pat, backend):
    core = core_with(target, backend)
    f = F[pat][0]
    src, dst = place(core, T("float32", 8, 40, 5, 32), T("float32", 1, 5 * 32 // f))
    before = ub(core)
    pto.TGATHER[pat](dst, src)
    assert np.array_equal(ub(core), gather_mask_golden(target, before, dst, src, pat, False))
    done(core)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pat", [P.P1010, P.P0001, P.P1111])
def test_tgather_mask_col(target, pat, backend):
    core = core_with(target, backend)
    f = F[pat][0]
    src, dst = place(core, T("half", 12, 32, 12, 16), T("half", 12 // f, 32, 12 // f, 16))
    before = ub(core)
    pto.TGATHER[pat, pto.GatherAxis.GATHER_COL](dst, src)
    assert np.array_equal(ub(core), gather_mask_golden(target, before, dst, src, pat, True))
    done(core)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tgather_mask_a5_b64_rows_step_by_cols_over_times(backend):
    core = core_with("a5", backend)
    src, dst = place(core, T("int64", 4, 24, 3, 15), T("int64", 4, 24, 3, 7))
    before = ub(core)
    pto.TGATHER[P.P1010](dst, src)
    assert np.array_equal(ub(core), gather_mask_golden("a5", before, dst, src, P.P1010, False))
    done(core)


def scatter_mask_golden(target, mem, dst, src, pat, col):
    out = mem.copy()
    t = dst.Element.itemsize
    f, pos = F[pat]
    if target != "cpu":
        out[dst.addr: dst.addr + dst.Rows * dst.Cols * t] = 0
        for i in range(src.valid_row):
            for j in range(src.valid_col):
                d = (i * dst.Cols + f * j + pos) if not col else ((f * i + pos) * dst.Cols + j)
                out[dst.addr + d * t: dst.addr + (d + 1) * t] = elem(mem, src, i, j)
        return out
    n = 0
    rows = src.valid_row if not col else dst.valid_row
    srow = 0
    for r in range(rows):
        if col and r % f != pos:
            for c in range(dst.valid_col):
                out[dst.addr + (r * dst.Cols + c) * t: dst.addr + (r * dst.Cols + c + 1) * t] = 0
            continue
        for c in range(dst.valid_col):
            a = dst.addr + (r * dst.Cols + c) * t
            if col:
                out[a: a + t] = elem(mem, src, srow, c)
            elif c % f == pos:
                out[a: a + t] = elem(mem, src, n // src.Cols, n % src.Cols)
                n += 1
            else:
                out[a: a + t] = 0
        srow += col
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pat", [P.P0101, P.P0010, P.P1000])
@pytest.mark.parametrize("col", [False, True])
def test_tscatter_mask(target, pat, col, backend):
    core = core_with(target, backend)
    f = F[pat][0]
    s = T("int32", 4, 16) if not col else T("int32", 3, 16)
    d = T("int32", 4, 16 * f) if not col else T("int32", 3 * f, 16)
    src, dst = place(core, s, d)
    before = ub(core)
    pto.TSCATTER[pat, pto.ScatterAxis.SCATTER_COL if col else pto.ScatterAxis.SCATTER_ROW](dst, src)
    assert np.array_equal(ub(core), scatter_mask_golden(target, before, dst, src, pat, col))
    done(core)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tscatter_mask_cpu_cursor_wraps_at_src_cols(backend):
    """The simulator reads src through one cursor that wraps at src's static Cols (not its valid
    width): with padding columns the NPUs' rows and the simulator's part ways."""
    core = core_with("cpu", backend)
    src, dst = place(core, T("int32", 2, 16, 2, 8), T("int32", 2, 16))
    before = ub(core)
    pto.TSCATTER[P.P0101](dst, src)
    assert np.array_equal(ub(core), scatter_mask_golden("cpu", before, dst, src, P.P0101, False))
    assert elem(ub(core), dst, 1, 0).tobytes() == elem(before, src, 0, 8).tobytes()   # padding column 8
    done(core)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tscatter_mask_a2a3_col_copies_two_bytes_per_int8(backend):
    core = core_with("a2a3", backend)
    src, dst = place(core, T("int8", 2, 32, 2, 8), T("int8", 4, 32, 4, 8))
    before = ub(core)
    pto.TSCATTER[P.P0101, pto.ScatterAxis.SCATTER_COL](dst, src)
    got = ub(core)
    for i in range(2):                                    # 16 bytes (2*VC) of each src row
        d = dst.addr + 2 * i * 32
        assert got[d: d + 16].tobytes() == before[src.addr + i * 32: src.addr + i * 32 + 16].tobytes()
    done(core)


# ---- the compare form --------------------------------------------------------------------------
def compare_golden(target, mem, dst, src, k, cdst, mode, offset):
    out = mem.copy()
    s = src.DType
    S = src.Element.itemsize
    vals = lambda r, W: np.frombuffer(bytes(mem[src.addr + r * src.Cols * S: src.addr + (r * src.Cols + W) * S]),  # noqa: E731
                                      src.Element)
    for i in range(src.valid_row):
        if target == "a2a3":
            W, stride = src.valid_col, src.Cols
            if s == "float32":
                kv = float(np.float32(int_at(mem, k.addr + 4 * i, 4, True)))
            elif s == "half":
                kv = float(np.float16(int_at(mem, k.addr + 2 * i, 2, True)))
            else:
                kv = int_at(mem, k.addr + i * k.Element.itemsize, k.Element.itemsize, k.Element.kind == "i")
            sv = vals(i, W).astype(np.float64 if s != "int32" else np.int64)
        else:
            E = 128 if S == 1 else 64
            stride = -(-src.valid_col // E) * E
            W = src.valid_col if s in ("float32", "int32", "uint32") else stride
            kr = int_at(mem, k.addr + i * k.Element.itemsize, k.Element.itemsize, False)
            v = vals(i, W)
            if s == "float32":
                sv, kv = np.clip(np.rint(np.nan_to_num(v.astype(np.float64))), -2**31, 2**31 - 1).astype(np.int64) \
                    & 0xFFFFFFFF, kr
            elif s == "half":
                sv, kv = v.astype(np.float64), float(((kr + 2**15) % 2**16) - 2**15)
            else:
                sv, kv = v.view(f"u{S}").astype(np.int64), kr
            if s == "uint16":
                mode = pto.CmpMode.EQ
        hit = np.flatnonzero(sv > kv if mode == pto.CmpMode.GT else sv == kv)
        for n, j in enumerate(hit):
            a = dst.addr + (i * dst.Cols + n) * 4
            out[a: a + 4] = np.frombuffer(((offset + i * stride + int(j)) & 0xFFFFFFFF).to_bytes(4, "little"), np.uint8)
        c = cdst.addr + i * cdst.Element.itemsize
        out[c: c + cdst.Element.itemsize] = np.frombuffer(len(hit).to_bytes(cdst.Element.itemsize, "little"), np.uint8)
    return out


@pytest.mark.parametrize("target, src_t, k_t, mode", [
    ("a2a3", "float32", "uint32", pto.CmpMode.GT), ("a2a3", "half", "uint16", pto.CmpMode.EQ),
    ("a2a3", "int32", "uint32", pto.CmpMode.EQ), ("a5", "float32", "uint32", pto.CmpMode.GT),
    ("a5", "float32", "uint32", pto.CmpMode.EQ),
    ("a5", "int16", "uint16", pto.CmpMode.GT), ("a5", "uint16", "uint16", pto.CmpMode.GT),
    ("a5", "half", "uint16", pto.CmpMode.EQ), ("a5", "int8", "uint16", pto.CmpMode.GT)])
@pytest.mark.parametrize("backend", BACKENDS)
def test_tgather_compare_form(target, src_t, k_t, mode, backend):
    core = core_with(target, backend)
    src, dst, k, cdst, tmp = place(core, T(src_t, 4, 64, 3, 40), T("int32", 4, 64), T(k_t, 16, 1, 3, 1, CM),
                                   T("int32", 8, 1, 3, 1, CM), T("uint8", 4, 256), gap=0x1000)
    rng = np.random.default_rng(5)
    v = rng.integers(0, 100, (4, 64)).astype(np.float64)
    v[:3, ::2] = np.array([[50], [30], [70]]) + rng.integers(-2, 3, (3, 32))    # around each row's k
    if "float" in src_t or src_t == "half":
        v += rng.choice([0.0, 0.4, 0.5, 0.6, -0.5, -0.6], v.shape)   # rounding and ties (A5 rounds floats)
    core.write("ub", src.addr, v.astype(src.Element).tobytes())  # padding columns too: A5 reads them
    core.write("ub", k.addr, np.array([50, 30, 70], k.Element).tobytes())
    before = ub(core)
    pto.TGATHER[mode](dst, src, k, cdst, tmp, 5)
    assert np.array_equal(ub(core)[:0x3000], compare_golden(target, before, dst, src, k, cdst, mode, 5)[:0x3000])
    done(core)


def test_tgather_compare_form_is_no_cpu_call():
    core = core_with("cpu", "numpy")
    src, dst, k, cdst, tmp = place(core, T("float32", 2, 16), T("int32", 2, 16), T("uint32", 8, 1, 2, 1, CM),
                                   T("int32", 8, 1, 2, 1, CM), T("uint8", 2, 32))
    with pytest.raises(pto.PtoCheckError, match="no TGATHER_IMPL for the compare form"):
        pto.TGATHER[pto.CmpMode.GT](dst, src, k, cdst, tmp, 0)
    done(core)


# ---- static checks -----------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_three_operand_index_gather_does_not_compile(target):
    """No TGATHER(dst, src0, indices) overload exists: the index form takes tmp."""
    core = core_with(target, "numpy")
    src, dst, ix = place(core, T("float32", 1, 32), T("float32", 2, 8), T("int32", 2, 8))
    with pytest.raises(pto.PtoCheckError, match="has no overload"):
        pto.TGATHER(dst, src, ix)
    done(core)


@pytest.mark.parametrize("target, data, index, match", [
    ("a2a3", "float32", "int16", "TGATHER expect b32"), ("a2a3", "int8", "int32", "expect b16/b32"),
    ("cpu", "float32", "int16", "TGATHER expect b32"), ("a5", "int64", "uint16", "b32 indices for b64 data"),
    ("a5", "float32", "int16", "ptogpu refuses the call"), ("a5", "int8", "int32", "ptogpu refuses the call")])
def test_tgather_index_static_checks(target, data, index, match):
    core = core_with(target, "numpy")
    src, dst, ix, tmp = place(core, T(data, 1, 64), T(data, 2, 32), T(index, 2, 32), T(index, 2, 32))
    before = ub(core)
    with pytest.raises(pto.PtoCheckError, match=match) as e:
        pto.TGATHER(dst, src, ix, tmp)
    assert f"[{target}]" in str(e.value)
    assert np.array_equal(ub(core), before)
    done(core)


@pytest.mark.parametrize("target, data, index, match", [
    ("a2a3", "int32", "int16", "Invalid data type of idx"), ("a2a3", "int64", "int32", "Invalid data type"),
    ("a5", "float32", "uint16", "Invalid data type of idx"), ("cpu", "float32", "float32", "integral")])
def test_tscatter_index_static_checks(target, data, index, match):
    core = core_with(target, "numpy")
    src, ix, dst = place(core, T(data, 2, 32), T(index, 2, 32), T(data, 2, 32))
    with pytest.raises(pto.PtoCheckError, match=match):
        pto.TSCATTER(dst, src, ix)
    done(core)


def test_mask_forms_under_npu_debug_builds_do_not_compile():
    core = core_with("a2a3", "numpy", quirks={"pto_debug_asserts": True})
    src, dst = place(core, T("int32", 4, 16), T("int32", 4, 32))
    with pytest.raises(pto.PtoCheckError, match="does not compile"):
        pto.TSCATTER[P.P0101](dst, src)
    src2, dst2 = place(core, T("int32", 8, 16), T("int32", 4, 16))
    with pytest.raises(pto.PtoCheckError, match="does not compile"):
        pto.TGATHER[P.P0101, pto.GatherAxis.GATHER_COL](dst2, src2)
    done(core)


def test_cpu_mask_forms_take_two_and_four_byte_scatter_only():
    core = core_with("cpu", "numpy")
    src, dst = place(core, T("int8", 2, 32), T("int8", 2, 64))
    with pytest.raises(pto.PtoCheckError, match="16 or 32-bit"):
        pto.TSCATTER[P.P0101](dst, src)
    done(core)


def test_a5_b64_gather_col_does_not_compile():
    core = core_with("a5", "numpy")
    src, dst = place(core, T("int64", 8, 16), T("int64", 4, 16))
    with pytest.raises(pto.PtoCheckError, match="supports row gather"):
        pto.TGATHER[P.P0101, pto.GatherAxis.GATHER_COL](dst, src)
    done(core)


def test_a_wrong_template_argument_is_a_check_error():
    core = core_with("a5", "numpy")
    src, dst = place(core, T("int32", 4, 16), T("int32", 4, 32))
    with pytest.raises(pto.PtoCheckError, match="template argument"):
        pto.TSCATTER[pto.GatherAxis.GATHER_ROW](dst, src)
    with pytest.raises(pto.PtoCheckError, match="does not match operand 0"):
        pto.TGATHER[T("half", 4, 32), T("int32", 4, 16), P.P0101](dst, src)
    done(core)


# ---- cores of N: per-instance indices ----------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("instr", ["tgather", "tscatter"])
def test_a_core_of_n_equals_n_single_cores(instr, target, backend):
    """Per-instance index tiles (some faulting) on a core of 6 against 6 single cores."""
    from ptogpu.execution.config import FuzzConfig
    from ptogpu.execution.rng import Generator
    from ptogpu.execution.single import run_instances, run_single
    cfg = FuzzConfig(instr=instr, target=target, dtype="int32", rows=2, cols=16, table_size=64, oob="undefined")
    vals = Generator("mixed", 3)(np.arange(6), cfg.n_idx, cfg.cap)
    out, faults = run_instances(cfg, vals, backend)
    for k in range(6):
        o, f = run_single(cfg, vals[k], "numpy")
        assert o.tobytes() == out[k].tobytes() and (f is None) == (faults[k] is None), k
        if f is not None:
            assert str(f) == str(faults[k]) and pto.errors.fault_code(f) == pto.errors.fault_code(faults[k])


@pytest.mark.parametrize("target", TARGETS)
def test_the_index_forms_run_their_kernels_on_native(target, monkeypatch):
    """Claims match execution: on native the index forms are tgather.cu's kernels (two passes
    each), not NumPy under the backend's name."""
    from ptogpu.isa.tgather import kernels as gk
    from ptogpu.isa.tscatter import kernels as sk
    ran = []
    for mod in (gk,):
        real = mod.launch_on
        monkeypatch.setattr(mod, "launch_on", lambda core, k, p, real=real, **kw: ran.append(k) or real(core, k, p, **kw))
    core = core_with(target, "native")
    src, dst, ix, tmp = place(core, T("int32", 2, 32), T("int32", 2, 32), T("int32", 2, 32), T("int32", 2, 32))
    ix.set(np.arange(64, dtype=np.int32).reshape(2, 32)[:, ::-1].copy())
    pto.TGATHER(dst, src, ix, tmp)
    pto.TSCATTER(dst, src, ix)
    wide = T("int32", 2, 64)()
    pto.TASSIGN(wide, 0x8000)
    pto.TGATHER[P.P0101](dst, wide)
    pto.TSCATTER[P.P1010](wide, src)
    if target != "cpu":
        k, cdst = T("uint32", 8, 1, 2, 1, CM)(), T("int32", 8, 1, 2, 1, CM)()
        pto.TASSIGN(k, 0x9000)
        pto.TASSIGN(cdst, 0x9100)
        pto.TGATHER[pto.CmpMode.EQ](ix, dst, k, cdst, tmp, 0)
    assert ran == ["tgather_index"] * 2 + ["tscatter_index"] * 2 + ["tile_mask"] * 4 + \
        (["tgather_cmp"] * 2 if target != "cpu" else [])
    done(core)


def test_the_kernels_parameter_blocks_are_typed_and_complete():
    """The launch plans fill every field of the kernel's enum, by name; a name the kernel does
    not have is an error (the Python side cannot drift from the .cu)."""
    from ptogpu.backend.kernels import ParamBlock
    from ptogpu.isa.tgather.kernels import params as gparams
    from ptogpu.isa.tscatter.kernels import params as sparams
    with pytest.raises(AttributeError, match="no field 'VRR'"):
        ParamBlock("tgather.cu", "GI_", VRR=1)
    for target in TARGETS:
        core = core_with(target, "numpy")
        src, dst, ix, tmp = place(core, T("half", 2, 32), T("half", 2, 32), T("int32", 2, 32), T("int32", 2, 32))
        assert gparams(core, dst, src, ix, tmp).unset() == []
        assert sparams(core, dst, src, ix).unset() == []
        done(core)


def test_a_kernel_campaign_names_tscatter_as_the_first_diverging_call(capsys):
    """examples/bucket_scatter.py (TLOAD, TSCATTER, TGATHER, TSTORE): A2/A3 and A5 part at the
    TSCATTER, explained by its collision rule; the reproducer shows that call."""
    import pathlib

    from ptogpu.fuzz import kernel
    ex = pathlib.Path(__file__).resolve().parents[1] / "examples" / "bucket_scatter.py"
    rep = kernel(f"{ex}:bucket_scatter", n=200, backend="numpy")
    assert {c.name: c.count for c in rep.classes.values()} == \
        {"call 3 TSCATTER at bucket_scatter.py:33: TSCATTER collision order": 200}
    c = next(iter(rep.classes.values()))
    exec(compile(c.reproducer, "repro", "exec"), {})
    assert f"first diverging call: {c.call}" in capsys.readouterr().out
    same = kernel(f"{ex}:bucket_scatter", pair="a5@native:a5@numpy", n=200, shrink=False)
    assert same.divergent == 0 and not same.classes


@pytest.mark.parametrize("backend", BACKENDS)
def test_cpu_tgather_in_place_runs_the_simulators_loop(backend):
    """dst is src0: the simulator's loop reads what it wrote a moment ago (program order)."""
    core = core_with("cpu", backend)
    t, ix, tmp = place(core, T("int32", 1, 16), T("int32", 1, 16), T("int32", 1, 16))
    ix.set(np.array([[1, 0, 0, 5, 3, 2, 9, 6, 7, 8, 15, 14, 13, 12, 11, 40]], np.int32))
    before = ub(core)
    want = before.copy()
    for c in range(16):                                   # the loop, one element at a time
        v = int_at(want, ix.addr + 4 * c, 4, True)
        want[t.addr + 4 * c: t.addr + 4 * c + 4] = want[t.addr + 4 * v: t.addr + 4 * v + 4] if 0 <= v < 16 else 0
    pto.TGATHER(t, t, ix, tmp)
    assert np.array_equal(ub(core), want)
    done(core)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cpu_tscatter_into_its_own_indices_runs_the_simulators_loop(backend):
    """dst covers the index tile: an early write changes a later index."""
    core = core_with("cpu", backend)
    src, ix = place(core, T("int32", 1, 8), T("int32", 1, 8))
    dst = T("int32", 1, 64)()
    pto.TASSIGN(dst, ix.addr)                            # dst starts at the indices
    ix.set(np.array([[3, 2, 9, 1, 0, 5, 6, 7]], np.int32))
    src.set(np.array([[10, 20, 30, 40, 50, 60, 70, 80]], np.int32))
    before = ub(core)
    want = before.copy()
    for j in range(8):
        k = int_at(want, ix.addr + 4 * j, 4, True) & 0xFFFFFFFF
        want[dst.addr + 4 * k: dst.addr + 4 * k + 4] = want[src.addr + 4 * j: src.addr + 4 * j + 4]
    pto.TSCATTER(dst, src, ix)
    assert np.array_equal(ub(core), want)
    done(core)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a2a3_tscatter_loop_reads_its_own_clear_and_writes(backend):
    """A2/A3 zeroes dst, then runs a scalar loop: with dst over the indices, the loop reads the
    zeros and its own earlier writes."""
    core = core_with("a2a3", backend)
    src, ix = place(core, T("int32", 1, 8), T("int32", 1, 8))
    dst = T("int32", 1, 16)()
    pto.TASSIGN(dst, ix.addr)
    ix.set(np.array([[3, 2, 9, 1, 0, 5, 6, 7]], np.int32))
    src.set(np.array([[10, 20, 30, 40, 50, 60, 70, 80]], np.int32))
    before = ub(core)
    want = before.copy()
    want[dst.addr: dst.addr + 64] = 0
    for j in range(8):
        k = int_at(want, ix.addr + 4 * j, 4, True)
        want[dst.addr + 4 * k: dst.addr + 4 * k + 4] = want[src.addr + 4 * j: src.addr + 4 * j + 4]
    pto.TSCATTER(dst, src, ix)
    assert np.array_equal(ub(core), want)
    done(core)
