"""The ``edges`` generator of single-instruction campaigns: a pure function of (seed, instance),
half the elements edge words of every type's width, drawn in Python only (no C engine claims
it), and a campaign on it reaching the rules the index kinds do not."""
from __future__ import annotations

import numpy as np
import pytest

from ptogpu.execution.edges import edge_pool, edge_words
from ptogpu.execution.rng import Generator


def test_edges_are_a_pure_function_of_the_instance():
    g = Generator("edges", 3)
    whole = g(np.arange(50), 64, 100)
    assert whole.dtype == np.int64 and whole.shape == (50, 64)
    assert (g(np.array([17, 4]), 64, 100) == whole[[17, 4]]).all()
    assert not (Generator("edges", 4)(np.arange(50), 64, 100) == whole).all()
    assert g.counter_kind is None                 # the C engines generate index kinds only


def test_half_the_elements_are_edge_words_and_each_width_sees_its_own_edges():
    w = Generator("edges", 0)(np.arange(400), 64, 100).view(np.uint64)
    share = np.isin(w, edge_words()).mean()
    assert 0.45 < share < 0.55
    for t, u in (("float32", np.uint32), ("half", np.uint16), ("int8", np.uint8)):
        low = w.astype(u)                         # the cast a campaign makes: wrapping to the width
        pool = edge_pool(t).view(u)
        assert set(pool.tolist()) <= set(low.reshape(-1).tolist()), t     # every edge drawn
    f = w.astype(np.uint32).view(np.float32)
    assert np.isnan(f).any() and (f == 0).any() and np.isinf(f).any()


def test_unknown_generators_name_the_value_kind_too():
    with pytest.raises(ValueError, match="edges"):
        Generator("edgy")


def test_a_single_instruction_campaign_on_edges_reaches_the_tie_rule():
    """TSORT32's tie order differs between the simulator and A5, which only equal values show:
    every bit pattern (uniform) almost never ties in a block; edge values do."""
    from ptogpu.execution.config import FuzzConfig
    from ptogpu.execution.instrs import REGISTRY
    from ptogpu.fuzz.spec import CampaignSpec
    cfg = FuzzConfig(**{**REGISTRY["tsort32"].defaults, "instr": "tsort32"})
    got = {}
    for gen in ("edges", "uniform"):
        rep = CampaignSpec.of(cfg, "cpu@numpy", "a5@numpy", 100, generator=gen).run(shrink=False)
        got[gen] = sorted(c.name for c in rep.classes.values())
    assert any("tie order" in c for c in got["edges"]) and not any("tie order" in c for c in got["uniform"]), got


def test_e4m3_edges_hold_its_nan_and_its_largest_finite():
    """OCP E4M3 has no infinity: the IEEE patterns (an all-ones exponent) are numbers there, so
    its pool adds its own NaNs (0x7F, 0xFF) and largest finite (+-448), decoded by ml_dtypes."""
    import ml_dtypes
    v = edge_pool("float8_e4m3").view(np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    assert np.isnan(v).sum() >= 2 and not np.isinf(v).any()
    assert {448.0, -448.0} <= set(v[~np.isnan(v)].tolist())
