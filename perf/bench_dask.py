"""A native campaign through Dask against the same campaign run directly, one JSON line per
measurement, in one process.

Campaign: A5 SIMT vs A2/A3, 16x16 Elem float32 tiles, 4096-element table, mixed generator,
GatherOOB::Wrap, both sides on native (the executing engine: both kernels per tile, compared in
C). ``direct``: ``campaign()`` here, on the engine's OpenMP threads (one per core). ``dask``:
the same instances as shards (``ptogpu.fuzz.spec.run_sharded``) on a ``distributed.LocalCluster``
of 1 and 2 worker processes (Dask gives each ``OMP_NUM_THREADS=1``), merged; the ratio to the
direct rate is printed, and the reports are checked equal. ``shard_overhead``: many one-tile
shards, so the time per shard is what the scheduler, the transfers and the merge cost. Usage:

    python perf/bench_dask.py [--n 100000000] [--n1 25000000] [--shards-per-worker 4]
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


def main() -> int:
    from bench_fuzz import machine
    from ptogpu.backend import native_backend
    from ptogpu.execution import cluster, executors
    from ptogpu.fuzz import FuzzConfig
    from ptogpu.fuzz.spec import CampaignSpec, run_sharded

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000_000, help="tiles of the direct and 2-worker runs")
    ap.add_argument("--n1", type=int, default=25_000_000, help="tiles of the 1-worker run")
    ap.add_argument("--shards-per-worker", type=int, default=4)
    args = ap.parse_args()
    mach = dict(machine(), vector_isa=native_backend.vector_isa())
    cfg = FuzzConfig()
    strip = lambda d: {k: v for k, v in d.items() if k not in ("seconds", "tiles_per_s", "workers", "engine")}

    def line(**kw):
        print(json.dumps({"bench": "dask_campaign", "campaign": "a5.simt vs a2a3 @native, 16x16 Elem Wrap",
                          **kw, **mach}), flush=True)

    spec = CampaignSpec.of(cfg, "a5.simt", "a2a3", args.n, backend="native")
    spec.shard("0/1000").run()                                  # build and load the library first
    t0 = time.perf_counter()
    direct = spec.run()
    dt_direct = time.perf_counter() - t0
    rate_direct = args.n / dt_direct
    line(run="direct", workers=0, threads=os.cpu_count(), tiles=args.n, seconds=round(dt_direct, 2),
         tiles_per_s=round(rate_direct), engine=direct.engine, executed=direct.executed)
    rate1 = None
    for nw, n in ((1, args.n1), (2, args.n)):
        with cluster.connect(f"local:{nw}") as client:
            ex = cluster.executor(client)
            sp = CampaignSpec.of(cfg, "a5.simt", "a2a3", n, backend="native")
            run_sharded(sp.shard("0/100000"), nw, ex)          # each worker builds/loads its library
            k = nw * args.shards_per_worker
            t0 = time.perf_counter()
            rep = run_sharded(sp, k, ex)
            dt = time.perf_counter() - t0
            if n == args.n:
                assert strip(rep.to_json()) == strip(direct.to_json()), "the Dask report differs"
            rate = n / dt
            line(run="dask", workers=nw, threads=nw, shards=k, tiles=n, seconds=round(dt, 2),
                 tiles_per_s=round(rate), vs_direct=round(rate / rate_direct, 3),
                 scaling_vs_1_worker=None if nw == 1 else round(rate / rate1, 2),
                 executed=rep.executed, reports_equal=n == args.n)
            if nw == 1:
                rate1 = rate
            if nw == 2:                                        # the cost of one shard
                m = 200
                tiny = CampaignSpec.of(cfg, "a5.simt", "a2a3", m, backend="native")
                t0 = time.perf_counter()
                run_sharded(tiny, m, ex, shrink=False)
                per = (time.perf_counter() - t0) * executors.n_slots(ex) / m
                line(run="shard_overhead", workers=nw, shards=m, tiles_per_shard=1,
                     seconds_per_shard=round(per, 5),
                     share_of_a_shard_here=round(per / (dt * nw / k), 6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
