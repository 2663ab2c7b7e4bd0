"""Single element-wise instruction campaigns: tiles per second of ``ptogpu fuzz --instr CALL``
(16x16 tiles, mixed generator, cpu vs a5), one JSON line per measurement, in one process:

* ``engine``: the element-wise campaign engine (cuda_src/elementwise_fuzz.cu) on native -- both
  sides and the classification per tile in C, each side checked against the NumPy semantics on
  a sample (``references`` in the JSON);
* ``batch``: the batch path on native (each side's kernel through Python per chunk, every tile
  checked against its NumPy reference) and on numpy;
* the simple alternatives: a per-instance Python loop (``run_single`` on both sides, bytes
  compared), and for TADD a C++ loop built -O3 -march=native (perf/baseline.cpp ew_add_loop:
  the same generator, x + y against the NPUs' flushed add, memcmp, OpenMP over the same
  threads; it counts more divergent tiles where both operands are NaNs: C++ leaves the payload
  of x + y to the compiler), with the ratios ``over_loop`` and ``over_cpp``.

Usage: python perf/bench_elementwise.py [--n 2000000] [--calls tadd,tmax,tshl:int32,tmuls]
"""
from __future__ import annotations

import argparse
import json
import os
os.environ.setdefault("PTOGPU_NATIVE_OPT", "-O3")   # time the optimised kernels, never a quick first-use build
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from ptogpu.execution.rng import Generator  # noqa: E402
from ptogpu.execution.single import run_single  # noqa: E402
from ptogpu.fuzz import FuzzConfig  # noqa: E402
from ptogpu.fuzz.compare import campaign  # noqa: E402
from bench_fuzz import available, machine  # noqa: E402


def emit(rec: dict) -> None:
    print(json.dumps(rec), flush=True)


def rate(cfg, a: str, b: str, n: int, **kw) -> tuple[float, object]:
    campaign(cfg, a, b, min(n, 2000), shrink=False, **kw)                 # warm-up (builds, imports)
    t0 = time.perf_counter()
    rep = campaign(cfg, a, b, n, shrink=False, **kw)
    return n / (time.perf_counter() - t0), rep


def loop_rate(cfg, n: int) -> float:
    """The per-instance Python loop: both sides through the public API, bytes compared."""
    vals = Generator("mixed", 0)(np.arange(n), cfg.n_idx, cfg.cap)
    t0 = time.perf_counter()
    for k in range(n):
        oa, _ = run_single(cfg.with_(target="cpu"), vals[k], "native")
        ob, _ = run_single(cfg.with_(target="a5"), vals[k], "native")
        _ = oa.tobytes() != ob.tobytes()
    return n / (time.perf_counter() - t0)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2_000_000)
    ap.add_argument("--batch-n", type=int, default=20_000)
    ap.add_argument("--loop-n", type=int, default=300)
    ap.add_argument("--calls", default="tadd,tmax,tshl:int32,tmuls")
    args = ap.parse_args()
    mach = machine()
    if not available("native"):
        emit({"bench": "elementwise_campaign", "skipped": "native backend not available", "machine": mach})
        return 0
    for spec in args.calls.split(","):
        call, _, dt = spec.partition(":")
        cfg = FuzzConfig(instr=call, rows=16, cols=16, oob="undefined", dtype=dt or "float32")
        eng, rep = rate(cfg, "cpu@native", "a5@native", args.n)
        base = {"bench": "elementwise_campaign", "call": call.upper(), "dtype": cfg.dtype, "shape": "16x16",
                "pair": "cpu:a5", "generator": "mixed", "machine": mach}
        emit({**base, "engine": rep.engine, "n": args.n, "tiles_per_s": round(eng), "divergent": rep.divergent,
              "classes": sorted(c.name for c in rep.classes.values()), "references": rep.references["a"]})
        bat, brep = rate(cfg, "cpu@native", "a5@native", args.batch_n, fused=False)
        emit({**base, "engine": brep.engine, "n": args.batch_n, "tiles_per_s": round(bat),
              "engine_over_batch": round(eng / bat, 1)})
        nb, nrep = rate(cfg, "cpu@numpy", "a5@numpy", args.batch_n)
        emit({**base, "engine": nrep.engine, "n": args.batch_n, "tiles_per_s": round(nb),
              "engine_over_numpy": round(eng / nb, 1)})
        lp = loop_rate(cfg, args.loop_n)
        emit({**base, "engine": "per-instance Python loop (run_single on both sides, native)", "n": args.loop_n,
              "tiles_per_s": round(lp, 1), "over_loop": round(eng / lp, 1)})
        if call == "tadd" and cfg.dtype == "float32":
            import _baseline
            from ptogpu.backend import native_backend
            lib, threads = _baseline.load("O3"), int(native_backend.load("elementwise_fuzz").pto_host_shim_threads())
            lib.ew_add_loop(0, 1000, threads)
            t0 = time.perf_counter()
            div = lib.ew_add_loop(0, args.n, threads)
            cpp = args.n / (time.perf_counter() - t0)
            emit({**base, "engine": f"C++ loop ({_baseline.LABEL['O3']}, {threads} threads, perf/baseline.cpp "
                  "ew_add_loop: no classes, no references)", "n": args.n, "tiles_per_s": round(cpp),
                  "divergent": int(div), "over_cpp": round(eng / cpp, 2)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
