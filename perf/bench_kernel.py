"""Kernel campaigns: instances per second of example kernels across their FUZZ pair, one JSON
line per measurement, in one process: ``ptogpu.fuzz.kernel`` on each backend (both sides, a
kernel side's NumPy reference, the verdicts), and the simple alternative: a Python loop that
runs the kernel once per instance on a single core of each side and compares the output bytes.
By default the embedding bag (ids 1x16 int32, MGATHER Row from a 1000x64 float32 table, TSTORE)
and the hash probe (16x16 queries, a 512-slot table, up to 64 probes with an early exit: the
portable kernel, cpu vs a5).

A PTO IR kernel (``--kernel examples/ptoir/embedding_bag.pto``) runs the same way: its ops as
the calls PTOAS lowers them to, one instruction call per op per chunk.

Usage: python perf/bench_kernel.py [--kernel examples/F.py:FN | F.pto ...] [--n 65536] [--loop-n 500]
                                   [--backends native,numpy]
"""
from __future__ import annotations

import argparse
import json
import os
os.environ.setdefault("PTOGPU_NATIVE_OPT", "-O3")
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ptogpu as pto  # noqa: E402
from ptogpu.execution.inputs import draw  # noqa: E402
from ptogpu.fuzz.user_kernel import kernel, load_kernel  # noqa: E402
from bench_fuzz import available, machine  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
REFS = [os.path.join(EXAMPLES, "embedding_bag.py") + ":embedding_bag",
        os.path.join(EXAMPLES, "hash_probe.py") + ":hash_find_portable"]


def emit(rec: dict) -> None:
    print(json.dumps(rec), flush=True)


def loop(prog, backend: str, n: int) -> float:
    """The simple alternative: per instance, a single core per side, the kernel, a compare."""
    data = draw(prog.inputs, 0, np.arange(n))
    t0 = time.perf_counter()
    for k in range(n):
        outs = []
        for target in prog.pair.split(":"):
            with pto.Core(target, backend) as core:
                ptrs = {name: core.gm_put(np.asarray(a).reshape(-1)) for name, a in prog.fixed.items()}
                ptrs.update({name: core.gm_put(v[k]) for name, v in data.items()})
                ptrs.update({name: core.gm_alloc(c, d) for name, (c, d) in prog.outputs.items()})
                try:
                    prog.fn(**ptrs)
                    outs.append((b"".join(ptrs[name].numpy(c).tobytes() for name, (c, _) in prog.outputs.items()),
                                 None))
                except pto.PtoFault as e:
                    outs.append((b"", str(e)))
        _ = outs[0] != outs[1]
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--loop-n", type=int, default=500)
    ap.add_argument("--backends", default="native,numpy")
    ap.add_argument("--kernel", action="append", help="FILE.py:FN (repeatable; default: the two above)")
    args = ap.parse_args()
    mach = machine()
    for ref in args.kernel or REFS:
        bench(load_kernel(ref), ref, args, mach)
    return 0


def bench(prog, ref: str, args, mach) -> None:
    for be in args.backends.split(","):
        if be != "numpy" and not available(be):
            emit({"bench": "kernel_campaign", "backend": be, "skipped": "not available"})
            continue
        kernel(prog, n=256, backend=be, shrink=False)                  # warm-up / build
        t0 = time.perf_counter()
        rep = kernel(prog, n=args.n, backend=be, shrink=False)
        dt = time.perf_counter() - t0
        lt = loop(prog, be, args.loop_n)
        path, _, fn = ref.rpartition(":") if ":" in ref else (ref, "", "")
        emit({"bench": "kernel_campaign", "kernel": os.path.relpath(path) + (":" + fn if fn else ""), "pair": prog.pair,
              "backend": be, "n": args.n, "seconds": round(dt, 3), "instances_per_s": round(args.n / dt),
              "executed": rep.executed, "references": {k: v.split(" (")[0] for k, v in rep.references.items()},
              "divergent": rep.divergent, "classes": len(rep.classes),
              "loop_n": args.loop_n, "loop_instances_per_s": round(args.loop_n / lt),
              "ratio": round((args.n / dt) / (args.loop_n / lt), 2), "machine": mach})


if __name__ == "__main__":
    sys.exit(main())
