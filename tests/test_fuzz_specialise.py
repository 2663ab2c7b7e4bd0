"""Specialised builds of the executing engine (ptogpu/fuzz/specialise.py, cuda_src/fuzz_spec.cuh):
a campaign's configuration compiled in as constants. Its reports must equal the generic
engine's on any configuration; a build that fails, or that is handed blocks it was not built
for, must leave the generic engine running (said once), and concurrent builds of one
configuration must give one library."""
from __future__ import annotations

import random
import threading

import numpy as np
import pytest

from ptogpu.backend import backend_available, native_backend
from ptogpu.execution.config import FuzzConfig
from ptogpu.execution.rng import Generator
from ptogpu.fuzz import compare as C
from ptogpu.fuzz import execute as X
from ptogpu.fuzz import fused
from ptogpu.fuzz import rules as R
from ptogpu.fuzz import specialise as S

pytestmark = pytest.mark.skipif(not backend_available("native")[0], reason="no native backend")

TARGETS = ["a5.simt", "a5", "a2a3", "cpu"]


def key(rep):
    return (rep.faults_a, rep.faults_b, rep.divergent, rep.ref_bad_a, rep.ref_bad_b,
            sorted((m, c.count, tuple(c.first)) for m, c in rep.classes.items()))


def _configs(n: int, seed: int):
    """Configurations drawn at random: mode, OOB, element size, tile shape, table size, index
    type, destination fill and the pair of targets."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        kw = dict(mode=rnd.choice(["elem", "row"]), oob=rnd.choice(["wrap", "clamp", "zero", "undefined"]),
                  dtype=rnd.choice(["uint8", "half", "float32", "uint64"]), rows=rnd.randint(1, 40),
                  cols=rnd.randint(1, 40), table_size=rnd.choice([64, 99, 300, 1024, 4096]),
                  index_dtype=rnd.choice(["int32", "uint32"]), dst_fill=rnd.choice([0, 0, 0x5A]))
        out.append((kw, rnd.sample(TARGETS, 2)))
    return out


def _quick_flags(monkeypatch):
    """Build at -O1 (about half the -O3 time: same code, the suite builds many)."""
    flags = S._flags()
    monkeypatch.setattr(S, "_flags", lambda: tuple("-O1" if f.startswith("-O") else f for f in flags))


def _both(monkeypatch, cfg, a, b, n=400, seed=7):
    reps = {}
    for m in ("1", "0"):
        monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", m)
        reps[m] = C.campaign(cfg, f"{a}@native", f"{b}@native", n, seed=seed, shrink=False)
    return reps["1"], reps["0"]


@pytest.mark.parametrize("kw,pair", _configs(3, 1), ids=lambda v: str(v))
def test_specialised_and_generic_engines_report_alike_at_O3(monkeypatch, kw, pair):
    spec, gen = _both(monkeypatch, FuzzConfig(**kw), *pair)
    if spec.check_error:
        return
    assert "(specialised build)" in spec.engine and "specialised" not in gen.engine
    assert key(spec) == key(gen)


@pytest.mark.parametrize("kw,pair", _configs(9, 2) + [
    (dict(oob="wrap", table_size=4096), ["a5.simt", "a2a3"]),           # the bench's campaign
    (dict(mode="row", oob="undefined", rows=3, cols=40, table_size=1600), ["a5", "cpu"]),
    (dict(rows=1, cols=1, table_size=64), ["a5", "cpu"])],               # A5's static 1x1 path
    ids=lambda v: str(v))
def test_specialised_and_generic_engines_report_alike(monkeypatch, kw, pair):
    _quick_flags(monkeypatch)
    spec, gen = _both(monkeypatch, FuzzConfig(**kw), *pair)
    if spec.check_error:
        return
    assert "(specialised build)" in spec.engine and "specialised" not in gen.engine
    assert key(spec) == key(gen)
    assert spec.executed == gen.executed


def test_the_drawn_configurations_diverge_and_fault():
    """The equality above compares something: faults and divergent tiles among the drawn
    configurations (on the generic engine)."""
    seen = np.zeros(3, int)
    for kw, (a, b) in _configs(9, 2):
        rep = C.campaign(FuzzConfig(**kw), f"{a}@native", f"{b}@native", 400, seed=7, shrink=False)
        seen += (rep.faults_a + rep.faults_b > 0, rep.divergent > 0, bool(rep.check_error))
    assert seen[0] and seen[1], seen


def _camp(cfg, a="a5", b="a5", gen=None):
    ca, cb = (C.Side.parse(f"{s}@native").config(cfg) for s in (a, b))
    return X.Campaign(ca, cb, gen or Generator("uniform", 1), 0)


def test_a_planted_kernel_mistake_is_caught_by_the_specialised_build(monkeypatch):
    """Side B's block reads the table one element further on, built into the specialised
    engine: side B fails its own reference on every tile, as in the generic engine."""
    from ptogpu.isa.mgather.kernels import K as M
    _quick_flags(monkeypatch)
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "1")
    cfg = FuzzConfig(oob="clamp", table_size=300)
    camp = _camp(cfg)
    camp.sb.params[M.MG_TBASE] += cfg.esize
    camp.plan(200)
    assert camp.spec.get() is not None
    rep = C.GatherReport(C.Side.parse("a5@native"), C.Side.parse("a5@native"), cfg, 200, "uniform", 1)
    fused.merge(rep, camp.run_chunk(0, 200), Generator("uniform", 1))
    assert camp.tiles == {"specialised": 200, "generic": 0}
    assert rep.divergent == 200 and list(rep.classes) == [R.REF_B] and rep.ref_bad_b == 200


def test_a_build_refuses_blocks_it_was_not_built_for(monkeypatch, capsys):
    """Blocks changed after the build: the build runs nothing, the generic engine runs the
    chunk (and every later one), said once."""
    from ptogpu.isa.mgather.kernels import K as M
    _quick_flags(monkeypatch)
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "1")
    cfg = FuzzConfig(oob="clamp", table_size=300)
    camp = _camp(cfg)
    camp.plan(200)
    fn = camp.spec.get()
    assert fn is not None
    assert camp.run_chunk(0, 200)[:, X.K.FZ_DIVERGENT].sum() == 0
    assert camp.tiles["specialised"] == 200
    # each block, and the GM size, is checked: the build refuses and leaves `res` alone
    prm = fused.params(camp.a, camp.b, 1, camp.gen.counter_kind, 0, 0)
    for name in ("prm", "ex", "ipos", "pa", "pb", "gm"):
        args = dict(prm=prm.copy(), ex=camp.ex.copy(), ipos=camp.ipos.copy(), pa=camp.sa.params.copy(),
                    pb=camp.sb.params.copy())
        gm_size = camp.gm.size - (name == "gm")
        if name != "gm":
            args[name][-1 if name != "prm" else X.K.FZ_GEN] += 1
        res = fused.empty_results(2)
        before = res.copy()
        got = fn(*(args[k].ctypes.data for k in ("prm", "ex", "ipos", "pa", "pb")), camp.gm.ctypes.data, gm_size,
                 camp.ub[0].ctypes.data, camp.ub[1].ctypes.data, 10, res.ctypes.data, 2)
        assert got == 1 and np.array_equal(res, before), name
    # the seed and first instance are the call's own
    prm[X.K.FZ_SEED], prm[X.K.FZ_INST0] = 12345, 77
    assert fn(prm.ctypes.data, camp.ex.ctypes.data, camp.ipos.ctypes.data, camp.sa.params.ctypes.data,
              camp.sb.params.ctypes.data, camp.gm.ctypes.data, camp.gm.size, camp.ub[0].ctypes.data,
              camp.ub[1].ctypes.data, 10, fused.empty_results(2).ctypes.data, 2) == 0
    camp.sb.params[M.MG_TBASE] += cfg.esize                   # a kernel mistake planted now
    capsys.readouterr()
    for s in (200, 400):
        res = camp.run_chunk(s, 200)
        assert res[:, X.K.FZ_REFBAD_B].sum() == 200         # the generic engine ran the new blocks
    assert camp.tiles == {"specialised": 200, "generic": 400}
    err = capsys.readouterr().err
    assert err.count("refused this campaign's blocks") <= 1     # said once per process


def test_a_build_that_fails_runs_the_generic_engine_said_once(monkeypatch, capsys):
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "1")
    monkeypatch.setattr(S, "_flags", lambda: ("-O1", "-shared", "-fPIC", "-std=c++17", "-fno-such-flag-ptogpu"))
    monkeypatch.setattr(S, "_said", set())
    cfg = FuzzConfig(oob="wrap", table_size=300, rows=5, cols=7)
    reps = [C.campaign(cfg, "a5.simt@native", "cpu@native", 300, seed=3, shrink=False) for _ in range(2)]
    err = capsys.readouterr().err
    assert err.count("generic executing engine (specialised build failed") == 1, err
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "0")
    ref = C.campaign(cfg, "a5.simt@native", "cpu@native", 300, seed=3, shrink=False)
    for rep in reps:
        assert "specialised" not in rep.engine and key(rep) == key(ref)


def test_concurrent_builds_of_one_configuration_give_one_library(monkeypatch, tmp_path):
    _quick_flags(monkeypatch)
    monkeypatch.setattr(native_backend, "cache_dir", lambda: tmp_path)
    camp = _camp(FuzzConfig(oob="zero", table_size=99, rows=4, cols=9), "cpu", "a2a3")
    text = S.source(camp, fused.params(camp.a, camp.b, 1, camp.gen.counter_kind, 0, 0))
    cxx, flags, path = S._path(text)
    errs = []

    def go():
        try:
            S._build(text, cxx, flags, path)
        except Exception as e:          # noqa: BLE001 (reported below)
            errs.append(e)
    ts = [threading.Thread(target=go) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errs
    assert sorted(p.suffix for p in (tmp_path / "spec").iterdir()) == [".cu", ".lock", ".so"]
    z = np.zeros(4096, np.int64)
    assert S._load(path)(*([z.ctypes.data] * 6), 64, 0, 0, 0, 0, 0) == 1     # loads; refuses other blocks


def test_auto_builds_long_campaigns_in_the_background_and_loads_cached_builds(monkeypatch, tmp_path):
    _quick_flags(monkeypatch)
    monkeypatch.setattr(native_backend, "cache_dir", lambda: tmp_path)
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "auto")
    cfg = FuzzConfig(oob="wrap", table_size=500, rows=6, cols=6)
    short = _camp(cfg, "a5.simt", "a2a3")
    short.plan(1000)
    assert short.spec.get() is None and short.spec.future is None      # short, not cached: generic
    monkeypatch.setattr(S, "MIN_TILES", 1000)
    long_ = _camp(cfg, "a5.simt", "a2a3")
    long_.plan(1000)
    assert long_.spec.future is not None
    long_.spec.future.result(timeout=300)
    assert long_.spec.get() is not None
    monkeypatch.setattr(S, "MIN_TILES", 10 ** 12)
    again = _camp(cfg, "a5.simt", "a2a3")
    again.plan(10)
    assert again.spec.get() is not None                                 # cached: loaded for any length
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "0")
    off = _camp(cfg, "a5.simt", "a2a3")
    off.plan(10)
    assert off.spec.get() is None


def test_shape_fuzzing_and_per_thread_launches_run_the_generic_engine(monkeypatch):
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "1")
    cfg = FuzzConfig(oob="wrap", table_size=300)
    rep = C.campaign(cfg, "a5.simt@native", "a2a3@native", 100, shrink=False, shapes=True)
    assert rep.engine.startswith("executing native: ")
    ca = C.Side.parse("a5@native").config(cfg)
    camp = X.Campaign(ca, ca, Generator("uniform", 1), 0, threads="threads")
    camp.plan(100)
    assert camp.spec.get() is None


def test_a_bad_setting_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "maybe")
    with pytest.raises(ValueError, match="PTOGPU_FUZZ_SPECIALISE"):
        S.mode()


def test_an_unwritable_cache_runs_the_generic_engine_said_once(monkeypatch, tmp_path, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setattr(native_backend, "cache_dir", lambda: blocker)
    monkeypatch.setattr(S, "_said", set())
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "1")
    cfg = FuzzConfig(oob="clamp", table_size=77, rows=3, cols=5)
    rep = C.campaign(cfg, "a2a3@native", "cpu@native", 200, seed=2, shrink=False)
    assert "specialised" not in rep.engine
    assert capsys.readouterr().err.count("generic executing engine (specialised build failed") == 1
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "0")
    assert key(rep) == key(C.campaign(cfg, "a2a3@native", "cpu@native", 200, seed=2, shrink=False))


def test_a_campaign_that_switches_engines_midway_says_so_and_reports_alike(monkeypatch):
    """A background build that lands after the first chunk: later chunks run it, the report
    names both engines with their tile counts and equals the generic engine's."""
    _quick_flags(monkeypatch)
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "1")
    real, calls = S.Spec.get, []

    def late(self):
        calls.append(1)
        return None if len(calls) == 1 else real(self)
    monkeypatch.setattr(S.Spec, "get", late)
    cfg = FuzzConfig(oob="undefined", table_size=300, rows=5, cols=6)
    rep = C.campaign(cfg, "a5.simt@native", "cpu@native", 300, seed=4, shrink=False, chunk=100)
    assert "(specialised build for 200 tiles, generic for 100)" in rep.engine, rep.engine
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "0")
    ref = C.campaign(cfg, "a5.simt@native", "cpu@native", 300, seed=4, shrink=False, chunk=100)
    assert key(rep) == key(ref) and (rep.faults_a or rep.faults_b or rep.divergent)
