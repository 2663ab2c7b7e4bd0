"""Launch metrics (lanes, rounds, sectors) and shape sweeps."""
from __future__ import annotations

import time

import numpy as np
import pytest

from ptogpu.simt import SimtCase
from ptogpu.simt.metrics import launch_metrics
from ptogpu.simt.sweep import sweep


def test_row_3x8_idles_24_lanes_per_warp():
    m = launch_metrics(SimtCase("row", 3, 8))
    assert (m.warps, m.threads, m.elements, m.rounds, m.warp_rounds) == (3, 96, 24, 1, 3)
    assert m.idle_threads == 72 and m.idle_lane_slots == 72
    assert m.lane_utilisation == pytest.approx(0.25)
    assert m.elems_per_thread == (0, 1)
    assert m.gm_sectors == 3                  # 8 fp32 = one 32-byte sector per row
    assert m.ub_blocks == 3 + 3               # dst row block + the index block per warp-round


def test_row_64x16_two_rounds_per_thread():
    m = launch_metrics(SimtCase("row", 64, 16))
    assert (m.warps, m.rounds, m.rounds_per_thread) == (32, 2, (2, 2))
    assert m.active_per_round == (0.5, 0.5)
    assert m.elems_per_thread == (0, 2)


def test_elem_grid_stride_rounds():
    m = launch_metrics(SimtCase("elem", 40, 40))      # 1600 elements, 1024 threads
    assert (m.warps, m.rounds, m.warp_rounds) == (32, 2, 50)
    assert m.active_per_round == pytest.approx((1.0, 576 / 1024))
    assert m.rounds_per_thread == (1, 2) and m.elems_per_thread == (1, 2)


def test_elem_sectors_follow_the_index_pattern():
    seq = launch_metrics(SimtCase("elem", 32, 32))
    rng = np.random.default_rng(0)
    scattered = launch_metrics(SimtCase("elem", 32, 32, indices=rng.permutation(1 << 20)[:1024] * 8))
    same = launch_metrics(SimtCase("elem", 32, 32, indices=np.zeros((32, 32), int), cap=1))
    assert seq.gm_sectors == 32 * 4 and seq.gm_efficiency == 1.0
    assert scattered.gm_sectors == 1024 and scattered.gm_sectors_max == 32
    assert same.gm_sectors == 32                       # one broadcast sector per warp-round


def test_l1_elem_writes_the_whole_padded_tile():
    m = launch_metrics(SimtCase("l1_elem", 5, 9, dtype="float16"))
    assert m.elements == 16 * 16 and m.warps == 8 and m.idle_threads == 0


def test_table_text_mentions_every_metric():
    text = launch_metrics(SimtCase("row", 3, 40)).table()
    for word in ("dim3{32, 6}", "rounds per thread", "lane utilisation", "idle threads",
                 "GM sectors", "UB blocks", "elements per thread"):
        assert word in text


@pytest.mark.parametrize("mode", ["row", "elem"])
def test_sweep_equals_launch_metrics(mode):
    rng = np.random.default_rng(3)
    rows = sorted(set(rng.integers(1, 90, 4).tolist() + [1, 32, 33]))
    cols = sorted(set(rng.integers(1, 300, 4).tolist() + [1, 32, 33]))
    for dt in ("float32", "float16", "int8"):
        s = sweep(mode, rows, cols, [dt])
        for i in range(len(s)):
            m = launch_metrics(SimtCase(mode, int(s.vr[i]), int(s.vc[i]), dtype=dt))
            got = {k: s[k][i] for k in ("warps", "rounds", "rounds_min", "warp_rounds", "idle_threads",
                                        "elems_min", "elems_max", "gm_sectors", "ub_blocks")}
            want = dict(warps=m.warps, rounds=m.rounds, rounds_min=m.rounds_per_thread[0],
                        warp_rounds=m.warp_rounds, idle_threads=m.idle_threads,
                        elems_min=m.elems_per_thread[0], elems_max=m.elems_per_thread[1],
                        gm_sectors=m.gm_sectors, ub_blocks=m.ub_blocks)
            assert got == want, (mode, dt, s.vr[i], s.vc[i])
            assert s["lane_utilisation"][i] == pytest.approx(m.lane_utilisation)
            assert s["occupancy"][i] == pytest.approx(m.occupancy)


@pytest.mark.parametrize("mode", ["row", "elem"])
@pytest.mark.parametrize("dt", ["int64", "int8"])
def test_sweep_equals_launch_metrics_on_big_shapes(mode, dt):
    """The closed forms (floor sums over rows and warp-rounds) on shapes of up to 1001 columns
    and 8- and 1-byte elements, against the launches' own counts."""
    s = sweep(mode, [999, 513, 37], [1001, 77], [dt])
    for i in range(len(s)):
        m = launch_metrics(SimtCase(mode, int(s.vr[i]), int(s.vc[i]), dtype=dt))
        assert (s["gm_sectors"][i], s["ub_blocks"][i], s["idle_threads"][i]) == \
            (m.gm_sectors, m.ub_blocks, m.idle_threads), (s.vr[i], s.vc[i])


@pytest.mark.parametrize("mode", ["row", "elem"])
def test_sweep_of_10000_shapes_takes_seconds(mode):
    t = time.perf_counter()
    s = sweep(mode, range(1, 101), range(1, 101))
    dt = time.perf_counter() - t
    assert len(s) == 10_000
    assert dt < 5.0, f"{dt:.2f} s"
    assert np.isfinite(s["lane_utilisation"]).all() and (s["lane_utilisation"] <= 1).all()
    t = time.perf_counter()
    big = sweep(mode, range(1, 1001, 10), range(1, 1001, 10), ["float32", "half"])
    assert len(big) == 20_000 and time.perf_counter() - t < 5.0


def test_sweep_table_grid_and_csv():
    s = sweep("row", [1, 8, 40], [8, 32, 100], ["float32", "int8"])
    assert len(s) == 18
    rs, cs, grid = s.grid("lane_utilisation", "int8")
    assert rs.tolist() == [1, 8, 40] and cs.tolist() == [8, 32, 100] and grid[0, 1] == 1.0
    assert "lane util" in s.table(s.order())
    assert s.csv().count("\n") == 19
    with pytest.raises(ValueError):
        sweep("l1_elem", [1], [1])
