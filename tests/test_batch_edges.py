"""Batches and campaigns agree with the single call on edge configurations (issue 12 §1)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from ptogpu.backend import backend_available
from ptogpu.batch import run_batch
from ptogpu.fuzz.config import FuzzConfig
from ptogpu.fuzz.rng import Generator
from ptogpu.fuzz.single import fault_code, run_single

BACKENDS = ["numpy"] + (["native"] if backend_available("native")[0] else [])
ZERO_CAP = [dict(table_size=0), dict(table_shape=(1, 1, 1, 0, 16))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("space,mode,target,kw", [
    (s, m, t, kw) for s, m, t, kw in itertools.product(["ub", "l1"], ["elem", "row"], ["cpu", "a2a3", "a5"], ZERO_CAP)
    if not (m == "row" and "table_size" in kw)])          # a Row table of 0 elements keeps one row
def test_wrap_with_capacity_zero_faults_in_batches_as_in_the_single_call(backend, space, mode, target, kw):
    cfg = FuzzConfig(space=space, mode=mode, target=target, oob="wrap", rows=4, cols=16, **kw)
    gen = Generator("mixed", 1)
    res = run_batch(cfg, 5, backend=backend, generator=gen)
    for i in range(5):
        out, f = run_single(cfg, gen(np.array([i]), cfg.n_idx, cfg.cap)[0])
        assert f is not None and "capacity 0" in f
        assert res.faults[i] == fault_code(f) and np.array_equal(res.outputs[i], out)


def test_a_campaign_on_capacity_zero_counts_the_faults():
    from ptogpu.fuzz.compare import campaign
    be = BACKENDS[-1]
    rep = campaign(FuzzConfig(oob="wrap", table_size=0), f"a5@{be}", f"a2a3@{be}", 50, shrink=False)
    assert rep.faults_a == rep.faults_b == 50 and rep.divergent == 0
