"""The registry of fuzz-configuration instructions: one :class:`~.base.Instr` per instruction,
named by its declaration's ``fuzz`` hook (``ptogpu.isa``). This dict is a view of that registry."""
from __future__ import annotations

from ... import isa
from .base import Instr, pad_to

REGISTRY: dict[str, Instr] = {i.name: i.hook("fuzz") for i in isa.fuzzed()}


__all__ = ["Instr", "REGISTRY", "pad_to"]
