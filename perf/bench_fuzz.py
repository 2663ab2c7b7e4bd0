"""Fuzz campaign throughput, one JSON line per measurement (same process, side by side).

Campaign: 16x16 Elem index tiles, float32, 4096-element table, mixed generator, GatherOOB::Wrap,
A5 SIMT vs A2/A3, on each backend that is available here. Usage:

    python perf/bench_fuzz.py [--n 10000000] [--numpy-n 1000000] [--backends native,numpy,cupy] [--no-share]

On numpy the two sides' target-table rules for this campaign coincide (both cast to uint32_t,
same capacity), so one array computation serves both; --no-share runs and compares both.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ptogpu.fuzz import FuzzConfig  # noqa: E402
from ptogpu.fuzz.compare import campaign  # noqa: E402


def machine() -> dict:
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {"nproc": os.cpu_count(), "cpu": model, "loadavg_1m": load}


def available(backend: str) -> bool:
    from ptogpu.backend import backend_available
    try:
        return backend_available(backend)[0]
    except Exception:
        return False


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000, help="tiles for native and cupy")
    ap.add_argument("--numpy-n", type=int, default=1_000_000, help="tiles for numpy (slow)")
    ap.add_argument("--backends", default="native,cupy,numpy")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-share", action="store_true",
                    help="numpy: run both sides even when their target-table rules coincide")
    args = ap.parse_args()
    cfg = FuzzConfig(mode="elem", oob="wrap", dtype="float32", rows=16, cols=16, table_size=4096)
    mach = machine()
    if args.no_share:
        from ptogpu.fuzz import compare
        compare.SHARE_SIDES = False
    for be in args.backends.split(","):
        if be != "numpy" and not available(be):
            print(json.dumps({"bench": "fuzz_campaign", "backend": be, "skipped": "not available"}), flush=True)
            continue
        n = args.numpy_n if be == "numpy" else args.n
        campaign(cfg, f"a5.simt@{be}", f"a2a3@{be}", 1000, seed=args.seed, shrink=False)   # warm-up/build
        t0 = time.perf_counter()
        rep = campaign(cfg, f"a5.simt@{be}", f"a2a3@{be}", n, seed=args.seed, shrink=False)
        dt = time.perf_counter() - t0
        print(json.dumps({"bench": "fuzz_campaign", "backend": be, "engine": rep.engine,
                          "config": cfg.op_label, "pair": "a5.simt vs a2a3", "generator": "mixed",
                          "n": n, "seconds": round(dt, 3), "tiles_per_s": round(n / dt),
                          "divergent": rep.divergent, "faults": [rep.faults_a, rep.faults_b],
                          "machine": mach}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
