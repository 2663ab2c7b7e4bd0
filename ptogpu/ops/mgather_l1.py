"""MGATHER GM→L1 on the NPU targets (mgather.md §5.6-§5.8, §6.7)."""
from __future__ import annotations

from ..errors import PtoError


def mgather_gm2l1(core, form, dst, table, idx, scratch, oob):
    raise PtoError("MGATHER into L1 (TileType.Mat) on the NPU targets is not emulated yet",
                   rule="MGATHER GM→L1", target=core.target.name)
