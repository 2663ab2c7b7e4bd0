"""MSCATTER fuzz campaign throughput, one JSON line per measurement (same process, side by side).

Campaign: ``scatter.ScatterConfig()`` -- MSCATTER<Elem, no atomic, Skip> of a 16x16 float32
source tile into 64 slots, int32 indices from the mixed generator -- on native, for the pairs
``ptogpu fuzz --instr mscatter`` runs by default: a5.default vs cpu, a5.last vs cpu,
a5.default vs a5.last, a2a3 vs cpu (``--atomic add``: the same with ScatterAtomicOp::Add, whose
default pairs leave out Last). Each campaign is the executing engine (``mscatter_fuzz``:
both sides' kernels per tile, the A5 launches as lock-step warps, each side against its
reference, then the two against each other; ``executed`` in the JSON), timed ``--repeat``
times, the best reported (all in ``runs_tiles_per_s``).

The simple alternative, in the same process: a one-thread C++ loop (perf/baseline.cpp
``scatter_fuzz_loop``) that generates each tile (the same generator: the engine's own word
loops, cuda_src/counter_rng.cuh rng_words32), runs the CPU
simulator's scatter twice (source element e to slot idx[e] where idx[e] < 64, in order) into
two tables, memcmps and zeroes them -- built -O3 -march=native and -O2, its stores branchy
(``if``) and branch-free (a spare slot takes the skipped elements); with ``--atomic add`` it
adds (``tab[idx] += src``) instead of storing. ``over_baseline``: the
engine's rate over the fastest -O3 -march=native loop; ``over_baseline_O2`` likewise.

Usage: python perf/bench_fuzz_scatter.py [--n 1000000] [--repeat 3] [--atomic none|add]
"""
from __future__ import annotations

import argparse
import json
import os
os.environ.setdefault("PTOGPU_NATIVE_OPT", "-O3")   # time the optimised kernels, never a quick first-use build
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_mgather import machine  # noqa: E402

BASELINE_TILES = 200_000


def baseline_rate(n: int, opt: str, branch_free: bool, seed: int, add: bool = False) -> tuple[float, float]:
    """Tiles/s of the one-thread C++ loop, best of three; and its CPU ns a tile, least of three."""
    import _baseline
    lib = _baseline.load(opt)
    src = np.arange(1, 257, dtype=np.float32)
    best, cpu = 0.0, float("inf")
    for _ in range(3):
        t0, c0 = time.perf_counter(), _baseline.cpu_seconds()
        lib.scatter_fuzz_loop(src.ctypes.data, 64, 64, seed, n, 256, int(branch_free), int(add))
        best = max(best, n / (time.perf_counter() - t0))
        cpu = min(cpu, (_baseline.cpu_seconds() - c0) / n * 1e9)
    return best, cpu


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000, help="tiles per campaign")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--atomic", choices=("none", "add"), default="none")
    args = ap.parse_args()
    from ptogpu.backend import native_backend
    from ptogpu.fuzz import scatter
    import _baseline
    mach = machine()
    if not native_backend.available()[0]:
        print(json.dumps({"bench": "fuzz_scatter", "backend": "native", "skipped": "not available"}))
        return 0
    bases = {}
    add = args.atomic == "add"
    nb = max(1, min(args.n, BASELINE_TILES))
    for opt in ("O2", "O3"):
        for bf in (False, True):
            bases[opt, bf], cpu_ns = baseline_rate(nb, opt, bf, args.seed, add)
            print(json.dumps({"bench": "fuzz_scatter", "what": "baseline: one-thread C++ loop (generate, two "
                              f"CPU-simulator MSCATTERs{', Add' if add else ''}, memcmp), {_baseline.LABEL[opt]}, "
                              f"stores {'branch-free' if bf else 'branchy'}", "n": nb, "atomic": args.atomic,
                              "tiles_per_s": round(bases[opt, bf]), "cpu_ns_per_tile": round(cpu_ns, 1),
                              "machine": mach}), flush=True)
    best = {opt: max(bases[opt, bf] for bf in (False, True)) for opt in ("O2", "O3")}
    cfg = scatter.ScatterConfig(atomic=args.atomic)
    for _, a, b in scatter.default_pairs(cfg):
        scatter.campaign(cfg, a, b, 1000, seed=args.seed, shrink=False)      # warm-up (kernel build)
        runs, cpus = [], []
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), _baseline.cpu_seconds()
            rep = scatter.campaign(cfg, a, b, args.n, seed=args.seed, shrink=False)
            runs.append(time.perf_counter() - t0)
            cpus.append((_baseline.cpu_seconds() - c0) / args.n * 1e9)
        rate = args.n / min(runs)
        refs = rep.to_json()["references"]
        print(json.dumps({"bench": "fuzz_scatter", "backend": "native", "engine": rep.engine,
                          "executed": rep.executed, "pair": f"{a} vs {b}", "config": rep.config.op_label,
                          "generator": "mixed", "n": args.n, "tiles_per_s": round(rate),
                          "runs_tiles_per_s": [round(args.n / t) for t in runs],
                          "cpu_ns_per_tile": round(min(cpus), 1),      # (every thread's CPU time, a tile)
                          "runs_cpu_ns_per_tile": [round(c, 1) for c in cpus],
                          "references_off": {k: v["mismatched"] for k, v in refs.items()},
                          "divergent": rep.divergent, "over_baseline": round(rate / best["O3"], 2),
                          "over_baseline_O2": round(rate / best["O2"], 2),
                          "vector_isa": native_backend.vector_isa(), "machine": mach}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
