"""Worker processes for NumPy campaigns.

Why processes and not threads: NumPy releases the GIL inside each array pass, but a campaign
chunk is a few dozen passes with Python in between, and two threads contending for the GIL ran
slower than one on a 2-core machine; two processes run twice as fast.

Why not ``multiprocessing``: its spawn and forkserver workers re-run the user's ``__main__``
(an unguarded script would run its campaign again in every worker; a script read from stdin
cannot start one), and fork is unsafe once CUDA or OpenMP threads exist. These workers are
fresh interpreters running :func:`serve` only: a task is a picklable module-level function and
its arguments, sent length-prefixed over the worker's stdin; the result (or the exception)
comes back over its stdout. The workers start on the first campaign big enough to pay for them
(a few tenths of a second) and are kept for the life of the process. Results come back in task
order, so reports do not depend on the number of workers.
"""
from __future__ import annotations

import atexit
import itertools
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Iterator

from ..errors import WorkerLost

# None: big campaigns get one worker per CPU (at most MAX_WORKERS), small ones run in this
# process; 0: always in this process; N: N workers. PTOGPU_FUZZ_WORKERS overrides.
WORKERS: int | None = None
MAX_WORKERS = 8
# Campaigns with fewer index values than this run in this process (start-up would dominate).
MIN_VALUES = 1 << 25

_HDR = struct.Struct("<Q")
_lock = threading.Lock()
_idle: queue.Queue | None = None
_procs: list = []
_io: ThreadPoolExecutor | None = None


def workers(values: int) -> int:
    """Worker processes for a campaign of ``values`` index values (0: this process). Even one
    CPU gets a worker for a big campaign: its heap is tuned for the chunk arrays (below)."""
    if os.environ.get("PTOGPU_FUZZ_IN_WORKER"):
        return 0
    env = os.environ.get("PTOGPU_FUZZ_WORKERS", "").strip()
    try:
        w = int(env) if env else WORKERS
    except ValueError:
        raise ValueError(f"PTOGPU_FUZZ_WORKERS={env!r}: expected 0 (this process) or a worker count") from None
    if w is None:
        return 0 if values < MIN_VALUES else min(os.cpu_count() or 1, MAX_WORKERS)
    return max(0, w)


# -- the worker side ----------------------------------------------------------------------------
def _read_bytes(f) -> bytes | None:
    head = f.read(_HDR.size)
    if len(head) < _HDR.size:
        return None
    (n,) = _HDR.unpack(head)
    data = f.read(n)
    return data if len(data) == n else None


def _read(f) -> object | None:
    data = _read_bytes(f)
    return None if data is None else pickle.loads(data)


def _write(f, obj) -> None:
    _write_bytes(f, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def _write_bytes(f, data: bytes) -> None:
    f.write(_HDR.pack(len(data)))
    f.write(data)
    f.flush()


def _keep_heap() -> None:
    """Workers allocate and free the same few chunk-sized arrays over and over; glibc would
    hand each back to the kernel (mmap/trim) and fault its pages in again on the next chunk,
    which cost ~40% of a chunk. Keep them on the heap (the worker only exists for this; the
    caller's process is left alone)."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-1, 1 << 30)    # M_TRIM_THRESHOLD
        libc.mallopt(-3, 1 << 30)    # M_MMAP_THRESHOLD
        libc.mallopt(-2, 64 << 20)   # M_TOP_PAD
    except (OSError, AttributeError):
        pass


def serve() -> None:
    """A worker's loop: read (function, args), write ("ok", result, warnings) or ("err",
    exception, warnings). Ctrl-C is the caller's to handle: the worker finishes its task."""
    import signal
    import warnings
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _keep_heap()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)                    # stray prints go to stderr, not into the protocol
    inp = sys.stdin.buffer
    held = (None, None)              # (token, object) shared by the tasks of one map
    while True:
        data = _read_bytes(inp)
        if data is None:
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                fn, args, token, fresh, obj = pickle.loads(data)
                if fresh:
                    held = (token, obj)
                if token is not None:
                    args = (held[1],) + tuple(args)
                res = ["ok", fn(*args)]
            except BaseException as e:   # noqa: BLE001 - handed back to the caller
                res = ["err", e]
        seen = dict.fromkeys((w.category, str(w.message)) for w in caught)
        res.append([(c, m) for c, m in seen if _picklable(c)])
        try:
            reply = pickle.dumps(tuple(res), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            import traceback
            reply = pickle.dumps(("err", RuntimeError(f"a worker could not send back its "
                                                      f"{res[0]!r} reply:\n{traceback.format_exc()}"), []))
        _write_bytes(out, reply)


def _picklable(obj) -> bool:
    try:
        pickle.dumps(obj)
        return True
    except Exception:
        return False


# -- the parent side ----------------------------------------------------------------------------
def _start(n: int) -> None:
    global _idle, _io
    import ptogpu
    root = os.path.dirname(os.path.dirname(os.path.abspath(ptogpu.__file__)))
    env = dict(os.environ, PTOGPU_FUZZ_IN_WORKER="1",
               PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p))
    _idle = queue.Queue()
    for _ in range(n):
        p = subprocess.Popen([sys.executable, "-c", "from ptogpu.execution.pool import serve; serve()"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        _procs.append(p)
        _idle.put(p)
    _io = ThreadPoolExecutor(n)


def _stop() -> None:
    global _idle, _io
    for p in _procs:
        try:
            p.stdin.close()
            p.wait(timeout=10)
        except Exception:
            p.kill()
    _procs.clear()
    _sent.clear()
    if _io is not None:
        _io.shutdown(wait=False)
    _idle, _io = None, None


def shutdown() -> None:
    """Stop the workers (they exit at end of input)."""
    with _lock:
        _stop()


atexit.register(shutdown)


def _ensure(n: int) -> None:
    with _lock:
        if len(_procs) != n or any(p.poll() is not None for p in _procs):
            _stop()
            _start(n)


def _ready(modules: tuple = ()) -> int:
    import importlib
    for m in modules:                # what the campaign's tasks need, named by the caller
        importlib.import_module(m)
    return os.getpid()


def start(n_workers: int, modules: tuple = ("ptogpu.fuzz.compare", "ptogpu.fuzz.fused_numpy")) -> None:
    """Start ``n_workers`` workers now and wait until each has imported the campaign code
    (benchmarks time start-up on its own; campaigns otherwise start them on first use)."""
    if n_workers <= 0:
        return
    _ensure(n_workers)
    futs = [_io.submit(_call, _ready, (tuple(modules),)) for _ in range(n_workers)]
    for f in futs:
        _unpack(f.result())


_sent: dict = {}                     # worker pid -> token of the shared object it holds
_tokens = itertools.count(1)


def _call(fn: Callable, args: tuple, token=None, shared=None):
    p = _idle.get()                  # a dead worker goes back too: later calls fail fast
    try:
        fresh = token is not None and _sent.get(p.pid) != token
        _write(p.stdin, (fn, args, token, fresh, shared if fresh else None))
        if fresh:
            _sent[p.pid] = token
        res = _read(p.stdout)
    except (BrokenPipeError, OSError):
        res = None
    if res is None:                  # reap it, so the next campaign starts a fresh one
        try:
            p.kill()
            code = p.wait(timeout=10)
        except Exception:
            code = None
    _idle.put(p)
    if res is None:
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        raise WorkerLost(f"a worker process died ({how}) under this run; nothing of its tiles "
                         "was kept (rerun it, or --workers 0 to run in this process)")
    kind, val, warned = res
    return kind, val, warned


def _unpack(res):
    """Re-issue the task's warnings here (the caller's filters apply), then its result."""
    import warnings
    kind, val, warned = res
    for cat, msg in warned:
        warnings.warn(msg, cat, stacklevel=3)
    if kind == "err":
        raise val
    return val


_NONE = object()


def ordered_map(fn: Callable, tasks: Iterable[tuple], n_workers: int, shared=_NONE) -> Iterator:
    """``fn(*task)`` — or ``fn(shared, *task)`` — for each task, yielded in order; with
    ``n_workers`` >= 1 in worker processes (``fn`` must be a module-level function of an
    importable module, tasks and ``shared`` picklable; ``shared``, e.g. a campaign with its
    table, crosses to each worker once, not with every task), at most 2 tasks per worker in
    flight (memory stays bounded whatever N)."""
    if n_workers > 0:
        try:
            _ensure(n_workers)
        except OSError as e:         # no interpreter to start (embedded Python, limits)
            import warnings
            warnings.warn(f"fuzz worker processes could not start ({e}); running in this process",
                          RuntimeWarning, stacklevel=2)
            n_workers = 0
    if n_workers <= 0:
        for t in tasks:
            yield fn(*t) if shared is _NONE else fn(shared, *t)
        return
    from collections import deque
    token, obj = (None, None) if shared is _NONE else ((os.getpid(), next(_tokens)), shared)
    tasks = iter(tasks)
    q: deque = deque()
    for t in tasks:
        q.append(_io.submit(_call, fn, t, token, obj))
        if len(q) >= 2 * n_workers:
            break
    try:
        while q:
            res = _unpack(q.popleft().result())
            nxt = next(tasks, None)
            if nxt is not None:
                q.append(_io.submit(_call, fn, nxt, token, obj))
            yield res
    finally:
        for f in q:
            f.cancel()
        for f in q:                  # let started calls finish so their worker is idle again
            if not f.cancelled():
                try:
                    f.result()
                except Exception:
                    pass
