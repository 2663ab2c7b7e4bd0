"""The registry of fuzz-configuration instructions: one :class:`~.base.Instr` per instruction,
named by its declaration's ``fuzz`` hook (``ptogpu.isa``). ``REGISTRY`` is a view of that
registry, built on first use: an instruction package's configuration imports ``.base``, so
building it while this package loads would import that configuration back half-made."""
from __future__ import annotations

from .base import Instr, pad_to


def __getattr__(name: str):
    if name == "REGISTRY":
        from ... import isa
        reg: dict[str, Instr] = {i.name: i.hook("fuzz") for i in isa.fuzzed()}
        globals()["REGISTRY"] = reg
        return reg
    raise AttributeError(name)


__all__ = ["Instr", "REGISTRY", "pad_to"]
