"""Executors (ptogpu.execution.executors): the local loky pool and any concurrent.futures
executor on one path -- results in order (or as they finish), errors and warnings handed back,
a dead worker reported and replaced, Ctrl-C left to the caller, no re-run of the caller's
script."""
from __future__ import annotations

import operator
import os
import signal
import subprocess
import sys
import textwrap
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest

from ptogpu.errors import WorkerLost
from ptogpu.execution import executors as X


@pytest.fixture(scope="module")
def pool2():
    return X.local(2)


def test_results_come_back_in_task_order(pool2):
    got = list(X.ordered_map(operator.mul, [(k, 3) for k in range(40)], pool2))
    assert got == [3 * k for k in range(40)]
    assert list(X.ordered_map(os.getpid, [()], None)) == [os.getpid()]          # None: this process
    assert list(X.ordered_map(os.getpid, [()], pool2)) != [os.getpid()]
    assert X.local(0) is None


def test_unordered_map_yields_every_task_once_with_its_number(pool2):
    got = dict(X.unordered_map(operator.mul, [(k, 2) for k in range(30)], pool2))
    assert got == {k: 2 * k for k in range(30)}
    assert list(X.unordered_map(operator.add, [(1, 2)], None)) == [(0, 3)]


def test_at_most_two_tasks_per_worker_are_in_flight(pool2):
    pulled = []

    def tasks():
        for k in range(100):
            pulled.append(k)
            yield (k, 1)
    it = X.ordered_map(operator.add, tasks(), pool2)
    assert next(it) == 1 and len(pulled) <= 5          # 4 in flight, then one more per result
    assert list(it) == list(range(2, 101)) and len(pulled) == 100


def test_a_shared_object_is_unpickled_once_per_worker_and_replaced_by_the_next_map(pool2):
    big = list(range(1000))
    got = list(X.ordered_map(operator.getitem, [(k,) for k in range(30)], pool2, shared=big))
    assert got == list(range(30))
    assert list(X.ordered_map(operator.getitem, [(3,)], None, shared=big)) == [3]
    assert list(X.ordered_map(operator.getitem, [(5,)], pool2, shared=[7] * 9)) == [7]
    # in the worker, the object is held by its token: one object per map
    held = list(X.ordered_map(_held_tokens, [()] * 4, pool2, shared=[1]))
    assert all(n == 1 for n in held)


def _held_tokens(shared):
    return len(X._held)


def test_any_concurrent_futures_executor_runs_the_same_path():
    with ThreadPoolExecutor(3) as ex:
        assert list(X.ordered_map(operator.add, [(k, k) for k in range(10)], ex)) == [2 * k for k in range(10)]
        assert X.n_slots(ex) == 3 and "ThreadPoolExecutor" in X.describe(ex)


def test_a_task_error_is_raised_in_the_caller(pool2):
    with pytest.raises(ZeroDivisionError):
        list(X.ordered_map(operator.truediv, [(1, 1), (1, 0), (2, 1)], pool2))
    assert list(X.ordered_map(operator.add, [(1, 2)], pool2)) == [3]      # the pool still works


def test_a_workers_warnings_are_issued_in_the_caller(pool2):
    with pytest.warns(UserWarning, match="from a worker"):
        assert list(X.ordered_map(warnings.warn, [("from a worker", UserWarning)], pool2)) == [None]


def test_ctrl_c_is_left_to_the_caller(pool2):
    (pid,) = X.ordered_map(os.getpid, [()], X.local(1))
    os.kill(pid, signal.SIGINT)                     # the terminal sends it to the whole group
    assert list(X.ordered_map(os.getpid, [()], X.local(1))) == [pid]


def _here(x):          # a function the workers cannot import by reference? loky pickles by value
    return x + 1


def test_a_task_the_worker_cannot_answer_is_an_error_not_a_crash(pool2):
    import _thread
    assert list(X.ordered_map(_here, [(1,)], pool2)) == [2]     # loky ships test-module functions
    with pytest.raises(Exception, match="pickle|lock"):
        list(X.ordered_map(_thread.allocate_lock, [()], pool2))   # a lock does not pickle back
    assert list(X.ordered_map(operator.add, [(1, 1)], pool2)) == [2]     # the workers live on


def test_a_bad_worker_setting_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PTOGPU_WORKERS", "many")
    with pytest.raises(ValueError, match="PTOGPU_WORKERS"):
        X.workers(10)
    monkeypatch.setenv("PTOGPU_WORKERS", "-2")
    with pytest.raises(ValueError, match="PTOGPU_WORKERS"):
        X.workers(10)


def test_a_dead_worker_is_reported_and_replaced():
    with pytest.raises(WorkerLost, match="worker process died"):
        list(X.ordered_map(os._exit, [(3,)], X.local(2)))
    assert list(X.ordered_map(operator.add, [(2, 2), (3, 3)], X.local(2))) == [4, 6]


def test_worker_count(monkeypatch):
    for k in ("PTOGPU_WORKERS", "PTOGPU_FUZZ_WORKERS", X.IN_WORKER, "PTOGPU_FUZZ_IN_WORKER"):
        monkeypatch.delenv(k, raising=False)
    assert X.workers(10) == 0                                     # small: this process
    assert X.workers(X.MIN_VALUES) == min(os.cpu_count() or 1, X.MAX_WORKERS)
    monkeypatch.setenv("PTOGPU_WORKERS", "3")
    assert X.workers(10) == 3
    monkeypatch.setenv("PTOGPU_WORKERS", "0")
    assert X.workers(X.MIN_VALUES) == 0
    monkeypatch.setenv(X.IN_WORKER, "1")                          # no pools inside workers
    monkeypatch.setenv("PTOGPU_WORKERS", "3")
    assert X.workers(10) == 0


def test_an_unguarded_script_on_stdin_runs_its_campaign_once(tmp_path):
    """multiprocessing's spawn/forkserver workers would re-run this script (no __main__ guard)
    or fail to find '<stdin>'; loky's workers only import what the tasks need."""
    script = textwrap.dedent("""
        import sys
        print("BODY", file=sys.stderr)
        from ptogpu.fuzz import FuzzConfig
        from ptogpu.fuzz.compare import campaign
        rep = campaign(FuzzConfig(rows=1, cols=4, table_size=100), "cpu@numpy", "a5@numpy", 3000, chunk=200, shrink=False)
        print("RESULT", rep.divergent, rep.engine)
    """)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PTOGPU_WORKERS="2", PYTHONPATH=root)
    r = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT")]
    assert len(lines) == 1 and "2 worker processes" in lines[0] and int(lines[0].split()[1]) > 0
    assert r.stderr.count("BODY") == 1
