"""MSCATTER throughput on native, side by side with the simple alternatives, in one process.

Prints one JSON line per measurement. Workload: MSCATTER<Elem, None, Skip, Default|Last> of a
16x16 float32 source tile into a 4096-slot float32 table, the indices uniform over the slots
(a few collide: about 7 of 256 per tile); ``--tiles`` tiles (default 400,000) in launches of
``--chunk`` instances, each instance with its own UB (src + index tile) and its own table.

* ``native``: the A5 kernels of cuda_src/mscatter.cu through ``launch_batch`` (``executed``:
  "lanes" -- every lane of every warp of the launch, lock-step warps: the source-centric
  kernel for Default, the slot-centric kernel for Last, whose every thread scans the writers
  for its slots: Θ(slots x N) index reads per tile, as on the hardware);
* ``numpy_per_tile``: the simple alternative, a per-tile Python loop of ``table[idx] = src``
  (NumPy fancy assignment; no emulation), on fewer tiles;
* ``numpy_vectorised``: the same over a whole chunk at once (one fancy assignment with
  per-tile table offsets), the fastest plain-NumPy spelling.
Every native line carries ``ratio_vs_per_tile`` and ``ratio_vs_vectorised``. (The MSCATTER
fuzz campaigns, beside a C++ loop, are timed by perf/bench_fuzz_scatter.py.)

Usage: python perf/bench_mscatter.py [--tiles N] [--chunk N] [--quick]
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

import ptogpu as pto  # noqa: E402
from ptogpu.backend import native_backend  # noqa: E402
from ptogpu.isa.mscatter import kernels as mscatter_kernels  # noqa: E402
from ptogpu.backend.launch import launch_batch  # noqa: E402
from bench_mgather import machine  # noqa: E402

R, C, SLOTS = 16, 16, 4096
UB_STRIDE = 2048                     # src tile at UB 0, index tile at UB 1024
GM_STRIDE = SLOTS * 4


def _plan(conflict):
    """The parameter block of one instance (table at GM 0, src at UB 0, idx at UB 1024)."""
    core = pto.Core("a5", "native")
    with core:
        core.gm_alloc(SLOTS, pto.float32)
        T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, SLOTS], pto.Stride[1, 1, 1, SLOTS, 1]]
        s, i = pto.Tile[pto.TileType.Vec, pto.float32, R, C](), pto.Tile[pto.TileType.Vec, pto.int32, R, C]()
        pto.TASSIGN(s, 0)
        pto.TASSIGN(i, 1024)
        form = pto.MSCATTER[pto.Coalesce.Elem, pto.ScatterAtomicOp.None_, pto.ScatterOOB.Skip, conflict]
        call = form._prepare(core, T(pto.Core.gm_ptr(core, 0, pto.float32)), s, i)
        prm = mscatter_kernels.params(core, call, T(core.gm_ptr(0, pto.float32)), s, i)
        return mscatter_kernels.KERNEL[call.path], mscatter_kernels.block(call, prm), prm


def _ub(rng, n):
    ub = np.zeros((n, UB_STRIDE), np.uint8)
    ub[:, :1024] = rng.random((n, R * C), dtype=np.float32).view(np.uint8).reshape(n, 1024)
    ub[:, 1024:] = rng.integers(0, SLOTS, (n, R * C), dtype=np.int32).view(np.uint8).reshape(n, 1024)
    return ub


def run(tiles: int, chunk: int) -> list[dict]:
    rng = np.random.default_rng(0)
    chunk = min(chunk, tiles)
    ub = _ub(rng, chunk)
    gm = np.zeros(chunk * GM_STRIDE, np.uint8)
    out = []
    isa = native_backend.vector_isa()
    # the simple alternatives
    src = ub[:, :1024].copy().view(np.float32).reshape(chunk, R * C)
    idx = ub[:, 1024:].copy().view(np.int32).reshape(chunk, R * C)
    tab = np.zeros((chunk, SLOTS), np.float32)
    k = min(chunk, 20000)
    t0 = time.perf_counter()
    for j in range(k):
        tab[j][idx[j]] = src[j]
    per_tile = k * R * C / (time.perf_counter() - t0)
    flat = tab.reshape(-1)
    off = (np.arange(chunk, dtype=np.int64) * SLOTS)[:, None]
    reps = max(1, tiles // chunk)
    t0 = time.perf_counter()
    for _ in range(reps):
        flat[(idx + off).reshape(-1)] = src.reshape(-1)
    vect = reps * chunk * R * C / (time.perf_counter() - t0)
    base = {"machine": machine()["cpu"] if "cpu" in machine() else "?", "vector_isa": isa,
            "threads": native_backend.threads() if hasattr(native_backend, "threads") else os.cpu_count()}
    out.append({"bench": "mscatter_elem_16x16_f32", "impl": "numpy_per_tile", "elem_per_s": per_tile,
                "tiles": k, "executed": "numpy fancy assignment (no emulation)", **base})
    out.append({"bench": "mscatter_elem_16x16_f32", "impl": "numpy_vectorised", "elem_per_s": vect,
                "tiles": reps * chunk, "executed": "numpy fancy assignment (no emulation)", **base})
    for conflict, scan in ((pto.ScatterConflict.Default, None), (pto.ScatterConflict.Last, "reverse"),
                           (pto.ScatterConflict.Last, "owner")):
        mscatter_kernels.LAST_SCAN = scan or "reverse"
        kernel, block, prm = _plan(conflict)
        arenas = {"gm": (gm, GM_STRIDE, GM_STRIDE), "ub": (ub.reshape(-1), UB_STRIDE, UB_STRIDE)}
        launch_batch(kernel, chunk, arenas, prm, passes=2, block=block, backend="native")   # warm
        done = 0
        t0 = time.perf_counter()
        while done < tiles:
            n = min(chunk, tiles - done)
            f = launch_batch(kernel, n, arenas, prm, passes=2, block=block, backend="native")
            assert (f[:, 0] == np.uint64(2**64 - 1)).all()
            done += n
        rate = tiles * R * C / (time.perf_counter() - t0)
        what = {None: "lanes", "reverse": "lanes (every thread's reverse scan over the writers)",
                "owner": "lanes write; each thread's scan result taken from an owner table"}[scan]
        out.append({"bench": "mscatter_elem_16x16_f32",
                    "impl": f"native_{conflict.name.lower()}" + (f"_{scan}" if scan else ""),
                    "kernel": kernel, "block": list(block), "elem_per_s": rate, "tiles": tiles,
                    "tiles_per_s": rate / (R * C), "executed": what,
                    "ratio_vs_per_tile": rate / per_tile, "ratio_vs_vectorised": rate / vect, **base})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiles", type=int, default=400_000)
    ap.add_argument("--chunk", type=int, default=4000)
    ap.add_argument("--quick", action="store_true", help="20,000 tiles")
    a = ap.parse_args()
    for line in run(20_000 if a.quick else a.tiles, a.chunk):
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
