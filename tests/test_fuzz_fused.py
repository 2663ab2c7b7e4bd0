"""The fused campaign kernel (cuda_src/fuzz.cu) gives the byte-compare NumPy campaign's counts,
classes and first instances: its host driver (backend native), its CUDA kernel run through the
host shim, and its NumPy twin (fused_numpy); the CUDA kernel compiles through NVRTC; on a GPU,
cupy agrees too."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from ptogpu.fuzz import FuzzConfig
from ptogpu.fuzz import fused as F
from ptogpu.fuzz.compare import GatherReport as Report, Side, campaign
from ptogpu.execution.rng import Generator


def _native():
    from ptogpu.backend import native_backend
    ok, why = native_backend.available()
    if not ok:
        pytest.skip(why)
    return native_backend.load()


ROW = dict(mode="row", rows=4, cols=12)
CASES = [
    (FuzzConfig(), "a5.simt", "a2a3", "mixed"),
    (FuzzConfig(rows=4, cols=8, table_size=100), "cpu", "a5", "mixed"),
    (FuzzConfig(rows=4, cols=8, table_size=100, oob="undefined"), "cpu", "a5", "negative"),
    (FuzzConfig(rows=3, cols=16, table_size=100, oob="clamp", dtype="half"), "cpu", "a2a3", "extreme"),
    (FuzzConfig(rows=4, cols=32, table_size=100, oob="zero", dtype="int8", index_dtype="uint32"), "cpu", "a2a3", "boundary"),
    (FuzzConfig(**ROW, table_shape=(1, 1, 2, 8, 12), table_stride=(192, 192, 96, 12, 1)), "a2a3", "a5", "mixed"),
    (FuzzConfig(**ROW, oob="undefined", table_shape=(1, 1, 1, 8, 12), table_stride=(128, 128, 128, 16, 1)), "a2a3", "a5", "oob"),
    (FuzzConfig(mode="row", rows=5, cols=6, oob="zero", dtype="half", table_shape=(1, 1, 1, 8, 6),
                table_stride=(128, 128, 128, 16, 2)), "cpu", "a2a3", "mixed"),
    (FuzzConfig(mode="row", rows=5, cols=6, oob="clamp", dtype="uint8"), "cpu", "a5", "dup"),
    (FuzzConfig(rows=2, cols=4, table_size=50, dtype="uint64"), "cpu", "a2a3", "mixed"),
    # both sides 32-bit (the narrow 32-bit-lane loops), every policy, non-power-of-two tables
    (FuzzConfig(rows=3, cols=5, table_size=100, oob="undefined"), "a2a3", "a5.simt", "mixed"),
    (FuzzConfig(rows=3, cols=5, table_size=100, oob="clamp", dtype="int8"), "a2a3", "a5", "extreme"),
    (FuzzConfig(rows=3, cols=5, table_size=100, oob="zero", dtype="half"), "a5", "a2a3", "boundary"),
    (FuzzConfig(rows=3, cols=5, table_size=100, oob="wrap", index_dtype="uint32"), "a5", "a2a3", "negative"),
    (FuzzConfig(rows=16, cols=16, table_size=64, oob="undefined", dtype="float32"), "a5", "a2a3", "oob"),
]


def _key(rep: Report):
    return (rep.faults_a, rep.faults_b, rep.divergent,
            sorted((c.mask, c.count, tuple(c.first)) for c in rep.classes.values()))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[1]}-{c[2]}-{c[0].op_label}-{c[3]}")
def test_fused_native_matches_numpy_campaign(case):
    _native()
    cfg, a, b, gen = case
    if cfg.dtype == "uint64":
        pytest.skip("uint64 is not an NPU element type")
    ref = campaign(cfg, a + "@numpy", b + "@numpy", 2000, generator=gen, seed=9, shrink=False, fused=False)
    got = campaign(cfg, a + "@native", b + "@native", 2000, generator=gen, seed=9, shrink=False, chunk=700, fused=True)
    assert got.engine == "fused native"
    assert _key(got) == _key(ref)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[1]}-{c[2]}-{c[0].op_label}-{c[3]}")
@pytest.mark.parametrize("share", [True, False], ids=["share", "no-share"])
def test_fused_numpy_matches_the_byte_compare_campaign(case, share, monkeypatch):
    from ptogpu.fuzz import compare
    monkeypatch.setattr(compare, "SHARE_SIDES", share)
    cfg, a, b, gen = case
    ref = campaign(cfg, a + "@numpy", b + "@numpy", 2000, generator=gen, seed=9, shrink=False, fused=False)
    got = campaign(cfg, a + "@numpy", b + "@numpy", 2000, generator=gen, seed=9, shrink=False, chunk=300, fused=True)
    if ref.check_error:                      # uint64: not an NPU element type
        assert got.check_error == ref.check_error
        return
    assert got.engine.startswith("fused numpy")
    assert _key(got) == _key(ref)
    assert all((got.classes[m].example == ref.classes[m].example).all() for m in ref.classes)


def _host_kernel(cfg_a, cfg_b, gen, n, rel=0):
    lib = _native()
    fn = lib.host_fuzz_campaign
    fn.restype = None
    prm = F.params(cfg_a, cfg_b, gen.seed, gen.counter_kind, 0, rel)
    gm = F.gm_image(cfg_a)
    res = F.empty_results(1)
    z = ctypes.c_longlong(0)
    fn(ctypes.c_uint(1), ctypes.c_uint(1), ctypes.c_uint(1), ctypes.c_uint(1),
       ctypes.c_void_p(gm.ctypes.data), ctypes.c_longlong(gm.size), z, ctypes.c_void_p(gm.ctypes.data), z, z,
       ctypes.c_void_p(gm.ctypes.data), z, z, ctypes.c_void_p(prm.ctypes.data), z,
       ctypes.c_void_p(res.ctypes.data), ctypes.c_longlong(n), ctypes.c_int(0))
    return res


@pytest.mark.parametrize("case", CASES[:8], ids=lambda c: f"{c[1]}-{c[2]}-{c[0].op_label}")
def test_cuda_kernel_through_the_host_shim_matches_the_native_driver(case):
    cfg, a, b, gen = case
    sa, sb = Side.parse(a, "native"), Side.parse(b, "native")
    ca, cb = sa.config(cfg), sb.config(cfg)
    g = Generator(gen, 4)
    n = 600
    kern = Report(sa, sb, cfg, n, gen, 4)
    F.merge(kern, _host_kernel(ca, cb, g, n), g)
    host = Report(sa, sb, cfg, n, gen, 4)
    F.merge(host, F.run_native_chunk(F.params(ca, cb, g.seed, g.counter_kind, 0, 0), F.gm_image(ca), n), g)
    assert _key(kern) == _key(host)


def test_fuzz_cu_compiles_through_nvrtc():
    try:
        from cupy.cuda import nvrtc
        nvrtc.getVersion()
    except Exception as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    from ptogpu.backend import cupy_backend, sources
    src = sources.expanded(sources.source_dir() / "fuzz.cu")
    prog = nvrtc.createProgram(src, "fuzz.cu", [], [])
    nvrtc.compileProgram(prog, list(cupy_backend.nvrtc_command_line("90")))
    ptx = nvrtc.getPTX(prog)
    assert b"fuzz_campaign" in (ptx if isinstance(ptx, bytes) else ptx.encode())


@pytest.mark.gpu
def test_cupy_campaign_matches_numpy():
    from ptogpu.backend import cupy_backend
    ok, why = cupy_backend.available()
    if not ok:
        pytest.skip(why)
    for cfg, a, b, gen in CASES[:6]:
        ref = campaign(cfg, a + "@numpy", b + "@numpy", 3000, generator=gen, seed=2, shrink=False, fused=False)
        got = campaign(cfg, a + "@cupy", b + "@cupy", 3000, generator=gen, seed=2, shrink=False, fused=True)
        assert got.engine == "fused cupy"
        k1, k2 = _key(ref), _key(got)
        assert k1[:3] == k2[:3]
        assert [(m, c) for m, c, _ in k1[3]] == [(m, c) for m, c, _ in k2[3]]   # first lists unordered on GPU


def _random_cases(k: int, seed: int = 5):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < k:
        mode = str(rng.choice(["row", "elem"]))
        oob = str(rng.choice(["undefined", "clamp", "wrap", "zero"]))
        dt = str(rng.choice(["float32", "half", "int8", "bfloat16", "uint32"]))
        idt = str(rng.choice(["int32", "uint32"]))
        rows, cols = int(rng.integers(1, 7)), int(rng.integers(1, 40))
        a, b = (str(x) for x in rng.choice(["cpu", "a2a3", "a5", "a5.simt"], 2, replace=False))
        if a.split(".")[0] == b.split(".")[0]:
            continue
        kw = {}
        if mode == "row" and rng.random() < 0.6:
            s2, s3 = int(rng.integers(1, 3)), int(rng.integers(1, 9))
            pitch = cols + int(rng.integers(0, 9))
            s4 = int(rng.choice([1, 1, 2]))
            kw = dict(table_shape=(1, 1, s2, s3, cols), table_stride=(s2 * s3 * pitch * s4,) * 2 + (s3 * pitch * s4, pitch * s4, s4))
        cfg = FuzzConfig(mode=mode, oob=oob, dtype=dt, index_dtype=idt, rows=rows, cols=cols,
                         table_size=int(rng.integers(8, 300)), **kw)
        out.append((cfg, a, b, str(rng.choice(["mixed", "uniform", "oob", "negative", "extreme", "boundary", "dup"]))))
    return out


@pytest.mark.parametrize("case", _random_cases(30), ids=lambda c: f"{c[1]}-{c[2]}-{c[0].op_label}-{c[3]}")
def test_fused_native_matches_numpy_on_random_configurations(case):
    _native()
    cfg, a, b, gen = case
    ref = campaign(cfg, a + "@numpy", b + "@numpy", 600, generator=gen, seed=13, shrink=False, fused=False)
    got = campaign(cfg, a + "@native", b + "@native", 600, generator=gen, seed=13, shrink=False, fused=True)
    fnp = campaign(cfg, a + "@numpy", b + "@numpy", 600, generator=gen, seed=13, shrink=False, chunk=70, fused=True)
    if ref.check_error:
        assert got.check_error == fnp.check_error == ref.check_error
        return
    assert got.engine == "fused native" and fnp.engine.startswith("fused numpy")
    assert _key(got) == _key(ref) == _key(fnp)
