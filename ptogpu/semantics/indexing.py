"""Index casts and OOB remapping shared by the gather family (mgather.md §3)."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..enums import GatherOOB
from ..errors import F_OTHER, PtoFault

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


def prod(vals) -> int:
    """Exact product of integer dims (Python ints: no overflow before the caller's own cast)."""
    return math.prod(int(v) for v in vals)


def cast_index(raw: np.ndarray, bits: int) -> np.ndarray:
    """``static_cast<uint32_t>`` (bits=32) or ``static_cast<size_t>`` (bits=64) → uint64."""
    signed = raw.dtype.kind == "i"
    if bits == 32:
        if raw.dtype.itemsize == 4:     # the low 32 bits are the element's own bits
            return raw.view(np.uint32).astype(np.uint64)
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
        # NPU: u >= cap ? cap-1 : u (uint32), which is min(u, cap-1) unless cap is 0
        return (np.minimum(u, last) if cap else np.full(u.shape, last)), None
    if oob == GatherOOB.Wrap:
        if cap == 0:
            raise PtoFault("Wrap with capacity 0 divides by zero (u % 0)", rule=rule, target=target, code=F_OTHER)
        return (u & np.uint64(cap - 1) if not cap & (cap - 1) else u % capu), None
    if oob == GatherOOB.Zero:
        return u, u < capu
    return u, None


def remap_lanes(raw: np.ndarray, cap: int, oob: GatherOOB, bits: int, *, clamp: bool = True):
    """:func:`remap` of ``cast_index(raw, bits)`` computed in the index's own 32-bit lanes,
    where that gives the same indices and every one read lies in ``[0, cap)``: (safe index
    as uint32, read mask or None), else None (the caller takes the 64-bit path).

    Why it is exact: a 4-byte index cast to uint32 is its own bits; cast to size_t (the CPU
    simulator) a negative int32 becomes 2^64-|x|, which every rule below treats as it treats
    its uint32 bits 2^32-|x| as long as ``cap <= 2^31`` (both are >= cap: Clamp gives cap-1,
    Zero skips it) or, for Wrap, as long as cap is a power of two (both leave the low bits).
    ``clamp=False``: Clamp's indices come back unclamped, for a gather that clips them to the
    table's ``cap`` elements itself (``Bank.take_run(..., clip=cap)``: one pass, not two)."""
    cap &= M32 if bits == 32 else M64
    if raw.dtype.itemsize != 4 or cap == 0 or oob == GatherOOB.Undefined:
        return None
    u = raw.view(np.uint32)
    pow2 = not cap & (cap - 1)
    wide_ok = bits == 32 or raw.dtype.kind == "u" or cap <= 1 << 31
    if oob == GatherOOB.Clamp and wide_ok and cap <= 1 << 32:
        return (np.minimum(u, np.uint32(cap - 1)) if clamp else u), None
    if oob == GatherOOB.Wrap and (bits == 32 or raw.dtype.kind == "u" or pow2) and cap <= 1 << 32:
        return (u & np.uint32(cap - 1) if pow2 else u % np.uint32(cap)), None
    if oob == GatherOOB.Zero and wide_ok and cap <= 1 << 32:
        read = u < np.uint32(cap) if cap < 1 << 32 else np.ones(u.shape, bool)
        return u * read, read               # unread positions index 0 (their values are zeroed)
    return None


def wrap_addr(x: np.ndarray) -> np.ndarray:
    """A uint64 address computation as a signed byte address (negative = below the arena)."""
    return np.asarray(x, np.uint64).view(np.int64)


def u64(v: int) -> np.uint64:
    return np.uint64(int(v) & M64)


def storage_of(tile_or_gt) -> np.dtype:
    return dtypes.storage(tile_or_gt.Element)


def _i32(v: int) -> int:
    """``static_cast<int>``: the low 32 bits, two's complement."""
    v = int(v) & M32
    return v - (1 << 32) if v >> 31 else v


def nz_gm_dims(table):
    """§6.2: the NZ paths (MGATHER's and MSCATTER's) read gShape0..2 and gStride0..4 as ``int``
    (32-bit); offsets are then 64-bit pointer arithmetic (wrapping, like the address adder)."""
    return ([_i32(table.GetShape(k)) for k in range(5)],
            [_i32(table.GetStride(k)) for k in range(5)])
