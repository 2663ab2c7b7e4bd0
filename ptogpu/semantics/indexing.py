"""Index casts and OOB remapping shared by the gather family (mgather.md §3)."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..enums import GatherOOB
from ..errors import PtoFault

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


def prod(vals) -> int:
    """Exact product of integer dims (Python ints: no overflow before the caller's own cast)."""
    return math.prod(int(v) for v in vals)


def cast_index(raw: np.ndarray, bits: int) -> np.ndarray:
    """``static_cast<uint32_t>`` (bits=32) or ``static_cast<size_t>`` (bits=64) → uint64."""
    signed = raw.dtype.kind == "i"
    if bits == 32:
        return (raw.astype(np.int64) & M32).astype(np.uint64) if signed else \
            (raw.astype(np.uint64) & np.uint64(M32))
    return raw.astype(np.int64).view(np.uint64) if signed else raw.astype(np.uint64)


def remap(u: np.ndarray, cap: int, oob: GatherOOB, bits: int, *, rule: str, target: str):
    """Return (safe index, read mask): the four GatherOOB rules on unsigned ``bits``-wide values."""
    mask = M32 if bits == 32 else M64
    cap &= mask
    capu = np.uint64(cap)
    if oob == GatherOOB.Clamp:
        last = np.uint64((cap - 1) & mask)
        if bits == 64:
            # CPU sim: std::clamp(u, 0, cap-1) on size_t. With cap 0, cap-1 = SIZE_MAX and
            # every u passes unchanged (the NPU ternary below gives 0xFFFFFFFF instead).
            return np.minimum(u, last), None
        return np.where(u >= capu, last, u), None   # NPU: u >= cap ? cap-1 : u (uint32)
    if oob == GatherOOB.Wrap:
        if cap == 0:
            raise PtoFault("Wrap with capacity 0 divides by zero (u % 0)", rule=rule, target=target)
        return u % capu, None
    if oob == GatherOOB.Zero:
        return u, u < capu
    return u, None


def wrap_addr(x: np.ndarray) -> np.ndarray:
    """A uint64 address computation as a signed byte address (negative = below the arena)."""
    return np.asarray(x, np.uint64).view(np.int64)


def u64(v: int) -> np.uint64:
    return np.uint64(int(v) & M64)


def storage_of(tile_or_gt) -> np.dtype:
    return dtypes.storage(tile_or_gt.Element)
