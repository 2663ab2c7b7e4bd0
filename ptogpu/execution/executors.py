"""Where the tasks of a batch, a campaign or a sweep run: this process, a local worker pool,
or any ``concurrent.futures.Executor`` (a Dask ``Client.get_executor()`` among them) -- one
code path, :func:`ordered_map` / :func:`unordered_map`.

The local pool is loky's reusable executor (joblib's process pool), not ``multiprocessing``:
its workers are fresh interpreters that never re-run the caller's ``__main__`` (an unguarded
script, or one read from stdin, runs its campaign once), it is kept and reused across
campaigns, and a worker that dies is detected and replaced. ``concurrent.futures``'
``ProcessPoolExecutor`` with spawn or forkserver re-runs an unguarded ``__main__`` (and fails
on ``<stdin>``); fork is unsafe once CUDA or OpenMP threads exist. perf/bench_pool.py measures
the two against each other (docs/distributed.md).

Why processes and not threads: NumPy releases the GIL inside each array pass, but a chunk is a
few dozen passes with Python in between; two threads ran slower than one on a 2-core machine.
"""
from __future__ import annotations

import itertools
import os
import pickle
import warnings
from collections import deque
from concurrent.futures import Executor, Future, wait, FIRST_COMPLETED
from typing import Callable, Iterable, Iterator

from ..errors import WorkerLost

# None: big NumPy runs get one worker per CPU (at most MAX_WORKERS), small ones run in this
# process; 0: always in this process; N: N workers. PTOGPU_WORKERS (or the older
# PTOGPU_FUZZ_WORKERS) overrides.
WORKERS: int | None = None
MAX_WORKERS = 8
# Runs with fewer index values than this stay in this process (start-up would dominate).
MIN_VALUES = 1 << 25
IN_WORKER = "PTOGPU_IN_WORKER"
IDLE_TIMEOUT = 300          # seconds an idle local worker waits before it exits
WATCH_S = 0.5               # how often a worker looks for its parent where it cannot wait on it
LEAK_BYTES = 2 << 30
"""Growth of a local worker's private memory after its first task from which loky's leak
check replaces it (loky's default: 300 MB). A kernel campaign's worker keeps cores of N
between chunks on purpose (``program._POOL``: up to ``POOL_INSTANCES`` instances, six cores
of ``GM_BUDGET`` bytes of GM), and the cores of its classifications come after the first
chunk: that alone can pass 300 MB, and each replaced worker makes its cores again. The
environment's ``LOKY_MAX_MEMORY_LEAK_SIZE`` wins."""


def in_worker() -> bool:
    """This process, or this thread, is a worker of some pool: one of ours (``IN_WORKER``), a
    daemonic process (a Dask nanny's worker, a ``multiprocessing`` pool's), or a Dask task.
    It runs its tasks itself: it starts no process pool (a daemonic process may have no
    children; a worker's CPUs are its cluster's to share out)."""
    if os.environ.get(IN_WORKER) or os.environ.get("PTOGPU_FUZZ_IN_WORKER"):
        return True
    import multiprocessing
    if multiprocessing.current_process().daemon:
        return True
    import sys
    dist = sys.modules.get("distributed")          # (imported where a Dask worker runs)
    if dist is not None:
        try:
            dist.get_worker()
            return True
        except Exception:                          # ValueError: not in a Dask task
            pass
    return False


def workers(values: int) -> int:
    """Local worker processes for a run of ``values`` index values (0: this process; always
    in a worker, :func:`in_worker`). Even one CPU gets a worker for a big run: its heap is
    tuned for the chunk arrays (below)."""
    if in_worker():
        return 0
    name = "PTOGPU_WORKERS" if os.environ.get("PTOGPU_WORKERS", "").strip() else "PTOGPU_FUZZ_WORKERS"
    env = os.environ.get(name, "").strip()
    try:
        w = int(env) if env else WORKERS
    except ValueError:
        raise ValueError(f"{name}={env!r}: expected 0 (this process) or a worker count") from None
    if w is None:
        return 0 if values < MIN_VALUES else min(os.cpu_count() or 1, MAX_WORKERS)
    if w < 0:
        raise ValueError(f"{name}={env!r}: expected 0 (this process) or a worker count")
    return w


# -- the worker side ----------------------------------------------------------------------------
def _init_worker(parent: int | None = None) -> None:
    """Ctrl-C is the caller's to handle (the terminal sends it to the whole process group): a
    worker finishes its task, the caller cancels what has not started. The worker leaves with
    process ``parent`` (default: its parent now), however that one ends (:func:`_leave_with`)."""
    import signal
    _leave_with(os.getppid() if parent is None else parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the worker allocates and frees the same few chunk-sized arrays over and over: glibc
    # would hand each back to the kernel and fault its pages in again (~40% of a chunk)
    from ..backend.heap import keep_freed_heap
    keep_freed_heap(worker=True)
    _private_leak_check()


def _leave_with(parent: int) -> None:
    """Exit as soon as process ``parent`` is gone. A caller killed with SIGKILL (the OOM
    killer, ``kill -9``) runs no clean-up, and loky's workers would wait for tasks until their
    idle timeout, holding their memory (loky's resource trackers, whose pipes the workers hold
    too, then stay as well). A daemon thread waits on a pidfd of the parent (Linux 5.3+),
    else looks every :data:`WATCH_S` whether the worker was handed to another parent. (Not
    ``prctl(PR_SET_PDEATHSIG)``: it fires when the *thread* that started the worker ends,
    and loky starts replacement workers from its manager thread.)"""
    import threading
    fd = None
    try:
        fd = os.pidfd_open(parent)
    except (AttributeError, OSError):            # not Linux, an old kernel, or already gone
        pass
    if os.getppid() != parent:                   # gone before we looked (or the pid is not ours)
        os._exit(1)

    def watch() -> None:
        if fd is not None:
            try:
                import select
                p = select.poll()
                p.register(fd, select.POLLIN)
                while not p.poll():              # readable once the process has ended
                    pass
                os._exit(1)
            except Exception:                    # (then as without a pidfd)
                pass
        import time
        while os.getppid() == parent:
            time.sleep(WATCH_S)
        os._exit(1)
    threading.Thread(target=watch, name="ptogpu-leave-with-parent", daemon=True).start()


def _private_leak_check() -> None:
    """loky replaces a worker whose resident memory grew by ``_MAX_MEMORY_LEAK_SIZE`` since
    its first task (psutil's RSS), with a warning that it "usually indicates a memory leak".
    RSS counts a page of a shared mapping once per mapping: a kernel's fixed table mapped
    copy-on-write into each of N instances (``pages.mapped_rows``) counts N times as the
    instances read it, though it is one table (embedding_bag: +15 MB a chunk, without end).
    Here the check counts the worker's private memory (``RssAnon`` + ``RssFile``, Linux), and
    allows :data:`LEAK_BYTES` of it (what a worker keeps on purpose)."""
    try:
        from loky import process_executor as pe
    except ImportError:
        return
    if "LOKY_MAX_MEMORY_LEAK_SIZE" not in os.environ and isinstance(getattr(pe, "_MAX_MEMORY_LEAK_SIZE", None), int):
        pe._MAX_MEMORY_LEAK_SIZE = max(pe._MAX_MEMORY_LEAK_SIZE, LEAK_BYTES)
    measure = getattr(pe, "_get_memory_usage", None)
    if measure is None or getattr(measure, "_ptogpu", False) or _private_bytes(os.getpid()) is None:
        return

    def private(pid, force_gc=False):
        if force_gc:
            import gc
            gc.collect()
        got = _private_bytes(pid)
        return measure(pid) if got is None else got
    private._ptogpu = True
    pe._get_memory_usage = private


def _private_bytes(pid: int) -> int | None:
    """Resident bytes of process ``pid`` that are its own: anonymous and file pages, not
    shared-memory ones (``/proc/PID/status``; None where there is none)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            got = {ln.split(":")[0]: int(ln.split()[1]) for ln in f if ln.startswith(("RssAnon:", "RssFile:"))}
    except (OSError, ValueError, IndexError):
        return None
    return 1024 * (got["RssAnon"] + got["RssFile"]) if len(got) == 2 else None


_held: dict = {}             # token -> the shared object of one map, unpickled once per worker


def run_task(fn: Callable, args: tuple, token=None, blob: bytes | None = None):
    """One task where an executor runs it: ``fn(*args)``, or ``fn(shared, *args)``. Returns
    (result, warnings) so the caller re-issues the task's warnings under its own filters."""
    first = token is None or token not in _held       # (a new map, or a task of its own)
    mine = bool(os.environ.get(IN_WORKER))            # one of our local workers
    if mine and first:
        _tidy(unfreeze=True)
    if token is not None:
        if token not in _held:
            _held.clear()            # one map at a time: the previous object goes
            _held[token] = pickle.loads(blob)
        args = (_held[token],) + tuple(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fn(*args)
    seen = dict.fromkeys((w.category, str(w.message)) for w in caught)
    if mine:
        _tidy(freeze=first and token is not None)
    return res, [(c, m) for c, m in seen if _picklable(c)]


def _tidy(unfreeze: bool = False, freeze: bool = False) -> None:
    """A local worker collects reference cycles after each task. A kernel's chunk leaves cycles
    that hold its arrays (a caught fault's traceback holds the frames that made them), and
    Python's collection of its oldest generation, paced by objects made, not bytes, came
    rarely: an embedding_bag worker held up to 1.6 GB where 0.7 GB was live. A full collection looks at every
    object (~40,000 once ptogpu is imported: ~10 ms, a tenth of a kernel's chunk), so what
    the first task of a map leaves is frozen (``gc.freeze``: never looked at again; ~0.3 ms a
    task) until the next map, or a task of its own, unfreezes it."""
    import gc
    if unfreeze:
        gc.unfreeze()
        return
    gc.collect()
    if freeze:
        gc.freeze()


def _picklable(obj) -> bool:
    try:
        pickle.dumps(obj)
        return True
    except Exception:
        return False


class SharedRows:
    """An (n, width) uint8 array that local worker processes write their chunks' outputs into,
    so outputs are never pickled back: a file on the shared-memory filesystem (``/dev/shm``
    where there is one), mapped by each process. Why not ``multiprocessing.shared_memory``:
    before Python 3.13 every process that attaches a segment registers it with a resource
    tracker that unlinks it when that process exits."""

    def __init__(self, n: int, width: int) -> None:
        import tempfile
        d = "/dev/shm" if os.path.isdir("/dev/shm") else None
        fd, self.path = tempfile.mkstemp(prefix="ptogpu-rows-", dir=d)
        try:
            os.ftruncate(fd, max(int(n) * int(width), 1))
        finally:
            os.close(fd)
        self.n, self.width = int(n), int(width)

    def rows(self, a: int, b: int):
        """Rows ``a .. b-1``, mapped for writing."""
        import numpy as np
        return np.memmap(self.path, np.uint8, "r+", offset=a * self.width, shape=(b - a, self.width))

    def take(self):
        """The whole array (mapped; the file is unlinked, its memory goes with the array)."""
        import numpy as np
        try:
            return np.asarray(np.memmap(self.path, np.uint8, "r+", shape=(self.n, self.width))) \
                if self.n * self.width else np.zeros((self.n, self.width), np.uint8)
        finally:
            self.close()

    def close(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def __getstate__(self):
        return {"path": self.path, "n": self.n, "width": self.width}

    def __setstate__(self, d) -> None:
        self.__dict__.update(d)


# -- the caller side ----------------------------------------------------------------------------
def local(n_workers: int) -> Executor | None:
    """The local pool with ``n_workers`` processes (None for 0, and in a worker: run in this
    process). Reused while its size stays the same; a broken one (a worker died) is replaced.
    Its workers leave with this process, however it ends (:func:`_leave_with`)."""
    if n_workers <= 0 or in_worker():
        return None
    from loky import get_reusable_executor
    import ptogpu
    _quiet_resource_tracker()
    root = os.path.dirname(os.path.dirname(os.path.abspath(ptogpu.__file__)))
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    return get_reusable_executor(max_workers=n_workers, timeout=IDLE_TIMEOUT, initializer=_init_worker,
                                 initargs=(os.getpid(),), env={IN_WORKER: "1", "PYTHONPATH": path})


def _quiet_resource_tracker() -> None:
    """loky's resource tracker (a process of its own) writes to our stderr. Killed (an OOM
    killer, a user's kill), it is relaunched by loky with a warning, and the new one prints a
    traceback for every resource the old one tracked (37 lines in a numpy campaign). So it runs
    with its stderr on /dev/null, and a relaunch is one line of ours."""
    import sys
    import warnings
    try:
        from loky.backend import resource_tracker as rt
    except ImportError:
        return
    cls = type(rt._resource_tracker)
    if getattr(cls, "_ptogpu_quiet", False) or not hasattr(cls, "_launch"):
        return
    launch = cls._launch
    warnings.filterwarnings("ignore", message="resource_tracker: process died unexpectedly")

    def _launch(self):
        if getattr(cls, "_ptogpu_started", False):
            print("ptogpu: the worker pool's resource tracker died and was restarted (shared "
                  "memory it tracked may be left behind)", file=sys.stderr, flush=True)
        cls._ptogpu_started = True
        null, saved = os.open(os.devnull, os.O_WRONLY), os.dup(2)
        try:
            os.dup2(null, 2)
            return launch(self)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(null)
    cls._launch = _launch
    cls._ptogpu_quiet = True


def start(n_workers: int, modules: Iterable[str] = ()) -> None:
    """Start ``n_workers`` local workers now, with one warm-up task per worker importing
    ``modules`` (benchmarks time start-up on its own; runs otherwise start them on first use)."""
    ex = local(n_workers)
    if ex is None:
        return
    mods = tuple(modules)
    for f in [ex.submit(run_task, _import_all, (mods,)) for _ in range(n_workers)]:
        _result(f)


def _import_all(mods: tuple) -> int:
    import importlib
    for m in mods:
        importlib.import_module(m)
    return os.getpid()


def n_slots(executor: Executor | None) -> int:
    """Tasks the executor runs at once (its workers): loky's and the standard pools name it;
    Dask's executor asks its client for the cluster's threads."""
    if executor is None:
        return 1
    v = getattr(executor, "_max_workers", None)
    if isinstance(v, int) and v > 0:
        return v
    client = getattr(executor, "_client", None)
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:
            return 1
    return 1


def _lost(e: BaseException) -> WorkerLost:
    """One line: how the worker died (loky lists exit codes as ``{SIGKILL(-9)}``)."""
    import re
    codes = re.findall(r"\((-?\d+)\)|EXIT\((\d+)\)", str(e))
    how = ", ".join(f"killed by signal {-int(s)}" if s and int(s) < 0 else f"exit code {s or x}"
                    for s, x in codes) or type(e).__name__
    return WorkerLost(f"a worker process died ({how}) under this run; nothing of its tiles was kept "
                      "(rerun it, or --workers 0 to run in this process)")


def _result(f: Future):
    """A task's result, its warnings re-issued here; a dead worker becomes :class:`WorkerLost`."""
    from concurrent.futures.process import BrokenProcessPool
    try:
        res, warned = f.result()
    except BrokenProcessPool as e:          # loky's TerminatedWorkerError is one
        raise _lost(e) from None
    except Exception as e:
        if type(e).__name__ == "KilledWorker":       # Dask gave up on a task that kept killing workers
            raise _lost(e) from None
        raise
    for cat, msg in warned:
        warnings.warn(msg, cat, stacklevel=3)
    return res


_NONE = object()


def _submitter(executor: Executor, fn: Callable, shared):
    if shared is _NONE:
        return lambda t: executor.submit(run_task, fn, tuple(t))
    token = (os.getpid(), next(_tokens))
    blob = pickle.dumps(shared, protocol=pickle.HIGHEST_PROTOCOL)
    return lambda t: executor.submit(run_task, fn, tuple(t), token, blob)


_tokens = itertools.count(1)


DISPATCHED = 0
"""How many task streams this process has sent to other processes (a campaign's kernel runs
counted here are all of them only where this did not change)."""


def ordered_map(fn: Callable, tasks: Iterable[tuple], executor: Executor | None = None,
                shared=_NONE, in_flight: int | None = None) -> Iterator:
    """``fn(*task)`` -- or ``fn(shared, *task)`` -- for each task, yielded in task order (so a
    result does not depend on the number of workers). With an executor, ``fn`` must be a
    module-level function of an importable module and tasks and ``shared`` picklable; ``shared``
    (a campaign with its configuration) is pickled once here and unpickled once per worker. At
    most ``in_flight`` tasks (2 per worker) are submitted at a time, so memory stays bounded
    whatever the number of tasks; when the caller stops early, tasks not started are cancelled."""
    if executor is None:
        for t in tasks:
            yield fn(*t) if shared is _NONE else fn(shared, *t)
        return
    global DISPATCHED
    DISPATCHED += 1                     # (what ran here is not all that ran: see backend.kernels.RUNS)
    submit = _submitter(executor, fn, shared)
    limit = in_flight or 2 * n_slots(executor)
    tasks = iter(tasks)
    q: deque = deque()
    try:
        for t in tasks:
            q.append(submit(t))
            if len(q) >= limit:
                break
        while q:
            res = _result(q.popleft())
            nxt = next(tasks, None)
            if nxt is not None:
                q.append(submit(nxt))
            yield res
    finally:
        _cancel(q)


def unordered_map(fn: Callable, tasks: Iterable[tuple], executor: Executor | None = None,
                  shared=_NONE, in_flight: int | None = None) -> Iterator[tuple[int, object]]:
    """(task number, result) as each task finishes (a progress bar moves as work completes;
    a merge does not care about order). Otherwise as :func:`ordered_map`."""
    if executor is None:
        for k, t in enumerate(tasks):
            yield k, (fn(*t) if shared is _NONE else fn(shared, *t))
        return
    submit = _submitter(executor, fn, shared)
    limit = in_flight or 2 * n_slots(executor)
    it = enumerate(tasks)
    live: dict = {}
    try:
        for k, t in it:
            live[submit(t)] = k
            if len(live) >= limit:
                break
        while live:
            done, _ = wait(list(live), return_when=FIRST_COMPLETED)
            for f in done:
                k = live.pop(f)
                res = _result(f)
                nxt = next(it, None)
                if nxt is not None:
                    live[submit(nxt[1])] = nxt[0]
                yield k, res
    finally:
        _cancel(list(live))


def gather(fn: Callable, tasks: list[tuple], executor: Executor | None = None,
           on_done: Callable[[int, object], None] | None = None) -> list:
    """``fn(*task)`` for every task -- the shards of a run: few and big, so all are submitted
    at once -- as a list in task order; ``on_done(i, result)`` hears each as it finishes."""
    out: list = [None] * len(tasks)
    for i, res in unordered_map(fn, tasks, executor, in_flight=max(len(tasks), 1)):
        out[i] = res
        if on_done:
            on_done(i, res)
    return out


def _cancel(futures) -> None:
    """Cancel what has not started (a Dask future is released, even a running one); a local
    task already running finishes on its worker and its result is dropped -- Ctrl-C does not
    wait for it."""
    for f in futures:
        f.cancel()


def choose(executor: Executor | None, values: int, poolable: bool = True) -> tuple[Executor | None, str]:
    """The executor a run of ``values`` index values uses, and how its report names it: the
    one given, else the local pool for a big poolable run (:func:`workers`), else none (this
    process, label "")."""
    if executor is not None:
        return executor, describe(executor)
    nw = workers(values) if poolable else 0
    return (local(nw), describe_local(nw)) if nw else (None, "")


def describe_local(n: int) -> str:
    return f"{n} worker process{'es' if n != 1 else ''}"


def describe(executor: Executor) -> str:
    """What ran the tasks, for a report: "2 worker processes", "Dask tcp://...: 4 threads"."""
    client = getattr(executor, "_client", None)
    if client is not None:
        return f"Dask {getattr(client.scheduler, 'address', '?')}: {n_slots(executor)} threads"
    n = n_slots(executor)
    if type(executor).__module__.startswith("loky"):
        return describe_local(n)
    return f"{type(executor).__name__}, {n} worker{'s' if n != 1 else ''}"
