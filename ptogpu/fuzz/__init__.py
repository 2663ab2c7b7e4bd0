"""Fuzz campaigns: batched execution of one instruction configuration over millions of
index tiles, target-vs-target and executor/backend comparison, divergence classes with the
rule that explains them, shrinking to minimal reproducers. See docs/readme_fuzz.md."""
from __future__ import annotations

from .config import FuzzConfig
from .rng import Generator
from .single import run_single, snippet

__all__ = ["FuzzConfig", "Generator", "run_single", "snippet"]
