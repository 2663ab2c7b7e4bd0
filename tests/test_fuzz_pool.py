"""Worker processes of NumPy campaigns (ptogpu.execution.pool): results in order, errors handed
back, a dead worker reported and replaced, and no re-run of the caller's script."""
from __future__ import annotations

import operator
import os
import signal
import warnings
import subprocess
import sys
import textwrap

import pytest

from ptogpu.execution import pool


def test_results_come_back_in_task_order():
    got = list(pool.ordered_map(operator.mul, [(k, 3) for k in range(40)], 2))
    assert got == [3 * k for k in range(40)]
    assert list(pool.ordered_map(operator.mul, [(k, 3) for k in range(5)], 1)) == [0, 3, 6, 9, 12]
    assert list(pool.ordered_map(os.getpid, [()], 0)) == [os.getpid()]          # 0: this process
    assert list(pool.ordered_map(os.getpid, [()], 1)) != [os.getpid()]


def test_at_most_two_tasks_per_worker_are_in_flight():
    pulled = []

    def tasks():
        for k in range(100):
            pulled.append(k)
            yield (k, 1)
    it = pool.ordered_map(operator.add, tasks(), 2)
    assert next(it) == 1 and len(pulled) <= 5          # 4 in flight, then one more per result
    assert list(it) == list(range(2, 101)) and len(pulled) == 100


def test_a_shared_object_crosses_to_each_worker_once(monkeypatch):
    sent = []
    real = pool._write

    def spy(f, obj):
        if isinstance(obj, tuple) and len(obj) == 5:
            sent.append(obj[3])                     # fresh: the shared object travels
        real(f, obj)
    monkeypatch.setattr(pool, "_write", spy)
    big = list(range(1000))
    got = list(pool.ordered_map(operator.getitem, [(k,) for k in range(30)], 2, shared=big))
    assert got == list(range(30))
    assert 1 <= sum(sent) <= 2 and len(sent) == 30
    assert list(pool.ordered_map(operator.getitem, [(3,)], 0, shared=big)) == [3]
    sent.clear()
    assert list(pool.ordered_map(operator.getitem, [(5,)], 2, shared=[7] * 9)) == [7]
    assert sent == [True]                           # a new map sends its own object


def test_a_task_error_is_raised_in_the_caller():
    with pytest.raises(ZeroDivisionError):
        list(pool.ordered_map(operator.truediv, [(1, 1), (1, 0), (2, 1)], 2))
    assert list(pool.ordered_map(operator.add, [(1, 2)], 2)) == [3]      # the pool still works


def test_a_workers_warnings_are_issued_in_the_caller():
    with pytest.warns(UserWarning, match="from a worker"):
        assert list(pool.ordered_map(warnings.warn, [("from a worker", UserWarning)], 1)) == [None]


def test_ctrl_c_is_left_to_the_caller():
    (pid,) = pool.ordered_map(os.getpid, [()], 1)
    os.kill(pid, signal.SIGINT)                     # the terminal sends it to the whole group
    assert list(pool.ordered_map(os.getpid, [()], 1)) == [pid]


def _here(x):          # a function the workers cannot import (defined in a test module)
    return x


def test_a_task_the_worker_cannot_load_or_answer_is_an_error_not_a_crash():
    import _thread
    with pytest.raises(ModuleNotFoundError):                  # pickled by reference to this module
        list(pool.ordered_map(_here, [(1,)], 1))
    with pytest.raises(RuntimeError, match="could not send back"):
        list(pool.ordered_map(_thread.allocate_lock, [()], 1))   # a lock does not pickle
    assert list(pool.ordered_map(operator.add, [(1, 1)], 1)) == [2]     # the worker lives on


def test_a_bad_worker_setting_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PTOGPU_FUZZ_WORKERS", "many")
    with pytest.raises(ValueError, match="PTOGPU_FUZZ_WORKERS"):
        pool.workers(10)


def test_a_dead_worker_is_reported_and_replaced():
    with pytest.raises(RuntimeError, match="worker process died"):
        list(pool.ordered_map(os._exit, [(3,)], 2))
    assert list(pool.ordered_map(operator.add, [(2, 2), (3, 3)], 2)) == [4, 6]


def test_worker_count(monkeypatch):
    monkeypatch.delenv("PTOGPU_FUZZ_WORKERS", raising=False)
    assert pool.workers(10) == 0                                     # small: this process
    assert pool.workers(pool.MIN_VALUES) == min(os.cpu_count() or 1, pool.MAX_WORKERS)
    monkeypatch.setenv("PTOGPU_FUZZ_WORKERS", "3")
    assert pool.workers(10) == 3
    monkeypatch.setenv("PTOGPU_FUZZ_WORKERS", "0")
    assert pool.workers(pool.MIN_VALUES) == 0
    monkeypatch.setenv("PTOGPU_FUZZ_IN_WORKER", "1")                 # no pools inside workers
    assert pool.workers(10) == 0


def test_an_unguarded_script_on_stdin_runs_its_campaign_once(tmp_path):
    """multiprocessing's spawn/forkserver workers would re-run this script (no __main__ guard)
    or fail to find '<stdin>'; these workers only import ptogpu."""
    script = textwrap.dedent("""
        from ptogpu.fuzz import FuzzConfig
        from ptogpu.fuzz.compare import campaign
        rep = campaign(FuzzConfig(rows=1, cols=4, table_size=100), "cpu@numpy", "a5@numpy", 3000, chunk=200, shrink=False)
        print("RESULT", rep.divergent, rep.engine)
    """)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PTOGPU_FUZZ_WORKERS="2", PYTHONPATH=root)
    r = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT")]
    assert len(lines) == 1 and "2 worker processes" in lines[0] and int(lines[0].split()[1]) > 0
