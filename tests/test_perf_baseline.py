"""The simple alternatives of perf/bench_fuzz.py (perf/baseline.cpp) run the campaign's own tiles:
each of their generators gives, for every instance, the index words of ptogpu's mixed
generator (so the bench compares the same work)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from ptogpu.backend import native_backend
from ptogpu.execution.rng import Generator

pytestmark = pytest.mark.skipif(native_backend.compiler() is None, reason="no C++ compiler")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "perf"))


@pytest.mark.parametrize("opt", ["O2", "O3"])
@pytest.mark.parametrize("cap", [4096, 300, 7])
def test_every_baseline_generator_gives_the_engines_tiles(cap, opt):
    import _baseline
    lib = _baseline.load(opt)
    inst = np.arange(0, 4000, 37, dtype=np.int64)
    want = Generator("mixed", 11)(inst, 256, cap).astype(np.int64) & 0xFFFFFFFF
    out = np.zeros(256, np.uint32)
    for gen in (0, 1, 2, 3):                # plain, branch-free, vectorised, the engine's word loops
        for t, w in zip(inst, want):
            lib.fuzz_tile(cap, 11, int(t), 256, gen, out.ctypes.data)
            assert np.array_equal(out.astype(np.int64), w), (gen, t)


def test_the_loops_count_the_same_divergent_tiles():
    import _baseline
    lib = _baseline.load("O2")
    tab = np.random.default_rng(0).standard_normal(4096).astype(np.float32)
    args = (tab.ctypes.data, 64, 4096, 2048, 5, 2000, 4)   # 4 indices below 64 or far past: some tiles diverge
    got = {lib.fuzz_loop(*args), *(lib.fuzz_loop_sel(*args, g) for g in (1, 2, 3))}
    assert len(got) == 1 and 0 < got.pop() < 2000


@pytest.mark.parametrize("slots", [64, 7])
@pytest.mark.parametrize("add", [0, 1])
def test_the_scatter_loops_store_by_the_skip_rule(slots, add):
    """Source element e goes to slot idx[e] where idx[e] < slots, later elements over earlier
    ones (add: summed in order, float32 rounding each step); an index at or past the slots is
    skipped (the golden: that rule, one element at a time)."""
    import _baseline
    lib = _baseline.load("O2")
    src = (np.arange(1, 257) + 0.1).astype(np.float32)
    for t in range(0, 400, 13):
        idx = Generator("mixed", 3)(np.array([t]), 256, slots)[0].astype(np.int64) & 0xFFFFFFFF
        want = np.zeros(slots, np.float32)
        for e, u in enumerate(idx):
            if u < slots:
                want[u] = np.float32(want[u] + src[e]) if add else src[e]
        w32 = idx.astype(np.uint32)
        for nb in (0, 1):
            tab = np.zeros(slots + 1, np.float32)
            lib.scatter_tile_c(tab.ctypes.data, slots, w32.ctypes.data, src.ctypes.data, 256, nb, add)
            assert tab[:slots].tobytes() == want.tobytes(), (t, nb, add)


def test_the_scatter_fuzz_bench_prints_what_ran():
    """perf/bench_fuzz_scatter.py, tiny: the four C++ loops, then every default pair's campaign
    with its engine, what executed, no tile off its references, and its ratio to the loops."""
    import json
    import subprocess
    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, str(root / "perf" / "bench_fuzz_scatter.py"), "--n", "3000", "--repeat", "1"],
                       capture_output=True, text=True, timeout=600)
    ra = subprocess.run([sys.executable, str(root / "perf" / "bench_fuzz_scatter.py"), "--n", "2000", "--repeat", "1",
                         "--atomic", "add"], capture_output=True, text=True, timeout=600)
    assert ra.returncode == 0, ra.stderr[-2000:]
    pairs = [json.loads(x)["pair"] for x in ra.stdout.splitlines() if '"pair"' in x]
    assert pairs == ["a5.default vs cpu", "a2a3 vs cpu"]
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    base = [x for x in lines if x.get("what", "").startswith("baseline")]
    runs = [x for x in lines if "pair" in x]
    assert len(base) == 4 and all(x["tiles_per_s"] > 0 and x["cpu_ns_per_tile"] > 0 for x in base)
    assert [x["pair"] for x in runs] == ["a5.default vs cpu", "a5.last vs cpu", "a5.default vs a5.last", "a2a3 vs cpu"]
    for x in runs:
        assert x["engine"].startswith("executing native: mscatter_fuzz")
        assert set(x["executed"].values()) <= {"lanes", "loop", "lanes (scan results from an owner table)"}
        assert x["references_off"] == {"a": 0, "b": 0} and x["over_baseline"] > 0
        assert x["cpu_ns_per_tile"] == min(x["runs_cpu_ns_per_tile"]) > 0
