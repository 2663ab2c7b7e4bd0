"""The element-wise campaign engine (cuda_src/elementwise_fuzz.cu, ptogpu/isa/elementwise/campaign.py):
its reports equal the batch path's (classes, counts, first instances) wherever it runs, its kernel
form through the host shim equals its native driver (tests/test_nvrtc.py compiles it through NVRTC,
as every kernel file), it declines what it does not compute, and a wrong engine is caught by its
sample check (a BACKEND class)."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from ptogpu.fuzz import FuzzConfig
from ptogpu.fuzz import compare as C
from ptogpu.fuzz import fused as F
from ptogpu.fuzz import rules as R
from ptogpu.fuzz.classes import Side
from ptogpu.execution.rng import Generator
from ptogpu.isa.elementwise import campaign as E



def _native():
    from ptogpu.backend import native_backend
    ok, why = native_backend.available()
    if not ok:
        pytest.skip(why)


CASES = [  # (call, dtype, a, b, generator, shape)
    ("tadd", "float32", "cpu", "a5", "mixed", (4, 16)),
    ("tmax", "float32", "cpu", "a2a3", "mixed", (3, 20)),
    ("tmin", "int16", "a5", "a2a3", "dup", (2, 16)),
    ("tshl", "int32", "cpu", "a5", "mixed", (2, 8)),
    ("tshr", "uint8", "cpu", "a2a3", "mixed", (2, 32)),
    ("tneg", "float32", "cpu", "a5", "extreme", (2, 8)),
    ("tabs", "int8", "cpu", "a5", "mixed", (1, 32)),
    ("tmins", "float32", "cpu", "a5", "mixed", (2, 16)),
    ("tshrs", "int16", "cpu", "a2a3", "mixed", (2, 16)),
    ("txors", "uint16", "cpu", "a5", "mixed", (2, 16)),
    ("tdiv", "float32", "a5", "a2a3", "mixed", (2, 16)),
]


def _key(rep):
    return (rep.divergent, sorted((m, c.count, tuple(c.first)) for m, c in rep.classes.items()))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{c[3]}")
def test_the_engine_reports_what_the_batch_path_reports(case):
    _native()
    call, dt, a, b, gen, (r, c) = case
    cfg = FuzzConfig(instr=call, dtype=dt, rows=r, cols=c, oob="undefined")
    got = C.campaign(cfg, f"{a}@native", f"{b}@native", 3000, generator=gen, seed=5, shrink=False, chunk=700)
    assert got.engine.startswith("element-wise engine"), got.engine
    ref = C.campaign(cfg, f"{a}@native", f"{b}@native", 3000, generator=gen, seed=5, shrink=False, fused=False)
    assert not ref.engine.startswith("element-wise engine")
    assert _key(got) == _key(ref)
    assert all(R.explained(m) for m in got.classes)


def test_it_declines_what_it_does_not_compute():
    _native()
    g = Generator("mixed", 0)
    na, nb = Side.parse("cpu@native"), Side.parse("a2a3@native")
    for cfg in (FuzzConfig(instr="tsubs", rows=2, cols=8, oob="undefined"),                  # A2/A3 float TSUBS
                FuzzConfig(instr="tdiv", dtype="int32", rows=2, cols=8, oob="undefined"),     # integer division
                FuzzConfig(instr="tadd", dtype="int64", rows=2, cols=8, oob="undefined"),     # 8-byte elements
                FuzzConfig(instr="tand", dtype="uint8", rows=2, cols=7, oob="undefined"),     # A2/A3's pad byte
                FuzzConfig(instr="txor", dtype="int32", rows=2, cols=8, oob="undefined")):    # A2/A3's TXOR tmp
        assert not E.covers(na.config(cfg), nb.config(cfg), g, na, nb), cfg.label
    cfg = FuzzConfig(instr="tadd", rows=2, cols=8, oob="undefined")
    assert E.covers(na.config(cfg), nb.config(cfg), g, na, nb)
    assert not E.covers(na.config(cfg), nb.config(cfg), Generator(lambda i, n, c: np.zeros((len(i), n)), 0), na, nb)
    nu = Side.parse("a2a3@numpy")
    assert not E.covers(na.config(cfg), nu.config(cfg), g, na, nu)


def test_a_wrong_engine_is_caught_by_its_sample(monkeypatch):
    _native()
    # plant: side A's denormal flush switched on in the engine only
    real = E._words

    def planted(cfg):
        w = real(cfg)
        if cfg.target == "cpu":
            w[E.K.EW_FTZ] = 1
        return w
    monkeypatch.setattr(E, "_words", planted)
    cfg = FuzzConfig(instr="tadd", rows=2, cols=16, oob="undefined")
    rep = C.campaign(cfg, "cpu@native", "a5@native", 2000, seed=1, shrink=False)
    assert rep.engine.startswith("element-wise engine")
    assert any(m & R.BACKEND for m in rep.classes), [c.name for c in rep.classes.values()]


def test_the_kernel_form_through_the_host_shim_equals_the_native_driver():
    _native()
    from ptogpu.backend import native_backend
    from ptogpu.fuzz.report import Report
    lib = native_backend.load("elementwise_fuzz")
    for call, dt, a, b, gen, (r, c) in CASES[:6]:
        cfg = FuzzConfig(instr=call, dtype=dt, rows=r, cols=c, oob="undefined")
        sa, sb = Side.parse(f"{a}@native"), Side.parse(f"{b}@native")
        ca, cb = sa.config(cfg), sb.config(cfg)
        g = Generator(gen, 4)
        prm = E.params(ca, cb, g, 0)
        res = F.empty_results(1)
        z = ctypes.c_longlong(0)
        buf = np.zeros(8, np.uint8)
        lib.host_ew_fuzz_campaign(ctypes.c_uint(2), ctypes.c_uint(32), ctypes.c_uint(1), ctypes.c_uint(1),
                                  ctypes.c_void_p(buf.ctypes.data), z, z, ctypes.c_void_p(buf.ctypes.data), z, z,
                                  ctypes.c_void_p(buf.ctypes.data), z, z, ctypes.c_void_p(prm.ctypes.data), z,
                                  ctypes.c_void_p(res.ctypes.data), ctypes.c_longlong(500), ctypes.c_int(0))
        kern = Report(sa, sb, cfg, 500, gen, 4)
        F.merge(kern, res, g)
        host = Report(sa, sb, cfg, 500, gen, 4)
        E.run(ca, cb, g, sa, sb, 500, 0, host)
        assert (kern.divergent, sorted((m, x.count) for m, x in kern.classes.items())) == \
            (host.divergent, sorted((m, x.count) for m, x in host.classes.items())), call
        # (first instances: the kernel's threads race to a class's slots; the counts are exact)


@pytest.mark.gpu
def test_cupy_engine_reports_what_the_native_engine_reports():
    from ptogpu.backend import cupy_backend
    ok, why = cupy_backend.available()
    if not ok:
        pytest.skip(why)
    for call, dt, a, b, gen, (r, c) in CASES:
        cfg = FuzzConfig(instr=call, dtype=dt, rows=r, cols=c, oob="undefined")
        got = C.campaign(cfg, f"{a}@cupy", f"{b}@cupy", 3000, generator=gen, seed=5, shrink=False)
        ref = C.campaign(cfg, f"{a}@native", f"{b}@native", 3000, generator=gen, seed=5, shrink=False)
        assert got.engine.startswith("element-wise engine") and got.engine.endswith("cupy")
        assert (got.divergent, sorted((m, x.count) for m, x in got.classes.items())) == \
            (ref.divergent, sorted((m, x.count) for m, x in ref.classes.items())), call
