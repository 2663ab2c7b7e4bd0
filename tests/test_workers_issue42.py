"""Worker processes (issue 42, items 5 and 8; ptogpu.execution.executors, ptogpu.backend.heap):
no process pool inside a worker (a kernel campaign's shard on a Dask worker runs in that
process and gives the report a run without Dask gives), a local worker's memory (glibc keeps
no sparse core on its heap, loky's leak check counts private memory, cycles are collected
after each task: no "memory leak" restart in a kernel campaign), and workers that leave with
their parent when it is killed."""
from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from ptogpu.execution import executors as X

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")


def _env(**kw) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PTOGPU_WORKERS", "PTOGPU_FUZZ_WORKERS",
                                                             X.IN_WORKER, "PTOGPU_FUZZ_IN_WORKER")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)
    env.update(kw)
    return env


# -- 1. no pool inside a worker -------------------------------------------------------------------
def test_a_daemonic_process_runs_its_tasks_itself(monkeypatch):
    for k in (X.IN_WORKER, "PTOGPU_FUZZ_IN_WORKER"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("PTOGPU_WORKERS", "3")
    assert X.workers(10) == 3
    # a Dask nanny's worker, a multiprocessing pool's: daemonic, so it may have no children
    monkeypatch.setitem(multiprocessing.current_process()._config, "daemon", True)
    assert X.workers(1 << 40) == 0 and X.local(2) is None
    assert X.choose(None, 1 << 40) == (None, "")
    assert X.in_worker()


def test_a_dask_task_runs_in_its_worker_even_a_thread_of_this_process():
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as c:
        assert c.submit(X.workers, 1 << 40, pure=False).result(timeout=60) == 0
        assert c.submit(X.in_worker, pure=False).result(timeout=60) is True
    assert not X.in_worker()


def test_a_kernel_campaign_on_dask_with_a_pool_sized_shard_is_the_report_without_dask(tmp_path):
    """`ptogpu fuzz --kernel ... --dask local:2` with shards big enough for a local pool (here
    PTOGPU_WORKERS=2, which the Dask workers inherit) started loky inside a daemonic process:
    "daemonic processes are not allowed to have children", a traceback, no report."""
    pytest.importorskip("distributed")
    args = [sys.executable, "-m", "ptogpu", "fuzz", "--kernel", f"{EXAMPLES}/interleave_gathers.py:interleave_gathers",
            "-n", "900", "--chunk", "100", "--backend", "numpy", "--quiet", "--no-shrink", "--json"]
    env = _env(PTOGPU_WORKERS="2")
    far = subprocess.run(args + ["--dask", "local:2", "--shards", "2"], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=300)
    assert far.returncode == 0, far.stderr[-3000:]
    assert "daemonic" not in far.stderr and "Traceback" not in far.stderr
    here = subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert here.returncode == 0, here.stderr[-3000:]
    a, b = (json.loads(r.stdout)["campaigns"][0] for r in (here, far))
    assert "2 worker processes" in a["engine"] and "worker process" not in b["engine"]   # (in the Dask worker)
    assert len(b["workers"]) == 2 and b["n"] == a["n"] == 900
    skip = {"seconds", "tiles_per_s", "workers", "engine"}
    assert {k: v for k, v in a.items() if k not in skip} == {k: v for k, v in b.items() if k not in skip}
    assert a["classes"]


# -- 2. a local worker's memory ---------------------------------------------------------------------
def _rss(field: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith(field + ":"))


linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, memfd and glibc: Linux")


@linux
def test_a_workers_heap_keeps_no_core_sized_reservation():
    """A core of N reserves its rows as zero pages it touches sparsely (np.zeros: calloc). With
    the worker's heap taking arrays up to 1 GiB, the second such reservation came from freed
    heap, which calloc zeroes by hand: every page touched (a kernel campaign's worker: 4 GB)."""
    code = textwrap.dedent("""
        import numpy as np, sys
        from ptogpu.backend.heap import keep_freed_heap
        if not keep_freed_heap(worker=True):
            print("SKIP"); sys.exit(0)
        def anon():
            return next(int(l.split()[1]) << 10 for l in open("/proc/self/status") if l.startswith("RssAnon:"))
        base = anon()
        for _ in range(3):                       # core after core: a campaign's classification cores
            a = np.zeros(300 << 20, np.uint8)
            a[:: 1 << 20] = 1                    # a few bytes per MiB, as N instances' rows are used
            del a
        small = [np.ones(1 << 20, np.uint8) for _ in range(16)]     # chunk-sized arrays still reuse heap
        print((anon() - base) >> 20)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    if r.stdout.strip() == "SKIP":
        pytest.skip("no glibc mallopt here")
    assert int(r.stdout) < 100, f"{r.stdout.strip()} MiB resident after freeing three sparse reservations"


def _shared_and_measured(n_maps: int, size: int) -> tuple:
    """In a worker: one memfd of ``size`` bytes mapped ``n_maps`` times and read through each
    mapping (as a kernel's fixed table is read by N instances); what loky's leak check measures
    before and after, its limit, and RSS before and after."""
    import mmap

    from loky import process_executor as pe
    fd = os.memfd_create("issue42")
    os.ftruncate(fd, size)
    os.pwrite(fd, b"\1" * size, 0)
    r0, m0 = _rss("VmRSS"), pe._get_memory_usage(os.getpid())
    maps = [mmap.mmap(fd, size, flags=mmap.MAP_PRIVATE) for _ in range(n_maps)]
    total = sum(m[k] for m in maps for k in range(0, size, 4096))
    r1, m1 = _rss("VmRSS"), pe._get_memory_usage(os.getpid(), force_gc=True)
    for m in maps:
        m.close()
    os.close(fd)
    return total, r1 - r0, m1 - m0, pe._MAX_MEMORY_LEAK_SIZE


@linux
def test_lokys_leak_check_in_a_worker_counts_private_memory_not_shared_mappings():
    pytest.importorskip("psutil")                 # (loky's check runs only with psutil)
    (total, rss, measured, limit), = X.ordered_map(_shared_and_measured, [(400, 1 << 20)], X.local(1))
    assert total == 400 * 256
    assert rss > 300 << 20                        # RSS counts the one table once per mapping
    assert measured < 50 << 20                    # the check counts what the worker owns
    assert limit >= X.LEAK_BYTES


def test_the_leak_limit_covers_the_cores_a_kernel_campaign_keeps():
    from ptogpu.execution import program
    per = program.GM_BUDGET * (program.POOL_INSTANCES // program.MAX_CORE)
    assert X.LEAK_BYTES >= per + 2 * (64 << 20)


def _cycle(shared, mib: int) -> int:
    """A task that leaves a reference cycle holding ``mib`` MiB (a caught fault's traceback
    does, in a kernel's chunk); the worker's private memory after the previous task."""
    import numpy as np
    a = np.ones(mib << 20, np.uint8)
    box: list = [a]
    box.append(box)
    return _rss("RssAnon")


@linux
def test_a_local_worker_collects_each_tasks_cycles():
    got = list(X.ordered_map(_cycle, [(40,)] * 16, X.local(1), shared="a map"))
    assert max(got) - min(got) < 200 << 20, [g >> 20 for g in got]


def test_a_kernel_campaign_in_the_local_pool_restarts_no_worker(tmp_path):
    """Before: each worker passed loky's 300 MB within seconds (its kept cores, a mapped table
    counted once per instance, cores on the heap) and was replaced again and again, with
    "... which usually indicates a memory leak" (embedding_bag, 300,000 instances: 7 workers)."""
    pytest.importorskip("psutil")
    from ptogpu.backend import backend_available
    if not backend_available("native")[0]:
        pytest.skip("the native backend runs 300,000 instances in seconds; NumPy would take minutes")
    code = textwrap.dedent(f"""
        import warnings
        from ptogpu.execution import executors
        from ptogpu.fuzz.user_kernel import kernel
        warnings.simplefilter("always")
        executors.start(2)                       # the workers that are to run the whole campaign
        before = sorted(executors.local(2)._processes)
        rep = kernel({EXAMPLES + '/embedding_bag.py:embedding_bag'!r}, n=300_000, shrink=False)
        after = sorted(executors.local(2)._processes)
        print("RESULT", rep.n, rep.engine, before == after, flush=True)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                       env=_env(PTOGPU_WORKERS="2"), timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "memory leak" not in r.stderr and "worker was restarted" not in r.stderr, r.stderr[-2000:]
    (line,) = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT")]
    assert line.startswith("RESULT 300000 ") and "2 worker processes" in line and line.endswith("True"), line


# -- 3. workers leave with their parent ---------------------------------------------------------------
def _procs() -> dict:
    out = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    st = f.read().rsplit(")", 1)[1].split()
                out[int(p)] = (int(st[1]), st[0])          # parent, state
            except (OSError, IndexError, ValueError):
                pass
    return out


def _descendants(root: int) -> set:
    ps = _procs()
    got, todo = set(), [root]
    while todo:
        x = todo.pop()
        for c, (pp, _) in ps.items():
            if pp == x and c not in got:
                got.add(c)
                todo.append(c)
    return got


def _cmd(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read().replace("\0", " ")
    except OSError:
        return ""


def _alive(pids) -> list:
    ps = _procs()
    return [p for p in pids if p in ps and ps[p][1] != "Z"]     # (a zombie has left)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="/proc")
def test_a_killed_campaign_leaves_no_worker_or_resource_tracker_behind(tmp_path):
    code = textwrap.dedent(f"""
        from ptogpu.fuzz.user_kernel import kernel
        kernel({EXAMPLES + '/interleave_gathers.py:interleave_gathers'!r}, n=50_000_000, chunk=500,
               backend="numpy", shrink=False)
    """)
    pr = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, env=_env(PTOGPU_WORKERS="2"),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    kids: set = set()
    try:
        t0 = time.time()
        while time.time() - t0 < 120 and pr.poll() is None:        # the pool and its trackers are up
            kids = _descendants(pr.pid)
            workers = [k for k in kids if "popen_loky" in _cmd(k)]
            if len(workers) >= 2:
                break
            time.sleep(0.2)
        assert pr.poll() is None and len(kids) >= 3, (kids, pr.stderr.read().decode()[-2000:] if pr.poll() else "")
        time.sleep(1.0)                                             # (tasks running in the workers)
        kids = _descendants(pr.pid)
        os.kill(pr.pid, signal.SIGKILL)
        pr.wait()
        t0 = time.time()
        while time.time() - t0 < 5 and _alive(kids):
            time.sleep(0.1)
        left = _alive(kids)
        assert not left, [_cmd(k)[:80] for k in left]
    finally:
        if pr.poll() is None:
            pr.kill()
            pr.wait()
        for k in _alive(kids):
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
