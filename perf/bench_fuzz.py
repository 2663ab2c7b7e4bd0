"""Fuzz campaign throughput, one JSON line per measurement (same process, side by side).

Campaign: 16x16 Elem index tiles, float32, 4096-element table, mixed generator, GatherOOB::Wrap,
A5 SIMT vs A2/A3, on each backend that is available here. Usage:

    python perf/bench_fuzz.py [--n 10000000] [--exec-n 2000000] [--numpy-n 1000000] [--backends native,numpy,cupy] [--repeat 3] [--no-share]

native / cupy, for the pairs a5.simt vs a2a3 and cpu vs a5: the default campaign, which
executes both sides (every SIMT lane of the A5 launch, the scalar targets' loops; ``executed``
in the JSON) and gives every tile its three verdicts (each side against its formula
reference, then the two against each other; ``verdicts`` in the JSON) on ``--exec-n`` tiles -- on native the executing engine (both kernels per tile,
compared in C), once specialised for the campaign's configuration (``PTOGPU_FUZZ_SPECIALISE=1``:
its build timed on its own, ``build_s``) and once generic (``=0``), on cupy the batch path; on native also the batch path (results through
Python) on a tenth of them; the formula screening mode (``fused=True``: per-element
formulas, no lanes run) on ``--n`` tiles; and the simple alternative, a one-thread C++ loop
that generates each tile, runs two MGATHERs and compares bytes (perf/baseline.cpp, built both
-O3 -march=native and -O2, each with the generator written plainly (branches), branch-free,
branch-free in a loop marked ``omp simd`` -- vectorised, what a user tuning the loop
writes -- and the executing engine's own word loops, which a loop can take from ptogpu's
generator header (cuda_src/counter_rng.cuh; the mixed kind written in AVX-512 where the
build has it)), with the ratios (``over_baseline``: to the fastest -O3 -march=native loop;
``over_baseline_O2``: to the fastest -O2 one). The native lines name the build's vector ISA; one more native
line times the index generation alone (one thread): the part of a tile no engine saves
without changing the generator.

numpy runs the fused campaign (ptogpu.fuzz.fused_numpy) in worker processes with both sides
computed (the headline, against native), then: one run serving both sides (this pair's
target-table rules coincide: both cast to uint32_t, same capacity; skipped with --no-share),
one process, and the byte-compare path (ptogpu.execution.batch) as the simple alternative. Worker
start-up is timed on its own (worker_start_s); the campaign times exclude it.
"""
from __future__ import annotations

import argparse
import json
import os
os.environ.setdefault("PTOGPU_NATIVE_OPT", "-O3")   # time the optimised kernels, never a quick first-use build
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ptogpu.fuzz import FuzzConfig  # noqa: E402
from ptogpu.fuzz.compare import campaign  # noqa: E402

WARM = ("ptogpu.fuzz.compare", "ptogpu.fuzz.fused_numpy")   # what the campaign tasks import


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


def _line(be: str, rep, n: int, dt: float, mach: dict, pair: str = "a5.simt vs a2a3", **extra) -> dict:
    refs = rep.to_json()["references"]
    return {"bench": "fuzz_campaign", "backend": be, "engine": rep.engine, "executed": rep.executed,
            "verdicts": {k: {"reference": v["reference"].split(" (")[0], "mismatched": v["mismatched"]}
                         for k, v in refs.items()},
            "config": rep.config.op_label,
            "pair": pair, "generator": "mixed", "n": n, "seconds": round(dt, 3),
            "tiles_per_s": round(n / dt), "divergent": rep.divergent, "faults": [rep.faults_a, rep.faults_b],
            **extra, "machine": mach}


# The simple loop's generator: written plainly (branches), branch-free, branch-free in a loop
# marked `omp simd` (vectorised).
GENERATORS = {"plain": "", "sel": ", generator's selection branch-free",
              "simd": ", generator branch-free in an `omp simd` loop",
              "engine": ", the engine's own word loops (cuda_src/counter_rng.cuh rng_words32)"}
_GEN_ARG = {"sel": 1, "simd": 2, "engine": 3}          # baseline.cpp fuzz_loop_sel's `gen`


# Tiles each baseline loop runs (three times, per build and generator): about half a second of
# the slowest, plenty for a rate, and the GPU check's budget stays whole with --n 1e8.
BASELINE_TILES = 200_000


def baseline_rate(cfg, seed: int, n: int, opt: str = "O3", gen: str = "plain") -> tuple[float, float]:
    """Tiles/s of the one-thread C++ fuzz loop on the same campaign shape, built ``opt``, its
    generator ``gen`` (:data:`GENERATORS`), best of three; and its CPU ns a tile, least of three."""
    import numpy as np
    import _baseline
    lib = _baseline.load(opt)
    tab = np.asarray(cfg.table).view(np.float32)
    args = (tab.ctypes.data, cfg.table_size, cfg.table_size, cfg.table_size, seed, n, cfg.n_idx)
    best, cpu = 0.0, float("inf")
    for _ in range(3):
        t0, c0 = time.perf_counter(), _baseline.cpu_seconds()
        lib.fuzz_loop(*args) if gen == "plain" else lib.fuzz_loop_sel(*args, _GEN_ARG[gen])
        best = max(best, n / (time.perf_counter() - t0))
        cpu = min(cpu, (_baseline.cpu_seconds() - c0) / n * 1e9)
    return best, cpu


def words_rate(cfg, seed: int, n: int) -> float:
    """Tiles/s of the executing engine's index generation alone (cuda_src/fuzz.cu
    pto_fuzz_words_only, one thread): what every engine spends per tile before any kernel runs."""
    import ctypes
    from ptogpu.backend import native_backend
    from ptogpu.execution.rng import Generator
    f = native_backend.load("fuzz").pto_fuzz_words_only
    f.argtypes = [ctypes.c_uint64, ctypes.c_int, ctypes.c_uint64, ctypes.c_longlong, ctypes.c_uint64, ctypes.c_longlong]
    f.restype = ctypes.c_uint64
    kind = Generator("mixed", seed).counter_kind
    f(seed, kind, cfg.cap, cfg.n_idx, 0, 1000)
    t0 = time.perf_counter()
    f(seed, kind, cfg.cap, cfg.n_idx, 0, n)
    return n / (time.perf_counter() - t0)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000, help="tiles for native and cupy")
    ap.add_argument("--numpy-n", type=int, default=1_000_000, help="tiles for numpy (slower)")
    ap.add_argument("--exec-n", type=int, default=2_000_000, help="tiles for the executing campaigns")
    ap.add_argument("--backends", default="native,cupy,numpy")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3,
                    help="native/cupy campaigns: timed runs each, the best reported (all in runs_tiles_per_s)")
    ap.add_argument("--no-share", action="store_true",
                    help="numpy: only the runs that compute both sides (skip the one-run-for-both line)")
    args = ap.parse_args()
    cfg = FuzzConfig(mode="elem", oob="wrap", dtype="float32", rows=16, cols=16, table_size=4096)
    mach = machine()
    from ptogpu.fuzz import compare
    from ptogpu.execution import executors as pool
    rates = {}
    for be in args.backends.split(","):
        if be != "numpy" and not available(be):
            print(json.dumps({"bench": "fuzz_campaign", "backend": be, "skipped": "not available"}), flush=True)
            continue
        run = lambda n, **k: campaign(cfg, f"a5.simt@{be}", f"a2a3@{be}", n, seed=args.seed, shrink=False,
                                      **{"fused": True, **k})
        if be != "numpy":
            extra = {}
            if be == "native":
                from ptogpu.backend import native_backend
                extra["vector_isa"] = native_backend.vector_isa()
            import _baseline
            bases = {}
            nb = max(1, min(args.n // 10, BASELINE_TILES))
            for opt in ("O2", "O3"):
                for gen in GENERATORS:
                    bases[opt, gen], cpu_ns = baseline_rate(cfg, args.seed, nb, opt, gen)
                    print(json.dumps({"bench": "fuzz_campaign", "what": "baseline: one-thread C++ loop (generate, "
                                      f"two MGATHERs, memcmp), {_baseline.LABEL[opt]}{GENERATORS[gen]}",
                                      "n": nb, "tiles_per_s": round(bases[opt, gen]),
                                      "cpu_ns_per_tile": round(cpu_ns, 1), "machine": mach}), flush=True)
            # the ratios are to the fastest loop of each build: the strongest simple alternative
            bases = {opt: max(bases[opt, g] for g in GENERATORS) for opt in ("O2", "O3")}
            base = bases["O3"]
            if be == "native":
                gen_rate = words_rate(cfg, args.seed, max(1, args.exec_n // 4))
                print(json.dumps({"bench": "fuzz_campaign", "what": "the executing engine's index generation "
                                  "alone (mixed generator, 256 words a tile), one thread", "n": max(1, args.exec_n // 4),
                                  "tiles_per_s": round(gen_rate), "ns_per_tile": round(1e9 / gen_rate, 1),
                                  "machine": mach}), flush=True)
            for pa, pb in (("a5.simt", "a2a3"), ("cpu", "a5")):
                # (label, tiles, campaign keywords, PTOGPU_FUZZ_SPECIALISE)
                variants = [("executes both sides (default)", args.exec_n, {}, None),
                            ("formula screening (fused=True)", args.n, {"fused": True}, None)]
                if be == "native":               # the executing engine, specialised and generic; the batch path
                    variants[0:1] = [("executes both sides, specialised build", args.exec_n, {}, "1"),
                                     ("executes both sides, generic engine", args.exec_n, {}, "0")]
                    variants.insert(2, ("executes both sides, batch path (fused=False)",
                                        max(1, args.exec_n // 10), {"fused": False}, None))
                for label, n, kw, spec in variants:
                    if spec is not None:
                        os.environ["PTOGPU_FUZZ_SPECIALISE"] = spec
                    go = lambda m: campaign(cfg, f"{pa}@{be}", f"{pb}@{be}", m, seed=args.seed, shrink=False, **kw)
                    t0 = time.perf_counter()
                    go(1000)                                   # warm-up / build (timed on its own)
                    warm = time.perf_counter() - t0
                    runs, cpus = [], []
                    for _ in range(args.repeat):           # best of: the VMs' neighbours come and go
                        t0, c0 = time.perf_counter(), _baseline.cpu_seconds()
                        rep = go(n)
                        runs.append(time.perf_counter() - t0)
                        cpus.append((_baseline.cpu_seconds() - c0) / n * 1e9)
                    dt = min(runs)
                    os.environ.pop("PTOGPU_FUZZ_SPECIALISE", None)
                    if pa == "a5.simt" and kw:
                        rates[be] = n / dt
                    more = {"build_s": round(warm, 2)} if spec == "1" else {}
                    more["runs_tiles_per_s"] = [round(n / t) for t in runs]
                    more["cpu_ns_per_tile"] = round(min(cpus), 1)    # (every thread's CPU time, a tile)
                    more["runs_cpu_ns_per_tile"] = [round(c, 1) for c in cpus]
                    print(json.dumps(_line(be, rep, n, dt, mach, pair=f"{pa} vs {pb}", variant=label,
                                           over_baseline=round(n / dt / base, 2),
                                           over_baseline_O2=round(n / dt / bases["O2"], 2), **more, **extra)),
                          flush=True)
            continue
        n = args.numpy_n
        nw = pool.workers(n * cfg.n_idx)
        t0 = time.perf_counter()
        if nw:
            pool.start(nw, WARM)                           # worker start-up, reported on its own
        start_s = time.perf_counter() - t0
        variants = [("fused, both sides computed", dict(fused=True), False, None),
                    ("fused, 1 worker process (one core)", dict(fused=True), False, "1"),
                    ("fused, in the calling process", dict(fused=True), False, "0"),
                    ("byte compare (ptogpu.execution.batch), both sides", dict(fused=False), False, None)]
        if not args.no_share:
            variants.insert(1, ("fused, one run for both sides (equal target-table rules)", dict(fused=True), True, None))
        for label, kw, share, workers in variants:
            compare.SHARE_SIDES = share
            if workers:
                os.environ["PTOGPU_FUZZ_WORKERS"] = workers
            run(1000, **kw)
            pool.start(pool.workers(n * cfg.n_idx), WARM)  # (re)started outside the timing
            t0 = time.perf_counter()
            rep = run(n, **kw)
            dt = time.perf_counter() - t0
            os.environ.pop("PTOGPU_FUZZ_WORKERS", None)
            extra = {"variant": label, "worker_start_s": round(start_s, 3) if nw and not workers else None}
            if "native" in rates:
                extra["native_over_numpy"] = round(rates["native"] / (n / dt), 2)
            print(json.dumps(_line(be, rep, n, dt, mach, **extra)), flush=True)
        compare.SHARE_SIDES = True
    return 0


if __name__ == "__main__":
    sys.exit(main())
