"""``ptogpu.reg``: the register-level ``__simd_vf__`` API of Ascend 950 (AscendC ``Reg::``).

Only targets whose table has ``has_reg_api`` (a5) accept it; elsewhere every call raises
``PtoCheckError``. See other-ops.md §C and ``ptogpu.demos.reg`` for the GatherVF loop.
"""
from __future__ import annotations

import functools

from .datacopy import GATHER_TYPES, Gather, GatherB, LoadAlign, StoreAlign
from .registers import (VL, CreateMask, MaskPattern, MaskReg, RegTensor, RegTrait,
                        RegTraitNumOne, RegTraitNumTwo, UpdateMask, lanes, require_reg_api)


def simd_vf(fn):
    """Mark a ``__simd_vf__`` function: calling it needs a current core with the register API."""
    @functools.wraps(fn)
    def wrapper(*a, **k):
        require_reg_api(f"__simd_vf__ {fn.__name__}")
        return fn(*a, **k)
    return wrapper


def CeilDivision(a: int, b: int) -> int:
    """``AscendC::CeilDivision``."""
    return -(-int(a) // int(b))


__all__ = ["VL", "RegTensor", "RegTrait", "RegTraitNumOne", "RegTraitNumTwo", "MaskReg",
           "MaskPattern", "UpdateMask", "CreateMask", "LoadAlign", "StoreAlign", "Gather",
           "GatherB", "GATHER_TYPES", "lanes", "simd_vf", "CeilDivision", "require_reg_api"]
