"""Fuzz campaigns: batched execution of one instruction configuration over millions of
index tiles, target-vs-target and executor/backend comparison, divergence classes with the
rule that explains them, shrinking to minimal reproducers; and a user's own kernel over
millions of generated inputs (:func:`kernel`, with :func:`indices` and :func:`values`).
See docs/fuzz.md."""
from __future__ import annotations

from ..execution.config import FuzzConfig
from ..execution.inputs import indices, picks, values
from ..execution.rng import Generator
from ..execution.single import run_single
from .repro import snippet


def __getattr__(name: str):
    """``campaign``, ``Side`` and ``run_batch`` load lazily (they pull in the batch engines)."""
    if name == "kernel":
        from .user_kernel import kernel
        return kernel
    if name in ("campaign", "Side"):
        from . import compare
        return getattr(compare, name)
    if name == "Report":                 # the report of every family (each registers on import)
        from .spec import families
        families()
        from .report import Report
        return Report
    if name in ("run_batch", "iter_batches"):
        from ..execution import batch
        return getattr(batch, name)
    raise AttributeError(name)


__all__ = ["FuzzConfig", "Generator", "run_single", "snippet", "campaign", "Side", "Report",
           "run_batch", "iter_batches", "kernel", "indices", "picks", "values"]
