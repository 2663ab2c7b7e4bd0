"""A campaign as data: :class:`CampaignSpec`, a versioned JSON document (``ptogpu.fuzz.campaign/1``)
that says everything a run needs -- instruction configuration, the two sides, generator, seed,
instance range, engine -- so that a slice of it can run anywhere (another process, another
machine) and the slices' reports merge into the report one run gives.

:func:`run_shard` is the task a worker runs (plain JSON in, plain JSON out: nothing but data
crosses machines); :func:`run_sharded` runs the k shards on any ``concurrent.futures.Executor``
(the local pool, a Dask client's), merges them as they finish and shrinks once at the end.
"""
from __future__ import annotations

import os
import socket
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Callable, ClassVar

from ..execution import executors
from ..execution.shards import RangeSpec, Shard

SCHEMA = "ptogpu.fuzz.campaign/1"


def families() -> dict:
    """family name -> its report class: ``mgather`` (MGATHER, TGATHERB, TINTERLEAVE;
    ``compare``), ``mscatter`` (``scatter``), ``kernel`` (a user's kernel; ``user_kernel``); a
    configuration's instruction names its family (``Instr.family``), a kernel's program
    its own."""
    from . import compare, scatter, user_kernel  # noqa: F401  (each registers its family's report)
    from .report import FAMILIES
    return FAMILIES


THREADS_ENV = "PTOGPU_NATIVE_THREADS"           # what native launches read (backend.launch)


@dataclass(frozen=True)
class CampaignSpec(RangeSpec):
    """One campaign. ``settings``: the configuration's fields as its family writes them
    (``settings_of``); ``a``/``b``: sides as written on the command line (``a5.simt@native``);
    ``backend``: what a side without ``@`` runs on (``auto``: each worker's best)."""
    family: str
    settings: dict
    a: str
    b: str
    n: int
    start: int = 0
    generator: str = "mixed"
    seed: int = 0
    backend: str = "auto"
    engine: str = "execute"             # execute | formula (MGATHER family)
    shapes: bool = False
    chunk: int | None = None
    title: str = ""
    last_scan: str = "owner"            # MSCATTER: how .last sides without their own scan run
    time_limit: float | None = None     # kernel: seconds a chunk may run on one side
    references: str = "sample"          # kernel: the instances checked against the NumPy semantics
    native_threads: str | None = None   # native launches: lock-step "warps" | "threads", each thread's
                                        # own code one after another (what a GPU runs per thread);
                                        # None: as PTOGPU_NATIVE_THREADS says (warps)
    SCHEMA: ClassVar[str] = SCHEMA
    KIND: ClassVar[str] = "campaign"
    REQUIRED: ClassVar[tuple[str, ...]] = ("family", "settings", "a", "b", "n")

    def __post_init__(self) -> None:
        if self.family not in families():
            raise ValueError(f"family {self.family!r}: one of {', '.join(families())}")
        if self.engine not in ("execute", "formula"):
            raise ValueError(f"engine {self.engine!r}: execute or formula")
        if self.references not in ("sample", "all"):
            raise ValueError(f"references {self.references!r}: sample or all")
        if self.native_threads not in (None, "warps", "threads"):
            raise ValueError(f"native_threads {self.native_threads!r}: warps or threads")
        from ..execution.rng import check_instances
        check_instances(self.start, self.n)

    @classmethod
    def of(cls, config, a: str, b: str, n: int, **kw) -> "CampaignSpec":
        """The spec of ``campaign(config, a, b, n, ...)`` (either family)."""
        fam = getattr(config, "family", None) or getattr(getattr(config, "instruction", None), "family", None)
        rep = families().get(fam)
        if rep is None or not isinstance(config, rep.CONFIG):
            raise TypeError(f"{type(config).__name__}: not the configuration of a campaign family "
                            f"({', '.join(families())})")
        return cls(fam, rep.settings_of(config), a, b, n, **kw)

    def config(self):
        return families()[self.family].config_of(self.settings)

    def sides(self) -> tuple[str, str]:
        at = lambda s: s if "@" in s else f"{s}@{self.backend}"
        return at(self.a), at(self.b)

    def run(self, *, shrink: bool = True, progress: Callable | None = None, executor: Executor | None = None):
        """Run this spec here (its instance range): the campaign's report. ``native_threads``
        holds for the run (a worker's too: the spec travels whole)."""
        saved = os.environ.get(THREADS_ENV)
        if self.native_threads is not None:
            os.environ[THREADS_ENV] = self.native_threads
        try:
            return families()[self.family].run_spec(self, shrink=shrink, progress=progress, executor=executor)
        finally:
            if saved is None:
                os.environ.pop(THREADS_ENV, None)
            else:
                os.environ[THREADS_ENV] = saved


def run_shard(spec: dict) -> dict:
    """A worker's task: one shard's spec (JSON) in, its report (JSON, unshrunk) out, with where
    it ran and on which backends -- checked there: a side asking for a backend this worker
    lacks fails here (BackendUnavailable), never falls back."""
    from ..errors import BackendUnavailable
    sp = CampaignSpec.from_json(spec)
    where = {"host": socket.gethostname(), "pid": os.getpid()}
    try:
        from distributed import get_worker
        where["address"] = get_worker().address
    except Exception:                        # not on a Dask worker (the local pool, this process)
        pass
    try:
        rep = sp.run(shrink=False)
    except BackendUnavailable as e:
        raise BackendUnavailable(f"on worker {where.get('address', where['host'])}: {e}") from None
    return {"report": rep.to_json(), "worker": {**where, "a": str(rep.a), "b": str(rep.b)}}


def run_sharded(spec: CampaignSpec, k: int, executor: Executor | None, *, shrink: bool = True,
                progress: Callable[[int, int], None] | None = None, on_shard: Callable | None = None,
                task: Callable[[dict], dict] = run_shard):
    """The campaign as ``k`` shards on ``executor`` (None: one after another here), merged as
    they finish -- the report one run gives. ``progress(done, n)`` counts instances of
    finished shards; ``on_shard(i, worker)`` hears each one. A shard that fails raises here
    (its error, or WorkerLost), and the shards not yet finished are cancelled. ``task`` is
    what a worker runs per shard (a module-level function wrapping :func:`run_shard`)."""
    if k < 1:
        raise ValueError(f"{k} shards: at least 1")
    shards = [spec.shard(Shard(i, k)) for i in range(k)]
    done = 0

    def finished(i, res):
        nonlocal done
        done += shards[i].n
        if on_shard:
            on_shard(i, res["worker"])
        if progress:
            progress(done, spec.n)
    got = executors.gather(task, [(s.to_json(),) for s in shards], executor, finished)
    cls = families()[spec.family]
    rep = cls.merge([cls.from_json(got[i]["report"]) for i in range(k)])
    if shrink and not rep.check_error and rep.classes:
        # on a worker too: the sides' backends are the workers' (this machine may lack them)
        (doc,) = executors.ordered_map(shrink_report, [(spec.family, rep.to_json())], executor)
        rep = cls.from_json(doc)
    rep.workers = [dict(got[i]["worker"], shard=f"{i}/{k}") for i in range(k)]
    return rep


def shrink_report(family: str, doc: dict) -> dict:
    """A task: a merged report (JSON) shrunk, as JSON."""
    rep = families()[family].from_json(doc)
    rep.shrink()
    return rep.to_json()
