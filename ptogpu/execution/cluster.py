"""Dask as the distributed engine: ``--dask tcp://scheduler:8786`` joins a running cluster,
``--dask local:N`` starts a ``distributed.LocalCluster`` of N worker processes here (what the
tests use). The shards go through ``Client.get_executor()``, a ``concurrent.futures.Executor``,
so campaigns, batches and sweeps run on it the way they run on the local pool.

Dask (``pip install 'ptogpu[dask]'``) is optional: without it ``--dask`` is a one-line error.
A worker that dies mid-shard is Dask's to handle: the scheduler reruns its task elsewhere (up to
``distributed.scheduler.allowed-failures`` times, then KilledWorker: :class:`WorkerLost`).
Dask starts its worker processes with ``OMP_NUM_THREADS=1``: run one worker process per core
(``dask worker ADDRESS --nworkers auto --nthreads 1``) and each shard's native engine runs on
its own core.
"""
from __future__ import annotations

import contextlib
import os
import re
from concurrent.futures import Executor
from typing import Iterator

from ..errors import ClusterError

CONNECT_TIMEOUT = 10.0            # seconds; PTOGPU_DASK_TIMEOUT overrides


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError("--dask needs Dask's distributed scheduler: pip install 'ptogpu[dask]'") from None
    return distributed


def parse(address: str) -> tuple[str, int | str]:
    """("local", N) for ``local:N`` (``local``: one worker per CPU), ("remote", address) for a
    scheduler address such as ``tcp://10.0.0.5:8786``; a ClusterError for anything else."""
    a = str(address).strip()
    m = re.fullmatch(r"local(?::(\d+))?", a)
    if m:
        n = int(m[1]) if m[1] else (os.cpu_count() or 1)
        if not 1 <= n <= 256:
            raise ClusterError(f"--dask {a}: local:N takes 1..256 workers")
        return "local", n
    if re.fullmatch(r"(tcp|tls|inproc|ucx|ws|wss)://[^\s/]+(:\d+)?/?", a):
        return "remote", a
    raise ClusterError(f"--dask {a!r}: expected a scheduler address (tcp://HOST:8786) or local:N")


@contextlib.contextmanager
def connect(address: str, *, timeout: float | None = None) -> Iterator:
    """A ``distributed.Client`` on ``address`` (see :func:`parse`); a local cluster is started
    here and stopped on exit. An unreachable scheduler is a ClusterError after ``timeout``
    seconds, never a hang."""
    kind, where = parse(address)
    if timeout is None:
        env = os.environ.get("PTOGPU_DASK_TIMEOUT", "").strip()
        try:
            timeout = float(env) if env else CONNECT_TIMEOUT
        except ValueError:
            raise ClusterError(f"PTOGPU_DASK_TIMEOUT={env!r}: expected seconds") from None
    dist = _distributed()
    import logging
    cluster = None
    try:
        if kind == "local":
            cluster = dist.LocalCluster(n_workers=where, threads_per_worker=1, processes=True,
                                        dashboard_address=None, worker_dashboard_address=":0",
                                        silence_logs=logging.CRITICAL)
            client = dist.Client(cluster, timeout=timeout)
        else:
            client = dist.Client(where, timeout=timeout)
    except (OSError, TimeoutError) as e:
        if cluster is not None:
            cluster.close()
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ClusterError(f"Dask scheduler {where}: cannot connect within {timeout:g} s ({msg})") from None
    except RuntimeError as e:               # a LocalCluster whose worker processes did not start
        raise ClusterError(f"--dask {address}: the local cluster did not start ({e}); its workers are "
                           "spawned processes that import your __main__: guard a script's code "
                           "with if __name__ == '__main__'") from None
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.close()
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()


def executor(client, *, retries: int = 0) -> Executor:
    """The client's ``concurrent.futures`` view. ``retries`` reruns a task that raised (0: a
    deterministic error is reported, not repeated); a task whose worker died is rerun by the
    scheduler in any case."""
    if not client.nthreads():
        raise ClusterError(f"Dask scheduler {client.scheduler.address}: no workers")
    return client.get_executor(retries=retries, pure=False)


def default_shards(n: int, slots: int, per_slot: int = 4, min_instances: int = 100_000) -> int:
    """Shards for ``n`` instances on ``slots`` worker threads: ``per_slot`` per thread (the
    cluster stays busy while the last shards finish), but none smaller than
    ``min_instances`` (a shard costs the scheduler a few milliseconds; tiles cost
    microseconds), and at least one."""
    return max(1, min(slots * per_slot, n // min_instances))
