"""The registry of fuzz-configuration instructions: one :class:`~.base.Instr` per
instruction, each in its own module. Adding one is its module and one line here."""
from __future__ import annotations

from .base import Instr, pad_to
from .mgather import MGATHER
from .mscatter import MSCATTER
from .tgatherb import TGATHERB
from .tinterleave import TINTERLEAVE

REGISTRY: dict[str, Instr] = {i.name: i for i in (MGATHER, TGATHERB, TINTERLEAVE, MSCATTER)}


__all__ = ["Instr", "REGISTRY", "pad_to"]
