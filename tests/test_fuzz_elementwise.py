"""The element-wise calls as single-instruction campaigns (``ptogpu fuzz --instr tadd`` ...): the
generated values are the sources' bits; every cross-target divergence is explained by a rule
field of the element-wise table, the expected rule shows up where the targets' rules differ,
the kernel backend agrees with NumPy, and each class's reproducer runs."""
from __future__ import annotations

import pytest

from ptogpu.fuzz import FuzzConfig
from ptogpu.fuzz import compare as C
from ptogpu.fuzz import rules as R

CALLS = ["tadd", "tsub", "tmul", "tdiv", "tmax", "tmin", "tand", "tor", "txor", "tshl", "tshr", "tnot", "tneg", "tabs",
         "tadds", "tsubs", "tmuls", "tdivs", "tmaxs", "tmins", "tands", "tors", "txors", "tshls", "tshrs"]
EXPECT = {  # (call, dtype, pair) -> a rule the campaign must show
    ("tmax", "float32", "cpu:a5"): "max/min NaN and tie rule",
    ("tadd", "float32", "cpu:a2a3"): "denormal flush",
    ("tshl", "int32", "cpu:a5"): "shift count rule",
    ("tneg", "float32", "cpu:a5"): "sign rule",
    ("tshls", "int32", "cpu:a2a3"): "scalar shift count rule",
    ("tmins", "float32", "cpu:a5"): "scalar max/min NaN and tie rule",
    ("tsubs", "float32", "cpu:a2a3"): "A2/A3 scalar-form code",
}


@pytest.mark.parametrize("call", CALLS)
def test_every_divergence_is_explained(call):
    from ptogpu.isa.elementwise.config import ElementwiseInstr
    dt = ElementwiseInstr(call.upper()).defaults["dtype"]
    for pair in ("cpu:a5", "cpu:a2a3"):
        a, b = pair.split(":")
        rep = C.campaign(FuzzConfig(instr=call, rows=2, cols=32, oob="undefined", dtype=dt), f"{a}@numpy",
                         f"{b}@numpy", 300, seed=1, shrink=False)
        assert all(R.explained(c.mask) for c in rep.classes.values()), (call, pair, rep.classes)
        want = EXPECT.get((call, dt, pair))
        if want:
            assert any(want in c.name for c in rep.classes.values()), (call, pair, [c.name for c in rep.classes.values()])


@pytest.mark.parametrize("call", ["tmax", "tshr", "txor", "tneg", "tmuls", "tshrs"])
def test_the_kernel_backend_agrees_with_numpy(call):
    from ptogpu.backend import native_backend
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    from ptogpu.isa.elementwise.config import ElementwiseInstr
    dt = ElementwiseInstr(call.upper()).defaults["dtype"]
    for t in ("cpu", "a2a3", "a5"):
        rep = C.campaign(FuzzConfig(instr=call, rows=4, cols=32, oob="undefined", dtype=dt), f"{t}@numpy",
                         f"{t}@native", 300, seed=2, shrink=False)
        assert rep.divergent == 0 and not rep.classes, (call, t)


def test_a_class_reproducer_runs():
    rep = C.campaign(FuzzConfig(instr="tmax", rows=2, cols=32, oob="undefined"), "cpu@numpy", "a5@numpy", 100,
                     seed=0)
    (c, *_) = rep.classes.values()
    exec(compile(c.reproducer, "repro", "exec"), {})


def test_a_scalar_form_campaign_draws_a_scalar_per_instance():
    # the scalar is the last generated value of each instance: instance k's bytes are TADDS with
    # its own scalar (a golden computed here, integer wrap)
    import numpy as np
    from ptogpu.execution.batch import run_batch
    from ptogpu.execution.rng import Generator
    cfg = FuzzConfig(instr="tadds", target="a5", rows=2, cols=8, oob="undefined", dtype="int32")
    res = run_batch(cfg, 6, seed=4, backend="numpy")
    vals = Generator("mixed", 4)(np.arange(6), cfg.n_idx, cfg.cap).astype(np.uint64).astype(np.uint32).view(np.int32)
    for k in range(6):
        want = vals[k, :16] + vals[k, 16]                      # int32 wraps (numpy int32 arithmetic)
        assert res.outputs[k].view(np.int32).reshape(2, 8).reshape(-1).tolist() == want.tolist()
    assert len({int(v) for v in vals[:, 16]}) > 1              # (the instances' scalars differ)


def test_a_scalar_form_reproducer_runs():
    rep = C.campaign(FuzzConfig(instr="tshls", rows=1, cols=32, oob="undefined", dtype="int32"), "cpu@numpy",
                     "a2a3@numpy", 60, seed=0)
    (c, *_) = rep.classes.values()
    assert "GetValue" in c.reproducer
    exec(compile(c.reproducer, "repro", "exec"), {})


def test_the_fills_are_fuzzed_as_single_instructions():
    # TEXPANDS int8 at an odd width: A2/A3 fills one byte more a row (its rule); TCI agrees
    rep = C.campaign(FuzzConfig(instr="texpands", rows=4, cols=5, oob="undefined", dtype="int8", dst_fill=0xAB),
                     "cpu@numpy", "a2a3@numpy", 200, seed=1)
    assert [c.name for c in rep.classes.values()] == ["A2/A3 writes past the valid region"]
    for c in rep.classes.values():
        exec(compile(c.reproducer, "repro", "exec"), {})
    rep = C.campaign(FuzzConfig(instr="tci", op="desc", rows=1, cols=40, oob="undefined", dtype="int32"),
                     "cpu@numpy", "a5@numpy", 200, seed=1)
    assert rep.check_error is None and rep.divergent == 0


def test_tci_counts_from_each_instances_start():
    import numpy as np
    from ptogpu.execution.batch import run_batch
    from ptogpu.execution.rng import Generator
    cfg = FuzzConfig(instr="tci", target="a2a3", rows=1, cols=8, oob="undefined", dtype="int32")
    res = run_batch(cfg, 4, seed=3, backend="numpy")
    starts = Generator("mixed", 3)(np.arange(4), 1, cfg.cap)[:, 0].astype(np.uint64).astype(np.uint32).view(np.int32)
    for k in range(4):
        want = (starts[k].astype(np.int64) + np.arange(8)).astype(np.uint64).astype(np.uint32).view(np.int32)
        assert res.outputs[k].view(np.int32).tolist() == want.tolist()
