"""A core of N instances against the batch API it succeeds and the executing fuzz engine.

One JSON line per measurement, all in one process, on MGATHER Elem Clamp, A5 (SIMT), 16x16
float32 tiles from a 4096-element table, int32 index tiles uniform over [0, 1.25 * 4096):

  * ``core_batch``: ``pto.Core("a5", backend, batch=N)``: the per-instance index tiles go in
    with ``gm_put(..., per_instance=True)``, then TLOAD and MGATHER run on every instance
    (``steps`` says whether the batch rules ran: one launch over N blocks on native, one NumPy
    step along the instance axis on numpy); timed: the instructions, and the whole program
    (put, TLOAD, MGATHER, reading the N destination tiles back);
  * ``run_batch``: ``ptogpu.execution.run_batch`` on the same configuration (the batch API);
  * ``run_batch_on_cores``: ``run_batch`` of TGATHERB and TINTERLEAVE, whose batches run the
    public API on cores of N on every backend (``path`` says what ran);
  * ``fuzz_campaign``: the executing fuzz engine, a5.simt vs a2a3 (two sides and their
    references per tile), the figure the issue compares against;
  * ``baseline``: a plain one-thread C++ loop of the same rule over the same memory (the
    batched core's UB bank), built -O3 -march=native (perf/baseline.cpp), with the ratio.

  * ``run_batch_vs_rev`` (with ``--against REV``): ``run_batch`` of the same configuration,
    16x16 uniform tiles, timed here and, in the same run, at git revision REV (a temporary
    worktree of this checkout, imported by a subprocess of the same interpreter; its native
    library builds in its own cache), each side best of 3, with the ratio: the figure a change
    is judged by, not a number copied from an earlier run.

Usage: python perf/bench_batch_core.py [--n 262144] [--chunk 65536] [--backends native,numpy]
                                       [--against 9662de7]
"""
from __future__ import annotations

import argparse
import json
import os
os.environ.setdefault("PTOGPU_NATIVE_OPT", "-O3")   # time the optimised kernels
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ptogpu as pto  # noqa: E402
from ptogpu.execution import engine, run_batch  # noqa: E402
from ptogpu.execution.rng import Generator  # noqa: E402
from ptogpu.fuzz import FuzzConfig  # noqa: E402
from ptogpu.fuzz.compare import campaign  # noqa: E402
from bench_fuzz import available, machine  # noqa: E402

R = C = 16
TABLE = 4096
V = pto.TileType.Vec


def emit(rec: dict) -> None:
    print(json.dumps(rec), flush=True)


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def program(backend: str, ids: np.ndarray, table: np.ndarray, timings: dict):
    """The kernel a user writes, on a core of len(ids) instances; returns (core, dst tile)."""
    with pto.Core("a5", backend, batch=len(ids)) as core:
        tab = core.gm_put(table)
        gi = core.gm_put(ids, per_instance=True)
        It, Dt = pto.Tile[V, pto.int32, R, C], pto.Tile[V, pto.float32, R, C]
        it, dt = It(), Dt()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dt, R * C * 4)
        G = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, R, C], pto.Stride[R * C, R * C, R * C, C, 1]]
        T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, TABLE], pto.Stride[TABLE, TABLE, TABLE, TABLE, 1]]
        t0 = time.perf_counter()
        pto.TLOAD(it, G(gi))
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dt, T(tab), it)
        timings["instructions"] = timings.get("instructions", 0.0) + time.perf_counter() - t0
        out = dt.numpy()

    def again(new_ids: np.ndarray) -> np.ndarray:
        """The same core once more (its memory pages already touched): new index tiles in,
        MGATHER, the destination tiles out."""
        with core:
            it.set(new_ids.reshape(len(new_ids), R, C))
            pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dt, T(tab), it)
            return dt.numpy()
    return core, out, again


RUN_BATCH = """
import json, os, sys, time
os.environ.setdefault("PTOGPU_NATIVE_OPT", "-O3")
sys.path.insert(0, sys.argv[1])
from ptogpu.execution import run_batch
from ptogpu.fuzz import FuzzConfig
cfg = FuzzConfig(mode="elem", oob="clamp", dtype="float32", rows=16, cols=16, table_size=4096)
out = {}
for be in sys.argv[2].split(","):
    for keep in (True, False):
        n = int(sys.argv[3])
        run_batch(cfg, 4096, generator="uniform", backend=be, keep_outputs=keep)
        ts = []
        for _ in range(3):
            t0 = time.perf_counter()
            run_batch(cfg, n, generator="uniform", backend=be, keep_outputs=keep)
            ts.append(time.perf_counter() - t0)
        out[f"{be}:{keep}"] = n / min(ts)
print(json.dumps(out))
"""


def against(rev: str, backends: str, n: int, mach: dict) -> None:
    """``run_batch`` here and at ``rev``, side by side in this run (see the module doc)."""
    import subprocess
    import tempfile
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    with tempfile.TemporaryDirectory() as tmp:
        wt = os.path.join(tmp, "rev")
        subprocess.run(["git", "-C", here, "worktree", "add", "--detach", "-q", wt, rev], check=True)
        try:
            runs = {}
            for label, root in (("here", here), (rev, wt)):
                r = subprocess.run([sys.executable, "-c", RUN_BATCH, os.path.abspath(root), backends, str(n)],
                                   capture_output=True, text=True, check=True)
                runs[label] = json.loads(r.stdout.strip().splitlines()[-1])
        finally:
            subprocess.run(["git", "-C", here, "worktree", "remove", "--force", wt], check=False)
    for key, now in runs["here"].items():
        be, keep = key.split(":")
        then = runs[rev].get(key)
        emit({"bench": "run_batch_vs_rev", "backend": be, "keep_outputs": keep == "True", "n": n,
              "config": "MGATHER a5 Elem Clamp 16x16 f32, table 4096, uniform",
              "tiles_per_s": round(now), "rev": rev, "rev_tiles_per_s": round(then) if then else None,
              "ratio": round(now / then, 2) if then else None, "machine": mach})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 18, help="instances (index tiles) per measurement")
    ap.add_argument("--chunk", type=int, default=1 << 16, help="instances per batched core")
    ap.add_argument("--backends", default="native,numpy")
    ap.add_argument("--against", metavar="REV", help="also time run_batch at this git revision, in this run")
    ap.add_argument("--against-n", type=int, default=1 << 18, help="instances per run_batch of --against")
    args = ap.parse_args()
    mach = machine()
    rng = np.random.default_rng(1)
    table = rng.standard_normal(TABLE).astype(np.float32)
    chunk = min(args.chunk, args.n)
    ids = rng.integers(0, TABLE * 5 // 4, (chunk, R * C)).astype(np.int32)
    cfg = FuzzConfig(mode="elem", oob="clamp", dtype="float32", rows=R, cols=C, table_size=TABLE)
    isa = None
    for be in args.backends.split(","):
        if be != "numpy" and not available(be):
            emit({"bench": "core_batch", "backend": be, "skipped": "not available"})
            continue
        if be == "native":
            from ptogpu.backend import native_backend
            isa = native_backend.vector_isa()
        reps = max(1, args.n // chunk)
        program(be, ids[:64], table, {})                             # warm-up / build
        tm: dict = {}
        last = {}

        def whole():
            for _ in range(reps):
                last["core"], last["out"], last["again"] = program(be, ids, table, tm)
        dt = best(whole)
        n = reps * chunk
        core = last["core"]
        emit({"bench": "core_batch", "backend": be, "vector_isa": isa if be == "native" else None,
              "config": "MGATHER a5 Elem Clamp 16x16 f32, table 4096", "instances_per_core": chunk,
              "n": n, "steps": core.steps, "faults": sum(e is not None for e in core.faults),
              "seconds_program": round(dt, 4), "tiles_per_s_program": round(n / dt),
              "tiles_per_s_instructions": round(n * 3 / tm["instructions"]), "machine": mach})
        ids2 = rng.integers(0, TABLE * 5 // 4, ids.shape).astype(np.int32)
        last["again"](ids2)
        wt = best(lambda: last["again"](ids2))
        emit({"bench": "core_batch_reused", "backend": be, "what": "the same core again: "
              "tile.set(per-instance index tiles), MGATHER, dst.numpy()", "n": chunk,
              "steps": core.steps, "seconds": round(wt, 4), "tiles_per_s": round(chunk / wt),
              "machine": mach})
        nb = n
        ran = ("engine tiles (execution.engine: the kernels per tile)"
               if be == "native" and engine.covers(cfg, Generator("uniform")) else
               "cores of N (one launch over N blocks)" if be != "numpy" else
               "cores of N (one NumPy step along the instances)")
        for keep in (True, False):
            rb = best(lambda: run_batch(cfg, nb, generator="uniform", backend=be, keep_outputs=keep))
            emit({"bench": "run_batch", "backend": be, "keep_outputs": keep, "ran": ran, "n": nb,
                  "seconds": round(rb, 4), "tiles_per_s": round(nb / rb),
                  "core_batch_over_run_batch": round((n / dt) / (nb / rb), 2), "machine": mach})
        for ocfg, gen in ((FuzzConfig(instr="tgatherb", target="a5", rows=4, cols=64, table_size=512), "mixed"),
                          (FuzzConfig(instr="tinterleave", target="a5", dtype="half", rows=4, cols=16), "mixed")):
            no = 1 << 16
            run_batch(ocfg, 2048, generator=gen, backend=be)
            res = {}
            ob = best(lambda: res.update(r=run_batch(ocfg, no, generator=gen, backend=be, keep_outputs=False)))
            emit({"bench": "run_batch_on_cores", "backend": be, "config": ocfg.label, "generator": gen,
                  "path": res["r"].path, "faults": res["r"].n_faults, "n": no, "seconds": round(ob, 4),
                  "tiles_per_s": round(no / ob), "machine": mach})
        if be == "native":
            ne = 1 << 20
            campaign(cfg, "a5.simt@native", "a2a3@native", 1000, seed=1, shrink=False)
            ce = best(lambda: campaign(cfg, "a5.simt@native", "a2a3@native", ne, seed=1, shrink=False), 2)
            emit({"bench": "fuzz_campaign", "backend": be, "what": "executing engine, a5.simt vs a2a3",
                  "n": ne, "tiles_per_s": round(ne / ce),
                  "core_batch_over_campaign": round((n / dt) / (ne / ce), 2), "machine": mach})
            import _baseline
            lib = _baseline.load()
            ub = core.banks["ub"]
            tab = np.ascontiguousarray(table)
            bl = best(lambda: [lib.gather_loop(tab.ctypes.data, TABLE, ub.flat.ctypes.data, chunk,
                                               ub.stride, R, C, 0, R * C * 4) for _ in range(reps)])
            emit({"bench": "baseline", "what": "one-thread C++ loop of the rule over the core's UB bank",
                  "flags": " ".join(_baseline.FLAGS), "n": n, "tiles_per_s": round(n / bl),
                  "core_batch_instructions_over_baseline": round((n * 3 / tm["instructions"]) / (n / bl), 2),
                  "machine": mach})
    if args.against:
        against(args.against, ",".join(b for b in args.backends.split(",") if b == "numpy" or available(b)),
                args.against_n, mach)
    return 0


if __name__ == "__main__":
    sys.exit(main())
