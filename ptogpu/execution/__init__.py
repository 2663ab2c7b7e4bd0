"""Batched execution: one instruction configuration over N instances (chunks streamed, digests
folded), the slices of a run (shards) and their merges, and the executors that run them (this
process, a local worker pool, a Dask cluster -- one ``concurrent.futures`` path).

It sits below the campaigns (``ptogpu.fuzz``) and the SIMT sweeps (``ptogpu.simt``) and above
the instruction API and the backends: nothing here imports those upper layers."""
from __future__ import annotations

from .config import FuzzConfig
from .rng import Generator
from .single import run_single


def __getattr__(name: str):
    """The batch engines load on first use (they pull in the kernel planners)."""
    if name in ("run_batch", "iter_batches", "BatchResult"):
        from . import batch
        return getattr(batch, name)
    raise AttributeError(name)


__all__ = ["FuzzConfig", "Generator", "run_single", "run_batch", "iter_batches", "BatchResult"]
