"""Elements of the packed 4-bit types (the float4 types, two a byte): element k of a run is
nibble k % 2 of byte k // 2, the even element in the low nibble (the simulator's
``GetProperDataPart`` / ``SetProperDataPart``, cpu/MXTypes.hpp; A5's packed layout, the
vendor's goldens). The one home of that arithmetic: tiles, TLOAD/TSTORE and TCVT read and
write packed elements through it.

``gather(addrs)`` and ``scatter(addrs, values)`` are a memory's byte access (one instance's
arena, or every live instance of a core of N: a leading instance axis then); :func:`load` and
:func:`store` take them from a core's banks."""
from __future__ import annotations

from typing import Callable

import numpy as np

Gather = Callable[[np.ndarray], np.ndarray]
Scatter = Callable[[np.ndarray, np.ndarray], None]


def split(base: int, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Byte addresses and bit shifts (0 or 4) of elements at ``offsets`` from ``base``."""
    o = np.asarray(offsets, np.int64)
    return base + o // 2, (o % 2) * 4


def read(gather: Gather, base: int, offsets: np.ndarray) -> np.ndarray:
    """The 4-bit codes (uint8, 0..15) of the elements at ``offsets``."""
    addrs, shift = split(base, offsets)
    b = np.asarray(gather(addrs), np.uint8)
    return (b >> shift.astype(np.uint8)) & np.uint8(0xF)


def write(gather: Gather, scatter: Scatter, base: int, offsets: np.ndarray, codes: np.ndarray) -> None:
    """Each element's nibble set to its code, the other nibble of its byte kept (a read, modify,
    write per byte: the low nibbles first, then the high ones, so two elements of one byte
    both land)."""
    addrs, shift = split(base, offsets)
    codes = np.asarray(codes, np.uint8) & np.uint8(0xF)
    for s in (0, 4):
        sel = shift == s
        if not sel.any():
            continue
        a = addrs[sel]
        c = codes[..., sel] if codes.ndim > addrs.ndim else np.broadcast_to(codes, addrs.shape)[sel]
        old = np.asarray(gather(a), np.uint8)
        keep = np.uint8(0xF0 if s == 0 else 0x0F)
        scatter(a, (old & keep) | (c << np.uint8(s)).astype(np.uint8))


def load(core, ks: np.ndarray, space: str, base: int, offsets: np.ndarray, what: str, code: int) -> np.ndarray:
    """The codes at ``offsets`` in instances ``ks`` of a core's ``space`` (bounds checked first:
    a PtoFault of ``code`` naming ``what``)."""
    core.arena(space).check_many(split(base, offsets)[0], 1, what, core.target.name, code=code)
    bank = core.banks[space]
    return read(lambda a: bank.take_same(ks, a, np.uint8), base, offsets)


def store(core, ks: np.ndarray, space: str, base: int, offsets: np.ndarray, codes: np.ndarray, what: str,
          code: int) -> None:
    """:func:`write` into instances ``ks`` of a core's ``space`` (bounds checked first)."""
    core.arena(space).check_many(split(base, offsets)[0], 1, what, core.target.name, code=code)
    bank = core.banks[space]
    write(lambda a: bank.take_same(ks, a, np.uint8), lambda a, v: bank.put(ks, a, v), base, offsets, codes)


__all__ = ["split", "read", "write", "load", "store"]
