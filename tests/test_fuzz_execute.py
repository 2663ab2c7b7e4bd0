"""The executing campaign engine (cuda_src/fuzz.cu pto_fuzz_exec, ptogpu/fuzz/execute.py): both
sides' kernels run per tile. Its reports must equal the batch path's (the same kernels, results
through Python), with and without shape fuzzing, and it must see what the kernels write, not
what the rules say they should."""
from __future__ import annotations

import ctypes
import itertools

import numpy as np
import pytest

from ptogpu.backend import backend_available
from ptogpu.fuzz.classes import FIRST
from ptogpu.fuzz import compare as C
from ptogpu.fuzz import execute as X
from ptogpu.fuzz import rules as R
from ptogpu.fuzz.explain import verdicts
from ptogpu.execution.config import FuzzConfig
from ptogpu.execution.rng import Generator, shapes

pytestmark = pytest.mark.skipif(not backend_available("native")[0], reason="no native backend")

PAIRS = [("a5.simt@native", "a2a3@native"), ("cpu@native", "a5@native"), ("a2a3@native", "cpu@native")]


def key(rep):
    return (rep.faults_a, rep.faults_b, rep.divergent,
            sorted((m, c.count, tuple(c.first)) for m, c in rep.classes.items()))


CASES = [dict(mode=m, oob=o, dtype=d, rows=r, cols=c, table_size=t)
         for (m, o, d, (r, c), t) in itertools.product(
             ["elem", "row"], ["wrap", "clamp", "zero", "undefined"], ["float32", "uint8", "half", "uint64"],
             [(16, 16), (3, 7), (40, 33)], [300])]


@pytest.mark.parametrize("kw", CASES[::3] + [dict(rows=1, cols=1, table_size=64), dict(dst_fill=0xA5, table_size=99),
                                             dict(index_dtype="uint32", oob="clamp", table_size=500),
                                             dict(mode="row", oob="zero", rows=5, cols=24, dst_fill=7, table_size=96)],
                         ids=lambda kw: "-".join(f"{v}" for v in kw.values()))
def test_executing_engine_reports_equal_the_batch_path(kw):
    cfg = FuzzConfig(**kw)
    for a, b in PAIRS:
        e = C.campaign(cfg, a, b, 300, seed=5, shrink=False)
        if e.check_error:
            continue
        assert e.engine.startswith("executing native"), e.engine
        ref = C.campaign(cfg, a, b, 300, seed=5, shrink=False, fused=False)
        assert not ref.engine.startswith("executing")
        assert key(e) == key(ref), (a, b)
        assert e.executed == ref.executed


def test_reports_say_lanes_for_the_a5_launch_and_loop_for_the_rest():
    rep = C.campaign(FuzzConfig(table_size=300), "a5.simt@native", "a2a3@native", 50, shrink=False)
    assert rep.executed == {"a": "lanes", "b": "loop"}
    assert "mgather_a5_elem vs mgather_a2a3_elem_nd" in rep.engine
    # GatherExec exists only for GM->L1: a5.scalar into UB is the same SIMT launch
    rep = C.campaign(FuzzConfig(table_size=300), "a5.simt@native", "a5.scalar@native", 50, shrink=False)
    assert rep.executed == {"a": "lanes", "b": "lanes"}
    # the static 1x1 tile takes A5's scalar path
    rep = C.campaign(FuzzConfig(rows=1, cols=1, table_size=300), "a5@native", "cpu@native", 50, shrink=False)
    assert rep.executed == {"a": "loop", "b": "loop"} and "mgather_a5_scalar" in rep.engine


def test_lockstep_and_per_thread_launches_give_the_same_counts():
    from ptogpu.fuzz import fused
    seen = np.zeros(2, int)
    for cfg in (FuzzConfig(oob="wrap", rows=40, cols=33, table_size=400),
                FuzzConfig(mode="row", oob="undefined", rows=3, cols=40, table_size=1600)):
        a, b = C.Side.parse("a5@native").config(cfg), C.Side.parse("cpu@native").config(cfg)
        gen = Generator("mixed", 3)
        for shp in (False, True):
            got = []
            for threads in ("warps", "threads"):
                rep = C.GatherReport(C.Side.parse("a5@native"), C.Side.parse("cpu@native"), cfg, 400, "mixed", 3)
                fused.merge(rep, X.Campaign(a, b, gen, 0, threads=threads, shapes=shp).run_chunk(0, 400), gen)
                got.append(key(rep))
            assert got[0] == got[1]
            seen += (got[0][0] > 0, got[0][2] > 0)
    assert seen.all()                                             # faults and divergences compared


def _planted(cfg, change, n=200, shapes=False):
    """A campaign of a5 against a5 whose side B's kernel block is changed by ``change`` (a
    kernel mistake, not a rule): its report."""
    from ptogpu.fuzz import fused
    a = C.Side.parse("a5@native").config(cfg)
    camp = X.Campaign(a, a, Generator("uniform", 1), 0, shapes=shapes)
    assert camp.run_chunk(0, n)[:, _E("FZ_DIVERGENT")].sum() == 0
    change(camp.sb.params)
    rep = C.GatherReport(C.Side.parse("a5@native"), C.Side.parse("a5@native"), cfg, n, "uniform", 1)
    fused.merge(rep, camp.run_chunk(0, n), Generator("uniform", 1))
    return rep


def _E(name):
    return X.K[name]


def test_a_kernel_that_reads_other_bytes_disagrees_with_its_reference():
    """Side B's kernel reads the table one element further on: side B fails its own reference
    on every tile (verdict 2), whatever side A shows."""
    from ptogpu.isa.mgather.kernels import K as M
    cfg = FuzzConfig(oob="clamp", table_size=300)
    rep = _planted(cfg, lambda p: p.__setitem__(M.MG_TBASE, p[M.MG_TBASE] + cfg.esize))
    assert rep.divergent == 200 and rep.bugs == 200 and list(rep.classes) == [R.REF_B]
    assert rep.ref_bad_b == 200 and rep.ref_bad_a == 0


@pytest.mark.parametrize("where", ["ub", "gm"])
def test_a_kernel_that_writes_outside_its_destination_is_caught(where):
    """Side B's kernel stores its destination 4 KiB further into UB, or into GM: the bytes it
    should have written are missing and bytes outside every window changed (WINDOW)."""
    from ptogpu.isa.mgather.kernels import K as M
    d = M.MG_DST

    def move(p):
        if where == "gm":
            p[d + _E_td("TD_SPACE")] = 0                  # SPACE_GM: the table's arena
            p[d + _E_td("TD_ADDR")] = 0
        else:
            p[d + _E_td("TD_ADDR")] += 4096
    rep = _planted(FuzzConfig(oob="wrap", table_size=4096), move, n=600)
    assert rep.bugs == 600 and all(m & R.REF_B and m & R.WINDOW for m in rep.classes), rep.classes
    assert "a write outside the destination" in rep.to_json()["classes"][0]["class"]


def _E_td(name):
    from ptogpu.backend import sources
    return sources.enum_values("common.cuh")[name]


def test_a_kernel_that_writes_its_index_tile_is_caught():
    """The destination moved onto the index tile: per tile, the index words no longer hold the
    tile's indices."""
    from ptogpu.isa.mgather.kernels import K as M
    rep = _planted(FuzzConfig(oob="wrap", table_size=4096), lambda p: p.__setitem__(M.MG_DST + _E_td("TD_ADDR"), 0))
    assert rep.bugs == 200 and set(rep.classes) == {R.REF_B | R.WINDOW}


def test_shape_draw_matches_its_numpy_twin():
    from ptogpu.backend import native_backend
    lib = native_backend.load()
    n = 5000
    vr, vc = np.zeros(n, np.int64), np.zeros(n, np.int64)
    for rows, cols, row_mode in [(16, 16, 0), (40, 33, 0), (16, 64, 1), (1, 1, 0)]:
        lib.pto_fuzz_shapes(ctypes.c_uint64(7), ctypes.c_longlong(rows), ctypes.c_longlong(cols),
                            ctypes.c_int(row_mode), ctypes.c_uint64(11), ctypes.c_longlong(n),
                            vr.ctypes.data_as(ctypes.c_void_p), vc.ctypes.data_as(ctypes.c_void_p))
        pr, pc = shapes(7, np.arange(11, 11 + n), rows, cols, bool(row_mode))
        assert np.array_equal(pr, vr) and np.array_equal(pc, vc)
        assert pr.min() == 1 and pr.max() == rows and pc.min() == (cols if row_mode else 1) and pc.max() == cols
        if rows > 1 and not row_mode:
            assert 0.1 < np.mean(pc == 1) < 0.3 and 0.1 < np.mean(pr == 1) < 0.3   # [R,1] and [1,C] tiles


def _reference_by_shape(cfg, a, b, n, seed):
    """What a shape-fuzzing campaign must report, from the batch path run per drawn shape."""
    from ptogpu.execution.batch import run_chunk
    from ptogpu.execution.single import cast_indices
    sa, sb = C.Side.parse(a), C.Side.parse(b)
    ca, cb = sa.config(cfg), sb.config(cfg)
    gen = Generator("mixed", seed)
    inst = np.arange(n)
    vr, vc = shapes(seed, inst, cfg.rows, cfg.cols, cfg.mode == "row")
    fa = fb = 0
    classes: dict = {}
    for r_, c_ in sorted(set(zip(vr.tolist(), vc.tolist()))):
        sel = inst[(vr == r_) & (vc == c_)]
        ia, ib = X.instance_configs(ca, cb, gen, int(sel[0]))
        assert (ia.rows, ia.cols) == (r_, c_)
        raw = cast_indices(ia, gen(sel, ia.n_idx, ia.cap)).reshape(sel.size, -1)
        ra = run_chunk(ia, sel, gen, "native", raw=raw, digest=False)
        rb = run_chunk(ib, sel, gen, "native", raw=raw, digest=False)
        assert ra.path == rb.path == "kernel"
        fa += int(np.count_nonzero(ra.faults))
        fb += int(np.count_nonzero(rb.faults))
        mk = verdicts(ia, ib, sa, sb, sel, gen, raw, ra, rb, C.relation(sa, sb))
        for i, m in zip(sel[mk != 0], mk[mk != 0]):
            classes.setdefault(int(m), []).append(int(i))
    cls = sorted((m, len(v), tuple(sorted(v)[:FIRST])) for m, v in classes.items())
    return fa, fb, sum(len(v) for v in classes.values()), cls


@pytest.mark.parametrize("kw", [dict(oob="wrap", rows=16, cols=16, table_size=300),
                                dict(oob="zero", rows=40, cols=33, dtype="uint8", table_size=700),
                                dict(mode="row", oob="clamp", rows=24, cols=40, table_size=40 * 30),
                                dict(mode="row", oob="undefined", rows=7, cols=8, dtype="half", table_size=80)],
                         ids=["elem16", "elem40x33", "row24x40", "row7x8"])
def test_shape_fuzzing_equals_the_batch_path_per_drawn_shape(kw):
    cfg = FuzzConfig(**kw)
    for a, b in PAIRS[:2]:
        rep = C.campaign(cfg, a, b, 400, seed=9, shrink=False, shapes=True)
        assert rep.shapes and "valid shape drawn per tile" in rep.engine and not rep.check_error
        assert key(rep) == (lambda t: (t[0], t[1], t[2], list(t[3])))(_reference_by_shape(cfg, a, b, 400, 9))


def test_shape_fuzzing_classes_carry_their_shape_and_reproduce():
    cfg = FuzzConfig(oob="wrap", rows=16, cols=16, table_size=300)
    rep = C.campaign(cfg, "cpu@native", "a5@native", 300, seed=2, shrink=True, shapes=True)
    assert rep.divergent and all(c.shape for c in rep.classes.values())
    doc = rep.to_json()
    assert doc["shapes"] is True and all("shape" in c for c in doc["classes"])
    c = max(rep.classes.values(), key=lambda c: c.count)
    assert c.reproducer and "pto.DYNAMIC" in c.reproducer
    ns: dict = {}
    exec(compile(c.reproducer, "<repro>", "exec"), ns)          # runs, and shows the divergence


def test_shape_fuzzing_needs_the_executing_engine():
    cfg = FuzzConfig(table_size=300)
    with pytest.raises(ValueError, match="executing native engine"):
        C.campaign(cfg, "a5@numpy", "a2a3@numpy", 10, shapes=True)
    with pytest.raises(ValueError, match="executing native engine"):
        C.campaign(cfg, "a5@native", "a2a3@native", 10, shapes=True, fused=True)


def test_dynamic_valid_configs_run_alike_on_numpy_and_native():
    from ptogpu.execution.single import run_single
    gen = Generator("mixed", 4)
    for mode, tgt, (vr, vc) in itertools.product(["elem", "row"], ["a5", "a2a3", "cpu"], [(5, 3), (1, 16), (16, 1)]):
        if mode == "row":
            vc = 16
        c = FuzzConfig(mode=mode, target=tgt, table_size=4096).with_(rows=vr, cols=vc, storage=(16, 16))
        v = gen(np.array([3]), c.n_idx, c.cap)[0]
        (o1, f1), (o2, f2) = run_single(c, v), run_single(c, v, "native")
        assert np.array_equal(o1, o2) and f1 == f2
    with pytest.raises(ValueError, match="only the valid rows"):
        FuzzConfig(mode="row").with_(cols=3, storage=(16, 16))
    with pytest.raises(ValueError, match="does not fit"):
        FuzzConfig().with_(rows=17, storage=(16, 16))


@pytest.mark.parametrize("kw", [dict(oob="wrap", rows=16, cols=16, table_size=300),
                                dict(oob="undefined", rows=3, cols=40, dtype="uint8", table_size=100),
                                dict(mode="row", oob="clamp", rows=24, cols=40, table_size=40 * 30),
                                dict(mode="row", oob="zero", rows=5, cols=24, dst_fill=7, table_size=96),
                                dict(rows=1, cols=1, table_size=64, oob="clamp")],
                         ids=["elem16", "elem3x40", "row24x40", "row5x24", "1x1"])
def test_the_kernel_form_counts_like_the_host_engine(kw):
    """fuzz_exec_campaign (what cupy launches, one block per tile, 4 passes) run through the host
    shim gives the host engine's counts, classes and first instances."""
    from ptogpu.fuzz import fused
    cfg = FuzzConfig(**kw)
    gen = Generator("mixed", 6)
    for pa, pb in (("a5", "a2a3"), ("cpu", "a5"), ("a5", "cpu")):
        a, b = C.Side.parse(f"{pa}@native").config(cfg), C.Side.parse(f"{pb}@native").config(cfg)
        for shp in (False, True):
            camp = X.Campaign(a, b, gen, 0, shapes=shp)
            reps = []
            for res in (camp.run_chunk(0, 300), camp.run_kernel_chunk(0, 300)):
                rep = C.GatherReport(C.Side.parse(pa), C.Side.parse(pb), cfg, 300, "mixed", 6)
                fused.merge(rep, res, gen)
                reps.append(rep)
            host, kern = reps
            counts = lambda r: (r.faults_a, r.faults_b, r.divergent, sorted((m, c.count) for m, c in r.classes.items()))
            assert counts(host) == counts(kern), (pa, pb, shp)
            # blocks run in parallel: a class's "first" instances are the first to arrive, each
            # of them a tile of that class
            for m, c in kern.classes.items():
                for i in c.first:
                    one = C.GatherReport(C.Side.parse(pa), C.Side.parse(pb), cfg, 1, "mixed", 6)
                    fused.merge(one, camp.run_chunk(i, 1), gen)
                    assert list(one.classes) == [m]


@pytest.mark.gpu
def test_cupy_executing_campaign_counts_like_native():
    from ptogpu.backend import cupy_backend
    ok, why = cupy_backend.available()
    if not ok:
        pytest.skip(why)
    for kw in (dict(oob="wrap", table_size=300), dict(mode="row", oob="clamp", rows=24, cols=40, table_size=1200)):
        cfg = FuzzConfig(**kw)
        for shp in (False, True):
            ref = C.campaign(cfg, "cpu@native", "a5@native", 5000, seed=3, shrink=False, shapes=shp)
            got = C.campaign(cfg, "cpu@cupy", "a5@cupy", 5000, seed=3, shrink=False, shapes=shp)
            assert got.engine.startswith("executing cupy") and got.executed == ref.executed
            k1, k2 = key(ref), key(got)
            assert k1[:3] == k2[:3] and [x[:2] for x in k1[3]] == [x[:2] for x in k2[3]]
