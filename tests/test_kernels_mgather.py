"""MGATHER kernels (cuda_src/mgather.cu) against the NumPy backend, byte for byte.

Every case is built twice from the same seed -- once on a ``numpy`` core, once on a kernel
core (``native`` here: the .cu source compiled for the CPU through the host shim; ``cupy``
in the ``gpu``-marked tests) -- and run; then every arena is compared as raw bytes, and a
fault must be the same fault (type and message) with nothing written on either side.
UB/L1 start filled with random bytes so a stray write cannot hide.
"""
from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.backend import backend_available
from ptogpu.isa.mgather import kernels as mgather_kernels

V, M = pto.TileType.Vec, pto.TileType.Mat
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
NB, SRM, SCM = pto.SLayout.NoneBox, pto.SLayout.RowMajor, pto.SLayout.ColMajor
ROW, ELEM = pto.Coalesce.Row, pto.Coalesce.Elem
OOBS = tuple(pto.GatherOOB)
I32_ADV = (-1, -(2 ** 31), 2 ** 31 - 1, 2 ** 32 - 1)      # as bits: 0xFFFFFFFF, 0x80000000, ...

A5_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "half", "bfloat16", "float32",
            "hifloat8", "float8_e4m3", "float8_e5m2")
A2A3_TYPES = A5_TYPES[:9]
CPU_TYPES = A5_TYPES + ("int64", "uint64")
CPU_IDX = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")

NATIVE_OK, NATIVE_WHY = backend_available("native")
needs_native = pytest.mark.skipif(not NATIVE_OK, reason=f"native backend unavailable: {NATIVE_WHY}")


def _cupy_ok():
    try:
        return backend_available("cupy")
    except Exception as e:  # pragma: no cover
        return False, str(e)


# ---------------------------------------------------------------------------------------------
# The harness
# ---------------------------------------------------------------------------------------------
def _round(n: int, m: int) -> int:
    return -(-n // m) * m


def _tile(dtype, rows, cols, addr, bl=RM, vr=None, vc=None, sl=NB, loc=V):
    T = pto.Tile[loc, dtype, rows, cols, bl, rows if vr is None else vr,
                 cols if vc is None else vc, sl, 512]
    t = T()
    pto.TASSIGN(t, addr)
    return t


def _gt(core, raw: np.ndarray, dtype, shape, stride, layout=pto.Layout.ND, extra=None):
    """A GlobalTensor over the bytes ``raw`` (with ``extra`` bytes after it in GM)."""
    size = np.dtype(pto.dtypes.storage(dtype)).itemsize
    ptr = core.gm_alloc(len(raw) // size + (0 if extra is None else len(extra) // size + 1), dtype)
    core.write("gm", ptr.addr, raw)
    if extra is not None:
        core.write("gm", ptr.addr + len(raw), extra)
    T = pto.GlobalTensor[dtype, pto.Shape[tuple(shape)], pto.Stride[tuple(stride)], layout]
    return T(ptr)


def run_both(build, seed: int, backend: str = "native"):
    """Run ``build(core, rng)`` (it sets memory up and issues MGATHER) on numpy and on
    ``backend`` from the same seed; assert identical results. Returns (outcome, kernel_ran)."""
    out = []
    launches = []
    for be in ("numpy", backend):
        core = pto.Core(build.target, be)
        rng = np.random.default_rng(seed)
        core.write("ub", 0, rng.integers(0, 256, core.ub.size, dtype=np.uint8))
        core.write("l1", 0, rng.integers(0, 256, core.l1.size, dtype=np.uint8))
        err = None
        with core, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            orig = mgather_kernels.launch_on

            def counting(core_, kernel, *a, _o=orig, **kw):
                launches.append(kernel)
                return _o(core_, kernel, *a, **kw)

            mgather_kernels.launch_on = counting
            try:
                build(core, rng)
            except pto.PtoError as e:
                err = e
            finally:
                mgather_kernels.launch_on = orig
        out.append((core, err))
    (c0, e0), (c1, e1) = out
    assert type(e0) is type(e1), f"seed {seed}: numpy raised {e0!r}, {backend} raised {e1!r}"
    if e0 is not None:
        assert str(e0) == str(e1), f"seed {seed}: fault messages differ"
    for space in ("gm", "ub", "l1"):
        a, b = c0.arena(space), c1.arena(space)
        assert a.size == b.size
        if not np.array_equal(a.data, b.data):
            diff = np.flatnonzero(a.data != b.data)
            raise AssertionError(f"seed {seed}: {space} differs at {len(diff)} bytes, first "
                                 f"{diff[:8]}: numpy {a.data[diff[:8]]} vs {backend} "
                                 f"{b.data[diff[:8]]}")
    return ("fault" if e0 is not None else "ok"), bool(launches)


def case(target):
    def deco(fn):
        fn.target = target
        return fn
    return deco


def _indices(rng, n, cap, oob, dtype="int32", slack=0):
    """In-range, just-out-of-range (read from `slack` extra GM) and adversarial indices."""
    dt = np.dtype(pto.dtypes.storage(dtype))
    kind = rng.integers(0, 10, n)
    v = rng.integers(0, max(cap, 1), n).astype(np.int64)
    if oob != pto.GatherOOB.Undefined or rng.random() < 0.3:
        adv = np.array(I32_ADV + (cap, cap + 1, 2 ** 32 + 3), np.int64)
        pick = kind >= 8
        v[pick] = adv[rng.integers(0, len(adv), pick.sum())]
    if slack:
        pick = kind == 7
        v[pick] = cap + rng.integers(0, slack, pick.sum())
    if dt.itemsize == 8:
        return v.astype(np.int64).view(dt)
    if dt.kind == "u":
        return (v % (1 << (8 * dt.itemsize))).astype(dt)
    bits = 8 * dt.itemsize
    w = v % (1 << bits)
    w = np.where(w >= 1 << (bits - 1), w - (1 << bits), w)
    return w.astype(dt)


def _rand_bytes(rng, n, dtype):
    """Random bytes, with NaN payloads planted for the float types."""
    raw = rng.integers(0, 256, n, dtype=np.uint8)
    name = pto.dtypes.name_of(dtype)
    if name in ("float32",):
        v = raw.view(np.uint32)
        v[::5] = 0x7FC00001 + rng.integers(0, 1000, v[::5].size).astype(np.uint32)
        v[1::7] = 0x7F800001                                   # signalling NaN payload
    elif name in ("half", "bfloat16"):
        v = raw.view(np.uint16)
        v[::5] = (0x7E01 if name == "half" else 0x7FC1) + rng.integers(0, 50, v[::5].size).astype(np.uint16)
    elif name in ("float8_e4m3", "float8_e5m2", "hifloat8"):
        raw[::5] = {"float8_e4m3": 0x7F, "float8_e5m2": 0x7D, "hifloat8": 0x80}[name]
    return raw


# ---------------------------------------------------------------------------------------------
# Random case builders, one per target family
# ---------------------------------------------------------------------------------------------
def build_a5(mode, oob, dtype):
    @case("a5")
    def build(core, r):
        size = np.dtype(pto.dtypes.storage(dtype)).itemsize
        c0 = 32 // size
        big = r.random() < 0.15
        VR = int(r.integers(1, 48 if big else 34))
        VC = int(r.integers(1, 70 if big else 40))
        if r.random() < 0.1:
            VR, VC = 1, 1
        dbl = CM if r.random() < 0.4 else RM
        rows = _round(VR, c0) if dbl == CM else VR + int(r.integers(0, 3))
        cols = VC + int(r.integers(0, 3)) if dbl == CM else _round(VC, c0)
        if mode == ROW:
            TR = int(r.integers(1, 40))
            n = TR * VC
            table = _gt(core, _rand_bytes(r, n * size, dtype), dtype, (1, 1, 1, TR, VC),
                        (n, n, n, VC, 1), extra=_rand_bytes(r, 64 * size * VC, dtype))
            cap = TR
            if r.random() < 0.5:
                it = _tile("int32" if r.random() < 0.7 else "uint32", 1, _round(VR, 8), 0,
                           RM, 1, VR)
            else:
                it = _tile("int32", _round(VR, 8), 1, 0, CM, VR, 1)
            idx = _indices(r, VR, cap, oob, it.DType, slack=60).reshape(it.valid_row, it.valid_col)
        else:
            n = int(r.integers(1, 300))
            shp = (1, 1, 1, 1, n) if r.random() < 0.5 else (1, 1, 1, n, 1)
            table = _gt(core, _rand_bytes(r, n * size, dtype), dtype, shp,
                        (n, n, n, shp[4], 1), extra=_rand_bytes(r, 64 * size, dtype))
            cap = n
            ibl = CM if r.random() < 0.4 else RM
            irows = _round(VR, 8) if ibl == CM else VR
            icols = VC if ibl == CM else _round(VC, 8)
            it = _tile("int32" if r.random() < 0.7 else "uint32", irows, icols, 0, ibl, VR, VC)
            idx = _indices(r, VR * VC, cap, oob, it.DType, slack=60).reshape(VR, VC)
        it.set(idx)
        dst = _tile(dtype, rows, cols, _round(it.nbytes, 32) + 32 * int(r.integers(0, 3)),
                    dbl, VR, VC)
        pto.MGATHER[mode, oob](dst, table, it)
    return build


def build_a2a3(mode, oob, dtype):
    @case("a2a3")
    def build(core, r):
        size = np.dtype(pto.dtypes.storage(dtype)).itemsize
        c0 = 32 // size
        VR = int(r.integers(1, 40))
        VC = int(r.integers(1, 60))
        cols = _round(VC, c0) + c0 * int(r.integers(0, 2))
        if mode == ROW:
            TR = int(r.integers(1, 30))
            s3 = VC + int(r.integers(0, 5))
            shp = (1, 1, 1, TR, VC) if r.random() < 0.6 else (2, 1, 1, TR, VC)
            n = shp[0] * TR * s3
            table = _gt(core, _rand_bytes(r, n * size, dtype), dtype, shp,
                        (TR * s3, TR * s3, TR * s3, s3, 1), extra=_rand_bytes(r, 40 * s3 * size, dtype))
            cap = shp[0] * TR
            it = _tile("int32" if r.random() < 0.7 else "uint32", 1, _round(VR, 8), 0, RM, 1, VR)
            idx = _indices(r, VR, cap, oob, it.DType, slack=30).reshape(1, VR)
        else:
            n = int(r.integers(1, 300))
            table = _gt(core, _rand_bytes(r, n * size, dtype), dtype, (1, 1, 1, 1, n),
                        (n, n, n, n, 1), extra=_rand_bytes(r, 64 * size, dtype))
            it = _tile("int32" if r.random() < 0.7 else "uint32", VR, _round(VC, 8), 0, RM, VR, VC)
            idx = _indices(r, VR * VC, n, oob, it.DType, slack=60).reshape(VR, VC)
        it.set(idx)
        dst = _tile(dtype, VR + int(r.integers(0, 3)), cols, _round(it.nbytes, 32), RM, VR, VC)
        pto.MGATHER[mode, oob](dst, table, it)
    return build


def build_a2a3_nz(mode, oob, dtype):
    @case("a2a3")
    def build(core, r):
        size = np.dtype(pto.dtypes.storage(dtype)).itemsize
        c0 = 32 // size
        S0, S1, S2 = int(r.integers(1, 3)), int(r.integers(1, 4)), int(r.integers(1, 4))
        ncols = S0 * S1 * c0
        nrows = S2 * 16
        n = S0 * S1 * S2 * 16 * c0
        table = _gt(core, _rand_bytes(r, n * size, dtype), dtype, (S0, S1, S2, 16, c0),
                    (S1 * S2 * 16 * c0, S2 * 16 * c0, 16 * c0, c0, 1), pto.Layout.NZ,
                    extra=_rand_bytes(r, 256 * size, dtype))
        rows = 16 * int(r.integers(1, 3))
        VR = int(r.integers(1, rows + 1))
        VC = int(r.integers(1, ncols + 1)) if mode == ELEM else ncols
        if mode == ROW:
            it = _tile("int32", 1, _round(VR, 8), 0, RM, 1, VR)
            idx = _indices(r, VR, nrows, oob, "int32", slack=4).reshape(1, VR)
        else:
            it = _tile("int32" if r.random() < 0.7 else "uint32", VR, _round(VC, 8), 0, RM, VR, VC)
            idx = _indices(r, VR * VC, nrows * ncols, oob, it.DType, slack=8).reshape(VR, VC)
        it.set(idx)
        dst = _tile(dtype, rows, ncols, _round(it.nbytes, 32), CM, VR, VC, SRM)
        pto.MGATHER[mode, oob](dst, table, it)
    return build


_BOXES = [(RM, NB), (CM, NB), (CM, SRM), (RM, SCM), (RM, SRM), (CM, SCM)]


def _cpu_tile(r, dtype, VR, VC, addr, loc=V, boxes=_BOXES):
    size = np.dtype(pto.dtypes.storage(dtype)).itemsize
    c0 = 32 // size
    bl, sl = boxes[int(r.integers(0, len(boxes)))]
    if sl == NB:
        rows = _round(VR, c0) if bl == CM else VR + int(r.integers(0, 2))
        cols = VC if bl == CM else _round(VC, c0)
    else:
        ir, ic = (16, c0) if sl == SRM else (c0, 16)
        rows, cols = _round(VR, ir), _round(VC, ic)
    return _tile(dtype, rows, cols, addr, bl, VR, VC, sl, loc)


def build_cpu(mode, oob, dtype):
    @case("cpu")
    def build(core, r):
        size = np.dtype(pto.dtypes.storage(dtype)).itemsize
        VR, VC = int(r.integers(1, 24)), int(r.integers(1, 40))
        idt = CPU_IDX[int(r.integers(0, len(CPU_IDX)))]
        gm_index = r.random() < 0.15
        if mode == ROW:
            TR = int(r.integers(1, 30))
            s4 = int(r.integers(1, 3))
            s3 = VC * s4 + int(r.integers(0, 4))
            n = TR * s3
            table = _gt(core, _rand_bytes(r, n * size, dtype), dtype, (1, 1, 1, TR, VC),
                        (n, n, n, s3, s4), extra=_rand_bytes(r, 30 * s3 * size, dtype))
            cap = TR
            nidx = VR
        else:
            n = int(r.integers(1, 300))
            table = _gt(core, _rand_bytes(r, n * size, dtype), dtype, (1, 1, 1, 1, n),
                        (n, n, n, n, 1), extra=_rand_bytes(r, 64 * size, dtype))
            cap = n
            nidx = VR * VC
        isz = np.dtype(pto.dtypes.storage(idt)).itemsize
        if gm_index:
            vals = _indices(r, nidx, cap, oob, idt, slack=20)
            if mode == ROW:
                it = _gt(core, vals.view(np.uint8), idt, (1, 1, 1, 1, VR), (VR, VR, VR, VR, 1))
            else:
                it = _gt(core, vals.view(np.uint8), idt, (1, 1, 1, VR, VC),
                         (VR * VC, VR * VC, VR * VC, VC, 1))
            dst_addr = 0
        else:
            if mode == ROW:
                it = _tile(idt, 1, _round(VR, 32 // isz), 0, RM, 1, VR)
                it.set(_indices(r, VR, cap, oob, idt, slack=20).reshape(1, VR))
            else:
                it = _cpu_tile(r, idt, VR, VC, 0)
                it.set(_indices(r, VR * VC, cap, oob, idt, slack=20).reshape(VR, VC))
            dst_addr = _round(it.nbytes, 32)
        loc = M if r.random() < 0.2 else V
        dst = _cpu_tile(r, dtype, VR, VC, 0 if loc == M else dst_addr, loc,
                        boxes=_BOXES if loc == V else [(RM, NB), (CM, SRM), (RM, SCM)])
        pto.MGATHER[mode, oob](dst, table, it)
    return build


FAMILIES = {
    "a5": (build_a5, A5_TYPES),
    "a2a3": (build_a2a3, A2A3_TYPES),
    "a2a3_nz": (build_a2a3_nz, A2A3_TYPES),
    "cpu": (build_cpu, CPU_TYPES),
}


# ---------------------------------------------------------------------------------------------
# Tests: random batches
# ---------------------------------------------------------------------------------------------
@needs_native
@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("mode", [ROW, ELEM], ids=["Row", "Elem"])
@pytest.mark.parametrize("oob", OOBS, ids=[o.name for o in OOBS])
def test_native_matches_numpy_random(family, mode, oob):
    builder, types = FAMILIES[family]
    outcomes = {"ok": 0, "fault": 0}
    ran = 0
    n = 64
    for k in range(n):
        seed = zlib.crc32(f"{family}/{mode.name}/{oob.name}/{k}".encode())
        dtype = types[k % len(types)]
        res, kernel = run_both(builder(mode, oob, dtype), seed)
        outcomes[res] += 1
        ran += kernel
    assert outcomes["ok"] > 0, outcomes
    assert ran >= n // 2, f"the kernel ran in only {ran} of {n} cases"


# ---------------------------------------------------------------------------------------------
# Tests: the spec cases
# ---------------------------------------------------------------------------------------------
def test_a5_launch_geometry_matches_spec_examples():
    """mgather.md §5.3: 8x32 -> 8 warps; 16x64 -> 32; 3x8 -> 3; 64x16 -> 32. §5.4: clamp."""
    g = mgather_kernels
    assert [g.row_launch_warps(*s) for s in ((8, 32), (16, 64), (3, 8), (64, 16), (0, 5))] == \
        [8, 32, 3, 32, 1]
    assert [g.elem_launch_warps(n) for n in (0, 1, 32, 33, 1024, 1025, 5000)] == \
        [1, 1, 1, 2, 32, 32, 32]


def _spec_build(target, mode, oob, VR, VC, dtype="float32", dst_bl=RM, idx_cm=False, idx_vals=None):
    @case(target)
    def build(core, r):
        size = np.dtype(pto.dtypes.storage(dtype)).itemsize
        c0 = 32 // size
        TR = 37
        if mode == ROW:
            n = TR * VC
            table = _gt(core, _rand_bytes(r, n * size, dtype), dtype, (1, 1, 1, TR, VC),
                        (n, n, n, VC, 1), extra=_rand_bytes(r, 8 * VC * size, dtype))
            if idx_cm:
                it = _tile("int32", _round(VR, 8), 1, 0, CM, VR, 1)
            else:
                it = _tile("int32", 1, _round(VR, 8), 0, RM, 1, VR)
            vals = np.resize(np.array(idx_vals if idx_vals is not None else
                                      [3, -1, TR, 2 ** 31 - 1, 0, TR - 1, -(2 ** 31), 40]),
                             VR)
            it.set(vals.astype(np.int64).astype(np.int32).reshape(it.valid_row, it.valid_col))
        else:
            n = 301
            table = _gt(core, _rand_bytes(r, n * size, dtype), dtype, (1, 1, 1, 1, n),
                        (n, n, n, n, 1), extra=_rand_bytes(r, 64 * size, dtype))
            it = _tile("int32", VR, _round(VC, 8), 0, RM, VR, VC)
            vals = np.resize(np.array(idx_vals if idx_vals is not None else
                                      [5, n, -1, 300, 2 ** 31 - 1, 7, -(2 ** 31), 320, 1]),
                             VR * VC)
            it.set(vals.astype(np.int64).astype(np.int32).reshape(VR, VC))
        rows = _round(VR, c0) if dst_bl == CM else VR
        cols = VC if dst_bl == CM else _round(VC, c0)
        dst = _tile(dtype, rows, cols, _round(it.nbytes, 32), dst_bl, VR, VC)
        pto.MGATHER[mode, oob](dst, table, it)
    return build


SPEC_SHAPES = [(8, 32), (16, 64), (3, 8), (64, 16), (1, 1), (40, 33), (33, 40)]


@needs_native
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("mode", [ROW, ELEM], ids=["Row", "Elem"])
@pytest.mark.parametrize("oob", OOBS, ids=[o.name for o in OOBS])
def test_native_matches_numpy_spec_shapes(target, mode, oob):
    for k, (VR, VC) in enumerate(SPEC_SHAPES):
        for dst_bl in ((RM, CM) if target != "a2a3" else (RM,)):
            idx_cm = target == "a5" and mode == ROW and k % 2 == 1
            run_both(_spec_build(target, mode, oob, VR, VC, "bfloat16" if k % 2 else "float32",
                                 dst_bl, idx_cm), 1000 + k)


@needs_native
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("mode", [ROW, ELEM], ids=["Row", "Elem"])
def test_native_fault_is_the_numpy_fault_and_writes_nothing(target, mode):
    """Undefined + an index far past GM: a PtoFault with NumPy's message; no byte changes."""
    seen = []
    for be in ("numpy", "native"):
        core = pto.Core(target, be)
        with core:
            r = np.random.default_rng(7)
            core.write("ub", 0, r.integers(0, 256, core.ub.size, dtype=np.uint8))
            VR, VC = 12, 40
            n = 50 * VC
            table = _gt(core, _rand_bytes(r, n * 4, "float32"), "float32", (1, 1, 1, 50, VC),
                        (n, n, n, VC, 1))
            if mode == ROW:
                it = _tile("int32", 1, 16, 0, RM, 1, VR)
                it.set(np.array([[1, 2, 3, 4, 5, 6, 7, 8, 9, 2 ** 31 - 1, 10, -1]], np.int32))
            else:
                it = _tile("int32", VR, VC, 0, RM, VR, VC)
                v = np.arange(VR * VC, dtype=np.int32).reshape(VR, VC)
                v[5, 7], v[9, 1] = 2 ** 31 - 1, -1
                it.set(v)
            dst = _tile("float32", VR, VC, 4096, RM, VR, VC)
            before = [core.arena(s).data.copy() for s in ("gm", "ub", "l1")]
            with pytest.raises(pto.PtoFault) as ei:
                pto.MGATHER[mode, pto.GatherOOB.Undefined](dst, table, it)
            for s, b in zip(("gm", "ub", "l1"), before):
                assert np.array_equal(core.arena(s).data, b), f"{be}: {s} changed on a fault"
            seen.append(str(ei.value))
    assert seen[0] == seen[1]
    assert "table read" in seen[0]


@needs_native
@pytest.mark.parametrize("mode", [ROW, ELEM], ids=["Row", "Elem"])
@pytest.mark.parametrize("oob", OOBS, ids=[o.name for o in OOBS])
def test_native_matches_numpy_nz_adversarial_dims(mode, oob):
    """A2/A3 NZ tables whose gShape/gStride do not fit 32 bits (read as int) or are 0."""
    for k, (shape, stride) in enumerate([
        ((1, 2, 2, 16, 8), (2 ** 32 + 512, 512, 128, 8, 1)),
        ((1, 2 ** 32 + 2, 2, 16, 8), (512, 256, 128, 8, 1)),
        ((2, 0, 1, 16, 8), (256, 128, 128, 8, 1)),
        ((1, 2, 1, 16, 8), (-512, -128, 128, 8, 1)),
        ((2 ** 31 + 1, 1, 1, 16, 8), (128, 128, 128, 8, 1)),
    ]):
        @case("a2a3")
        def build(core, r, shape=shape, stride=stride):
            table = _gt(core, _rand_bytes(r, 4 * 4096, "float32"), "float32", shape, stride,
                        pto.Layout.NZ)
            VR = 16
            VC = 16 if mode == ROW else 13
            if mode == ROW:
                it = _tile("int32", 1, 16, 0, RM, 1, VR)
                it.set(_indices(r, VR, 32, oob).reshape(1, VR))
            else:
                it = _tile("int32", VR, 16, 0, RM, VR, VC)
                it.set(_indices(r, VR * VC, 512, oob).reshape(VR, VC))
            dst = _tile("float32", 16, 16, 2048, CM, VR, VC, SRM)
            pto.MGATHER[mode, oob](dst, table, it)
        run_both(build, 77 + k)


@needs_native
def test_spec_suites_pass_on_native(tmp_path):
    """The MGATHER spec tests (goldens from the spec, written for NumPy) pass unchanged when
    every Core runs on the native kernels."""
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    files = [f for f in ("test_mgather_ub.py", "test_mgather_oob.py", "test_mgather_nz.py",
                         "test_mgather_l1.py", "test_mgather_checks.py")
             if os.path.exists(os.path.join(here, f))]
    if not files:
        pytest.skip("no MGATHER spec test files here")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([here, os.path.dirname(here), env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                          "-p", "native_as_numpy_plugin", *files], cwd=here, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]


def test_auto_picks_cupy_else_native_else_numpy_and_says_why(monkeypatch):
    from ptogpu import backend as B
    core = pto.Core("a5", "auto")
    cupy_ok, cupy_why = _cupy_ok()
    if cupy_ok:
        assert core.backend == "cupy"
    elif NATIVE_OK:
        assert core.backend == "native"
        assert "native" in core.backend_reason and "cupy unusable" in core.backend_reason
    assert core.backend_reason.startswith("auto:")
    # no device, no compiler: numpy, with both reasons
    monkeypatch.setattr(B, "backend_available",
                        lambda name: (False, f"{name} missing (test)"))
    name, why = B.resolve_backend("auto")
    assert name == "numpy" and "cupy missing (test)" in why and "native missing (test)" in why


@needs_native
def test_native_core_runs_other_instructions_on_numpy():
    with pto.Core("a5", "native") as core:
        assert core.backend == "native"
        src = core.gm_put(np.arange(64, dtype=np.float32))
        gt = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 2, 32], pto.Stride[64, 64, 64, 32, 1]](src)
        t = _tile("float32", 2, 32, 0)
        pto.TLOAD(t, gt)
        assert np.array_equal(t.numpy(), np.arange(64, dtype=np.float32).reshape(2, 32))


def test_unknown_kernel_backend_reason_when_unavailable(monkeypatch):
    from ptogpu.backend import native_backend
    monkeypatch.setattr(native_backend, "_libs", {})
    monkeypatch.setattr(native_backend, "_error", "no C++ compiler found (test)")
    with pytest.raises(pto.PtoError, match="not available here: no C\\+\\+ compiler"):
        pto.Core("a5", "native")


# ---------------------------------------------------------------------------------------------
# GPU: the same comparisons on CuPy (skipped where no CUDA device answers)
# ---------------------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("mode", [ROW, ELEM], ids=["Row", "Elem"])
@pytest.mark.parametrize("oob", OOBS, ids=[o.name for o in OOBS])
def test_cupy_matches_numpy_random(family, mode, oob):
    ok, why = _cupy_ok()
    if not ok:
        pytest.skip(f"cupy backend unavailable: {why}")
    builder, types = FAMILIES[family]
    for k in range(8):
        seed = zlib.crc32(f"gpu/{family}/{mode.name}/{oob.name}/{k}".encode())
        run_both(builder(mode, oob, types[k % len(types)]), seed, backend="cupy")


@pytest.mark.gpu
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("mode", [ROW, ELEM], ids=["Row", "Elem"])
@pytest.mark.parametrize("oob", OOBS, ids=[o.name for o in OOBS])
def test_cupy_matches_numpy_spec_shapes(target, mode, oob):
    ok, why = _cupy_ok()
    if not ok:
        pytest.skip(f"cupy backend unavailable: {why}")
    for k, (VR, VC) in enumerate(SPEC_SHAPES):
        run_both(_spec_build(target, mode, oob, VR, VC), 2000 + k, backend="cupy")


# ---------------------------------------------------------------------------------------------
# The batch interface (instances over blocks, per-instance arena and parameter strides)
# ---------------------------------------------------------------------------------------------
@needs_native
@pytest.mark.parametrize("target,mode", [("a5", ELEM), ("a5", ROW), ("a2a3", ROW), ("cpu", ELEM)])
@pytest.mark.parametrize("grid", [None, 3, 1])   # (native: one block, or 3, of contiguous instance ranges)
def test_native_batch_of_instances_matches_numpy_one_by_one(target, mode, grid):
    """N instances in one launch, each with its own UB (stride = UB size) and a shared GM
    table: every instance equals a NumPy run of its own index tile; an instance whose index
    faults has its own fault record and writes nothing, the others are unaffected."""
    from ptogpu.backend import native_backend
    N, VR, VC = 7, 5, 24
    rng = np.random.default_rng(3)
    table_bytes = _rand_bytes(rng, 40 * VC * 4, "float32")
    idx_sets = [rng.integers(0, 40, (VR, VC) if mode == ELEM else (1, VR)).astype(np.int32)
                for _ in range(N)]
    idx_sets[4][0, 1] = 2 ** 31 - 1                      # instance 4 faults (Undefined)
    ub_init = rng.integers(0, 256, 8192, dtype=np.uint8)

    def setup(core, idx_vals):
        core.write("ub", 0, ub_init)
        table = _gt(core, table_bytes, "float32", (1, 1, 1, 40, VC), (40 * VC, 40 * VC, 40 * VC, VC, 1))
        if mode == ELEM:
            it = _tile("int32", VR, VC, 0, RM, VR, VC)
        else:
            it = _tile("int32", 1, 8, 0, RM, 1, VR)
        it.set(idx_vals)
        dst = _tile("float32", VR, VC, 1024, RM, VR, VC)
        return table, it, dst

    expect = []
    for k in range(N):
        with pto.Core(target, "numpy") as c:
            table, it, dst = setup(c, idx_sets[k])
            try:
                pto.MGATHER[mode, pto.GatherOOB.Undefined](dst, table, it)
                err = None
            except pto.PtoFault as e:
                err = str(e)
            expect.append((c.ub.data[:8192].copy(), err))
    assert expect[4][1] is not None and all(e is None for k, (_, e) in enumerate(expect) if k != 4)
    with pto.Core(target, "native") as c:
        table, it, dst = setup(c, idx_sets[0])
        plan = mgather_kernels.plan_mgather(c, mode, pto.GatherOOB.Undefined, dst, table, it)
        ub = np.concatenate([c.ub.data[:8192].copy() for _ in range(N)])
        for k in range(N):
            ub[k * 8192: k * 8192 + it.nbytes] = np.pad(
                idx_sets[k].reshape(-1), (0, it.Numel - idx_sets[k].size)).view(np.uint8)
        gm = c.gm._buf
        faults = native_backend.launch_raw(
            plan.kernel, plan.block, N, {"gm": (gm, c.gm.size, 0), "ub": (ub, 8192, 8192),
                                         "l1": (np.zeros(1, np.uint8), 0, 0)},
            plan.params, passes=plan.passes, grid=grid)
        for k in range(N):
            got = ub[k * 8192:(k + 1) * 8192]
            want, err = expect[k]
            if err is None:
                assert int(faults[k, 0]) == 2 ** 64 - 1
                assert np.array_equal(got[1024:], want[1024:]), f"instance {k}"
            else:
                msg = str(mgather_kernels._fault(c, plan, faults[k], mode, pto.GatherOOB.Undefined,
                                                 dst, it))
                assert msg == err
                assert np.array_equal(got[1024:], ub_init[1024:]), f"instance {k} wrote on a fault"


# ---------------------------------------------------------------------------------------------
# The cupy glue without a GPU: a stand-in "cupy" whose RawModule runs the host-shim build
# ---------------------------------------------------------------------------------------------
class _FakeCupy:
    """Just enough of cupy for cupy_backend: NVRTC records the options and "compiles" a file
    naming the source, RawModule(path=) loads it, device arrays are NumPy copies, and a kernel
    call forwards the exact argument tuple to the native host_<kernel> entry point, refusing a
    block wider than a real device would launch (the kernel's __launch_bounds__)."""
    __version__ = "fake"
    uint64 = np.uint64

    def __init__(self):
        self.compiled = []                  # the option lists NVRTC was given
        self.loaded = []                    # the files RawModule loaded
        fake = self

        class _Runtime:
            @staticmethod
            def getDeviceCount():
                return 1

            @staticmethod
            def getDeviceProperties(i):
                return {"name": b"host shim"}

        class _Device:
            id = 0
            compute_capability = "90"

        class _Nvrtc:
            @staticmethod
            def getVersion():
                return (13, 0)

            @staticmethod
            def getSupportedArchs():
                return [75, 80, 86, 89, 90]

            @staticmethod
            def createProgram(code, name, headers, include_names):
                assert '#include "' not in code
                return {"code": code, "name": name}

            @staticmethod
            def compileProgram(prog, opts):
                fake.compiled.append(tuple(opts))
                prog["arch"] = next(o for o in opts if o.startswith("-arch="))

            @staticmethod
            def getCUBIN(prog):
                assert prog["arch"].startswith("-arch=sm_")
                return b"\x7fELF fake cubin of " + prog["name"].encode()

            @staticmethod
            def getProgramLog(prog):
                return ""

            @staticmethod
            def destroyProgram(prog):
                pass

        class _Cuda:
            runtime = _Runtime
            Device = _Device
            nvrtc = _Nvrtc

        class RawModule:
            def __init__(self, *, path):
                with open(path, "rb") as f:
                    assert f.read().startswith(b"\x7fELF fake cubin of ")
                fake.loaded.append(path)

            def get_function(self, name):
                import re
                from ptogpu.backend import native_backend, sources
                host = native_backend.host_fn(name)
                text = sources.expanded(sources.source_dir() / sources.kernel_file(name))
                bound = re.search(rf"__launch_bounds__\((\d+)\) (?:{name}|name)\(", text)

                def call(grid, block, args):
                    assert len(grid) == 1 and len(block) == 3
                    assert block[0] * block[1] * block[2] <= int(bound.group(1)), (name, block)
                    conv = []
                    for a in args:
                        if isinstance(a, np.ndarray):
                            conv.append(a.ctypes.data)
                        else:
                            assert isinstance(a, (np.int64, np.int32)), type(a)
                            conv.append(int(a))
                    host(grid[0], *block, *conv)
                call.max_threads_per_block = 1024
                return call

        self.cuda = _Cuda
        self.RawModule = RawModule

    def install(self, monkeypatch) -> "_FakeCupy":
        """Make cupy_backend use this stand-in, with an empty module cache of its own."""
        import tempfile
        from pathlib import Path
        from ptogpu.backend import cupy_backend
        folder = Path(tempfile.mkdtemp(prefix="ptogpu-fake-cupy-"))
        monkeypatch.setattr(cupy_backend, "cupy_module", lambda: self)
        monkeypatch.setattr(cupy_backend, "_cache_dir", lambda: folder)
        monkeypatch.setattr(cupy_backend, "_modules", {})
        monkeypatch.setattr(cupy_backend, "_fns", {})
        return self

    @staticmethod
    def asarray(a):
        return np.array(a, copy=True)

    @staticmethod
    def asnumpy(a):
        return np.array(a, copy=True)

    @staticmethod
    def full(shape, value, dtype):
        return np.full(shape, value, dtype)


@needs_native
@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("mode", [ROW, ELEM], ids=["Row", "Elem"])
def test_cupy_glue_with_stand_in_device(monkeypatch, family, mode):
    from ptogpu.backend import cupy_backend
    fake = _FakeCupy().install(monkeypatch)
    builder, types = FAMILIES[family]
    ran = [run_both(builder(mode, oob, types[(3 * k) % len(types)]), 500 + k, backend="cupy")[1]
           for k, oob in enumerate(OOBS)]
    assert sum(ran) >= 2, ran
    assert fake.compiled == [cupy_backend.nvrtc_command_line("sm_90")]   # compiled once, loaded once
    assert len(fake.loaded) == 1


@needs_native
@pytest.mark.parametrize("oob", [pto.GatherOOB.Clamp, pto.GatherOOB.Wrap, pto.GatherOOB.Zero],
                         ids=lambda o: o.name)
@pytest.mark.parametrize("rows,cols", [(1, 8), (1, 24), (3, 8), (5, 40), (7, 24), (32, 32), (1, 1016),
                                       (41, 24), (31, 40), (2, 520)])
def test_a5_elem_linear_tiles_every_partial_last_warp(rows, cols, oob):
    """A5 Elem on native, RowMajor tiles whose valid region is the whole tile (the lanes' linear
    form; 32-byte rows: 8, 16 or 24 lanes in a partial last warp-round), one round a warp and
    more (8, 24, 24, 200, 168, 1024, 1016, 984, 1240, 1040 elements): each element is
    table[remap(index)] by the rule -- Clamp: the last element past the capacity, Wrap: modulo
    it, Zero: 0 past it -- and nothing else in UB changes."""
    rng = np.random.default_rng(rows * 1000 + cols)
    cap = 300
    tab = rng.standard_normal(cap).astype(np.float32)
    idx = rng.integers(0, cap + cap // 2, (rows, cols)).astype(np.int32)
    u = idx.astype(np.int64)
    if oob == pto.GatherOOB.Clamp:
        want = tab[np.minimum(u, cap - 1)]
    elif oob == pto.GatherOOB.Wrap:
        want = tab[u % cap]
    else:
        want = np.where(u < cap, tab[np.minimum(u, cap - 1)], np.float32(0)).astype(np.float32)
    with pto.Core("a5", "native") as core:
        noise = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
        core.write("ub", 0, noise)
        T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, cap], pto.Stride[cap, cap, cap, cap, 1]]
        table = T(core.gm_put(tab))
        it = _tile(pto.int32, rows, cols, 0)
        it.set(idx)
        dst_addr = _round(rows * cols * 4, 64)
        dt = _tile(pto.float32, rows, cols, dst_addr)
        pto.MGATHER[ELEM, oob](dt, table, it)
        got = core.read("ub", dst_addr, rows * cols * 4)
        assert got.tobytes() == want.astype(np.float32).tobytes()
        after = core.read("ub", 0, core.ub.size)
        before = noise.copy()
        before[: rows * cols * 4] = np.frombuffer(idx.tobytes(), np.uint8)
        before[dst_addr: dst_addr + rows * cols * 4] = np.frombuffer(want.astype(np.float32).tobytes(), np.uint8)
        assert after.tobytes() == before.tobytes()
