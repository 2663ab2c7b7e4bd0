"""Local worker pools for NumPy campaigns, side by side in one process, one JSON line each.

The same campaign tasks (ptogpu.fuzz.compare.vector_task: 16x16 Elem float32 tiles into 100 elements, CPU sim
vs A5 on NumPy, both sides computed) run through ``ptogpu.execution.executors.ordered_map`` on
loky's reusable executor (what ptogpu uses) and on ``concurrent.futures.ProcessPoolExecutor``
with the forkserver start method (the standard library's; it needs this script's
``__main__`` guard), and in this process (the simple alternative). Worker start-up is timed
apart (start_s); each pool is warm when timed. Usage:

    python perf/bench_pool.py [--n 400000] [--workers 2] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
os.environ.setdefault("PTOGPU_NATIVE_OPT", "-O3")   # time the optimised kernels, never a quick first-use build
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_fuzz import machine  # noqa: E402
from ptogpu.execution import executors  # noqa: E402
from ptogpu.execution.single import core_size  # noqa: E402
from ptogpu.execution.rng import Generator  # noqa: E402
from ptogpu.fuzz import FuzzConfig  # noqa: E402
from ptogpu.fuzz.compare import TASK_CHUNKS, Side, vector_task  # noqa: E402


def tasks(cfg, n: int, per_task: int, step: int):
    return [(s, min(per_task, n - s), step) for s in range(0, n, per_task)]


def timed(run) -> tuple[float, int]:
    t0 = time.perf_counter()
    div = sum(sum(len(r[4]) for r in res) for res in run())
    return time.perf_counter() - t0, div


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=400_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cfg = FuzzConfig(table_size=100)
    a, b = Side("cpu", "auto", "numpy"), Side("a5", "auto", "numpy")
    ctx = (a.config(cfg), b.config(cfg), Generator("mixed", 0), a, b, False)
    step = core_size(cfg, "numpy")
    ts = tasks(cfg, args.n, step * TASK_CHUNKS, step)
    mach = machine()
    try:
        from ptogpu.backend import native_backend
        mach["vector_isa"] = native_backend.vector_isa()
    except Exception:            # no compiler: the NumPy campaign does not need one
        mach["vector_isa"] = None
    nw = args.workers

    def one(ex):
        return lambda: executors.ordered_map(vector_task, ts, ex, shared=ctx)

    t0 = time.perf_counter()
    executors.start(nw, ("ptogpu.fuzz.compare",))
    loky_start = time.perf_counter() - t0
    t0 = time.perf_counter()
    cf = ProcessPoolExecutor(nw, mp_context=mp.get_context("forkserver"), initializer=executors._init_worker)
    list(cf.map(os.getpid, [None] * 0))
    for f in [cf.submit(executors.run_task, executors._import_all, (("ptogpu.fuzz.compare",),)) for _ in range(nw)]:
        f.result()
    cf_start = time.perf_counter() - t0
    runs = {"loky": (one(executors.local(nw)), loky_start),
            "concurrent.futures forkserver": (one(cf), cf_start),
            "this process": (one(None), 0.0)}
    try:                     # the pipe-fed pool ptogpu had before loky (gone after that change)
        from ptogpu.execution import pool as old
        t0 = time.perf_counter()
        old.start(nw, ("ptogpu.fuzz.compare",))
        runs["home-made pipe pool"] = (lambda: old.ordered_map(vector_task, ts, nw, shared=ctx),
                                       time.perf_counter() - t0)
    except ImportError:
        pass
    best = {}
    for _ in range(args.repeat):                          # interleaved, best of repeat
        for name, (run, _) in runs.items():
            dt, div = timed(run)
            best[name] = min(best.get(name, (1e9, 0)), (dt, div))
    divs = {d for _, d in best.values()}
    assert len(divs) == 1, f"the pools disagree on the divergent tiles: {best}"
    for name, (dt, div) in best.items():
        print(json.dumps({"bench": "local_pool", "pool": name, "workers": 0 if name == "this process" else nw,
                          "tiles": args.n, "seconds": round(dt, 3), "tiles_per_s": round(args.n / dt),
                          "start_s": round(runs[name][1], 3), "divergent": div,
                          "vs_this_process": round(best["this process"][0] / dt, 2),
                          "vs_loky": round(best["loky"][0] / dt, 3), **mach}), flush=True)
    cf.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
