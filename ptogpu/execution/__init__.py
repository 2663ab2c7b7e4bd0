"""Batched execution: one instruction configuration over N instances (chunks streamed, digests
folded), the slices of a run (shards) and their merges, and the executors that run them (this
process, a local worker pool, a Dask cluster -- one ``concurrent.futures`` path).

It sits below the campaigns (``ptogpu.fuzz``) and the SIMT sweeps (``ptogpu.simt``) and above
the instruction API and the backends: nothing here imports those upper layers."""
from __future__ import annotations



def __getattr__(name: str):
    """Everything loads on first use: the batch engines pull in the kernel planners, and the
    configurations the instruction registry (whose packages' fuzz configurations import
    ``execution.instrs.base``: the package must not import them back while they load)."""
    if name in ("run_batch", "iter_batches", "BatchResult"):
        from . import batch
        return getattr(batch, name)
    if name == "FuzzConfig":
        from .config import FuzzConfig
        return FuzzConfig
    if name == "Generator":
        from .rng import Generator
        return Generator
    if name == "run_single":
        from .single import run_single
        return run_single
    raise AttributeError(name)


__all__ = ["FuzzConfig", "Generator", "run_single", "run_batch", "iter_batches", "BatchResult"]
