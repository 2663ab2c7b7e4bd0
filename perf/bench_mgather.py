"""MGATHER throughput, every available backend side by side in one process.

Prints one JSON line per measurement:
  * Elem: 16x16 float32 tiles, GatherOOB.Clamp, from a 4096-element float32 table;
  * Row: 16x64 float32 tiles (16 row indices each) from a 1024-row x 64 float32 table;
over ``--tiles`` index tiles (default 1,000,000) on:
  * native / cupy: the A5 SIMT kernels (mgather_a5_elem / mgather_a5_row) through
    ``ptogpu.backend.launch.launch_batch``: one instance per index tile, each with its own UB
    (index tile + destination tile, outputs written), the table shared in GM, in a few big
    launches whose size comes from free memory (``batch_size``);
  * numpy: the ptogpu API per tile (``pto.MGATHER`` on a numpy Core), run on fewer tiles and
    extrapolated (the JSON says so);
  * baselines: the simple alternative, a plain one-thread scalar C++ loop of the same rule
    (perf/baseline.cpp, built -O3 -march=native and -O2; the CPU simulator's loop) over the same tile pool and batch
    layout, with the ratio native / baseline; plain ``np.take`` (clip mode) over all tiles'
    indices in chunks (no emulation, no fault checks), and a per-tile Python loop of
    ``np.take``, the latter on fewer tiles and extrapolated.
  * the store roof: memset bandwidth on every CPU, over the bytes one launch streams and over
    256 MiB (DRAM), as elements/s at the destination element size.
The native lines name the vector ISA of the build and say what ran (``executed``: "lanes",
every SIMT lane of every warp-round of the launch, lock-step warps).
The index tiles are random (uniform over [0, 1.25 * table size): about a fifth are clamped),
generated once per chunk size before timing and reused for every chunk.

Usage: python perf/bench_mgather.py [--tiles N] [--backends native,cupy,numpy] [--quick]
"""
from __future__ import annotations

import argparse
import json
import os
os.environ.setdefault("PTOGPU_NATIVE_OPT", "-O3")   # time the optimised kernels, never a quick first-use build
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ptogpu as pto  # noqa: E402
from ptogpu.backend import backend_available  # noqa: E402
from ptogpu.isa.mgather import kernels as mgather_kernels  # noqa: E402
from ptogpu.backend.launch import batch_size, launch_batch  # noqa: E402


def machine() -> dict:
    info = {"python": platform.python_version(), "numpy": np.__version__,
            "cpus": os.cpu_count(), "platform": platform.platform()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    ok, why = backend_available("cupy")
    if ok:
        info["gpu"] = why
    return info


def emit(rec: dict) -> None:
    print(json.dumps(rec), flush=True)


CASES = {
    # name: (mode, tile rows, tile cols, table rows, table cols, elements per tile)
    "elem_16x16_f32_clamp_t4096": ("elem", 16, 16, 1, 4096),
    "row_16x64_f32_t1024": ("row", 16, 64, 1024, 64),
}


def setup(case: str):
    """A numpy Core with the table in GM and the tiles assigned; returns what a batch needs."""
    mode, R, C, TR, TC = CASES[case]
    core = pto.Core("a5", "numpy")
    core.__enter__()
    rng = np.random.default_rng(0)
    table_vals = rng.standard_normal(TR * TC).astype(np.float32)
    ptr = core.gm_put(table_vals)
    n = TR * TC
    if mode == "elem":
        table = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, n], pto.Stride[n, n, n, n, 1]](ptr)
        idx = pto.Tile[pto.TileType.Vec, pto.int32, R, C]()
        cap, nidx = n, R * C
    else:
        table = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, TR, TC],
                                 pto.Stride[n, n, n, TC, 1]](ptr)
        idx = pto.Tile[pto.TileType.Vec, pto.int32, 1, R]()
        cap, nidx = TR, R
    dst = pto.Tile[pto.TileType.Vec, pto.float32, R, C]()
    pto.TASSIGN(idx, 0)
    dst_addr = -(-idx.nbytes // 32) * 32
    pto.TASSIGN(dst, dst_addr)
    ub_stride = dst_addr + dst.nbytes
    m = pto.Coalesce.Elem if mode == "elem" else pto.Coalesce.Row
    oob = pto.GatherOOB.Clamp
    plan = mgather_kernels.plan_mgather(core, m, oob, dst, table, idx)
    return dict(case=case, core=core, table=table, idx=idx, dst=dst, plan=plan, ub_stride=ub_stride,
                cap=cap, nidx=nidx, elems=R * C, mode=m, oob=oob, table_vals=table_vals,
                dst_addr=dst_addr)


def random_indices(rng, n_tiles, s):
    return rng.integers(0, s["cap"] + s["cap"] // 4, (n_tiles, s["nidx"]), dtype=np.int64).astype(np.int32)


def bench_kernel(case, s, backend, tiles, chunk_cap=None):
    gm = s["core"].gm
    plan = s["plan"]
    stride = s["ub_stride"]
    per = stride + 64
    chunk = min(tiles, batch_size(per, backend, fraction=0.05, cap=chunk_cap or (1 << 18)))
    rng = np.random.default_rng(1)
    idx = random_indices(rng, chunk, s)
    if backend == "cupy":
        import cupy as xp
    else:
        xp = np
    ub_host = np.zeros((chunk, stride), np.uint8)
    ub_host[:, : idx.shape[1] * 4] = idx.view(np.uint8)
    ub = xp.asarray(ub_host).reshape(-1) if backend == "cupy" else ub_host.reshape(-1)
    gmbuf = xp.asarray(gm._buf[: gm.size]) if backend == "cupy" else gm._buf
    arenas = {"gm": (gmbuf, gm.size, 0), "ub": (ub, stride, stride)}

    def run(n):
        return launch_batch(plan.kernel, n, arenas, plan.params, passes=plan.passes,
                            block=plan.block, backend=backend, writes=(),
                            faults_on_device=backend == "cupy")
    f = run(chunk)                                    # warm-up (build, first touch, compile)
    times = []
    for _ in range(REPEAT):
        if backend == "cupy":
            xp.cuda.Device().synchronize()
        t = time.perf_counter()
        done, launches, faults = 0, 0, 0
        while done < tiles:
            n = min(chunk, tiles - done)
            f = run(n)
            launches += 1
            faults += int((f[:, 0] != np.uint64(2 ** 64 - 1)).sum())  # on the device (cupy)
            done += n
        if backend == "cupy":
            xp.cuda.Device().synchronize()
        times.append(time.perf_counter() - t)
    dt = float(np.median(times))
    # spot check: the last chunk's first tile against np.take / the table rows
    out = (xp.asnumpy(ub[:stride]) if backend == "cupy" else ub[:stride])[s["dst_addr"]:].view(np.float32)
    want = reference(s, idx[0])
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32)), "kernel output differs"
    extra = {}
    if backend == "native":
        from ptogpu.backend import native_backend
        extra = dict(vector_isa=native_backend.vector_isa(), executed="lanes",
                     threads=native_backend.load().pto_host_shim_threads())
        base = baseline_loop(s, ub_host, chunk, tiles)
        base2 = baseline_loop(s, ub_host, chunk, tiles, "O2")
        import _baseline
        roof = _baseline.copy_roof(chunk * stride, 2)
        moved = tiles * stride / float(np.median(times))        # the batch's UB rows, per second
        extra.update(baseline_seconds=round(base, 4), native_over_baseline=round(base / float(np.median(times)), 2),
                     baseline_O2_seconds=round(base2, 4),
                     native_over_baseline_O2=round(base2 / float(np.median(times)), 2),
                     launch_bytes=chunk * stride, bytes_per_s=round(moved),
                     copy_roof_bytes_per_s=round(roof), roof_fraction=round(moved / roof, 3),
                     roof="a 2-thread memcpy of one launch's bytes (its UB rows), same run")
    return dt, dict(launches=launches, chunk=chunk, faulted_tiles=faults, repeats=REPEAT, **extra,
                    seconds_all=[round(x, 4) for x in times], timing="median of repeats",
                    index_tiles="a pool of `chunk` random index tiles, reused by every launch",
                    kernel=plan.kernel, block=list(plan.block), passes=plan.passes)


def baseline_loop(s, ub, chunk, tiles, opt: str = "O3"):
    """The plain one-thread C++ loop over the same pool of tiles (median of REPEAT runs), built
    ``opt`` (-O3 -march=native, or -O2)."""
    import _baseline
    lib = _baseline.load(opt)
    mode, R, C, TR, TC = CASES[s["case"]]
    tab = s["table_vals"]
    times = []
    for _ in range(REPEAT):
        t = time.perf_counter()
        done = 0
        while done < tiles:
            n = min(chunk, tiles - done)
            lib.gather_loop(tab.ctypes.data, s["cap"], ub.ctypes.data, n, s["ub_stride"], R, C,
                            int(mode == "row"), s["dst_addr"])
            done += n
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def reference(s, idx_tile):
    t = s["table_vals"]
    if s["mode"] == pto.Coalesce.Elem:
        return np.take(t, idx_tile.astype(np.int64), mode="clip")
    rows = np.minimum(idx_tile.astype(np.int64), s["cap"] - 1)
    return t.reshape(s["cap"], -1)[rows].reshape(-1)


def bench_numpy_api(case, s, tiles):
    core, dst, idx, table = s["core"], s["dst"], s["idx"], s["table"]
    rng = np.random.default_rng(2)
    ids = random_indices(rng, tiles, s)
    shape = (idx.valid_row, idx.valid_col)
    form = pto.MGATHER[s["mode"], s["oob"]]
    t = time.perf_counter()
    for k in range(tiles):
        idx.set(ids[k].reshape(shape))
        form(dst, table, idx)
    return time.perf_counter() - t


def bench_np_take(case, s, tiles):
    t = s["table_vals"]
    chunk = min(tiles, 1 << 16)
    rng = np.random.default_rng(3)
    ids = random_indices(rng, chunk, s).astype(np.intp)
    if s["mode"] == pto.Coalesce.Elem:
        out = np.empty(ids.shape, np.float32)
        src, take = t, ids
    else:
        out = np.empty((chunk, s["nidx"], t.size // s["cap"]), np.float32)
        src, take = t.reshape(s["cap"], -1), ids
    t0 = time.perf_counter()
    done = 0
    while done < tiles:
        n = min(chunk, tiles - done)
        np.take(src, take[:n], axis=0, mode="clip", out=out[:n])
        done += n
    return time.perf_counter() - t0


def bench_python_loop(case, s, tiles):
    t = s["table_vals"]
    rng = np.random.default_rng(4)
    ids = random_indices(rng, tiles, s).astype(np.intp)
    src = t if s["mode"] == pto.Coalesce.Elem else t.reshape(s["cap"], -1)
    out = np.empty((s["elems"],), np.float32)
    t0 = time.perf_counter()
    for k in range(tiles):
        out[:] = np.take(src, ids[k], axis=0, mode="clip").reshape(-1)
    return time.perf_counter() - t0


def record(case, s, what, backend, tiles_run, tiles_target, dt, **extra):
    scale = tiles_target / tiles_run
    sec = dt * scale
    rec = {"bench": "mgather", "case": case, "what": what, "backend": backend,
           "tiles": tiles_target, "tiles_measured": tiles_run,
           "extrapolated": tiles_run != tiles_target, "seconds": round(sec, 4),
           "tiles_per_s": tiles_target / sec, "elements_per_s": tiles_target * s["elems"] / sec,
           "elements_per_tile": s["elems"], **extra, "machine": MACHINE}
    emit(rec)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--tiles", type=int, default=1_000_000)
    ap.add_argument("--backends", default="native,cupy,numpy")
    ap.add_argument("--slow-tiles", type=int, default=2000,
                    help="tiles actually run for the per-tile loops (extrapolated)")
    ap.add_argument("--quick", action="store_true", help="100,000 tiles, 500 slow tiles")
    ap.add_argument("--chunk", type=int, default=None, help="tiles per launch (default: from free memory)")
    ap.add_argument("--repeat", type=int, default=3, help="timed repetitions of each kernel run (median)")
    a = ap.parse_args(argv)
    if a.quick:
        a.tiles, a.slow_tiles = 100_000, 500
    global MACHINE, REPEAT
    MACHINE = machine()
    REPEAT = max(1, a.repeat)
    import _baseline
    threads = os.cpu_count() or 1
    for nbytes in (4 << 20, 256 << 20):
        bw = _baseline.store_roof(nbytes, threads)
        emit({"bench": "mgather", "what": "store roof (memset)", "bytes": nbytes, "threads": threads,
              "bytes_per_s": round(bw), "f32_elements_per_s": bw / 4, "machine": MACHINE})
    for case in CASES:
        s = setup(case)
        for be in a.backends.split(","):
            if be in ("native", "cupy"):
                ok, why = backend_available(be)
                if not ok:
                    emit({"bench": "mgather", "case": case, "backend": be, "skipped": why})
                    continue
                dt, extra = bench_kernel(case, s, be, a.tiles, a.chunk)
                record(case, s, "kernel batch", be, a.tiles, a.tiles, dt, **extra)
            elif be == "numpy":
                n = min(a.slow_tiles, a.tiles)
                record(case, s, "ptogpu API per tile", "numpy", n, a.tiles,
                       bench_numpy_api(case, s, n))
        record(case, s, "baseline np.take (no emulation)", "numpy", a.tiles, a.tiles,
               bench_np_take(case, s, a.tiles))
        n = min(10 * a.slow_tiles, a.tiles)
        record(case, s, "baseline per-tile Python loop of np.take", "numpy", n, a.tiles,
               bench_python_loop(case, s, n))


MACHINE: dict = {}
REPEAT = 3

if __name__ == "__main__":
    main()
