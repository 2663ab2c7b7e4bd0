"""Element moves between UB tiles whose addresses may differ per instance (TGATHER, TSCATTER):
the winner of each written address, reads and writes batch-first over a step's instances,
and the per-instance fault of an address outside the arena."""
from __future__ import annotations

import numpy as np

from ..memory import outside_fault
from .faults import Faults, at


def grid(VR: int, VC: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of each element of a VR x VC domain, row-major (program order)."""
    n = np.arange(VR * VC, dtype=np.int64)
    return (n // VC, n % VC) if VC else (n, n)


def elems(tile, r: np.ndarray, c: np.ndarray, addressing: str) -> np.ndarray:
    """Element offsets of (r, c): through the tile's layout, or ``r*Cols + c`` (the NPUs'
    row-major addressing whatever the layout)."""
    return np.asarray(tile.offsets(r, c), np.int64) if addressing == "layout" else r * tile.Cols + c


def row_cols(wide_cols: int | None, size: int, vc: int) -> int:
    """Columns a row moves: all ``vc``, or (8-byte elements where the target caps them: A5's one
    64-lane vector per row) at most ``wide_cols``."""
    return vc if wide_cols is None or size != 8 else min(vc, wide_cols)


def vscatter_lanes(size: int, index_size: int) -> int:
    """Lanes of one A5 vscatter: 256 bytes of u16 or u32 index lanes; 64 for 8-byte data."""
    return 64 if size == 8 else 256 // max(index_size, 2)


def copy_last_wins(core, space: str, sa: np.ndarray, da: np.ndarray, size: int) -> None:
    """Elements of ``size`` bytes from ``sa`` to ``da`` (checked), every source read before
    any store, the last of equal destinations winning; batch-first: in every instance the
    step acts on, the same addresses in each."""
    dt = np.dtype(f"u{size}")
    if size not in (1, 2, 4, 8) or (sa % size).any() or (da % size).any():
        j = np.arange(size, dtype=np.int64)          # unaligned: byte by byte
        sa, da, dt = (sa[:, None] + j).reshape(-1), (da[:, None] + j).reshape(-1), np.dtype(np.uint8)
    u, first = np.unique(da[::-1], return_index=True)
    ks = core.step_instances()
    bank = core.banks[space]
    bank.put(ks, u, bank.take_same(ks, sa[::-1][first], dt))


def zero_tile(core, ks: np.ndarray, tile) -> None:
    """The whole tile, padding included, zeroed in instances ``ks`` (the NPUs' vector_dup)."""
    n = tile.Rows * tile.Cols * tile.Element.itemsize
    if len(ks) and n:
        core.banks["ub"].put(ks, np.arange(tile.addr, tile.addr + n, dtype=np.int64), np.zeros(n, np.uint8))


def winners(addrs: np.ndarray, priority: np.ndarray) -> np.ndarray:
    """(n, M) addresses, (M,) priorities: for every entry, the column of the entry of its row
    that stays at its address (the highest priority among equal addresses). Writing each
    entry's winner's value makes the write order-free."""
    n, M = addrs.shape
    if not addrs.size:
        return np.zeros((n, M), np.int64)
    row = np.repeat(np.arange(n, dtype=np.int64), M)
    a = addrs.reshape(-1)
    p = np.broadcast_to(np.asarray(priority, np.int64), (n, M)).reshape(-1)
    o = np.lexsort((p, a, row))
    ro, ao = row[o], a[o]
    start = np.ones(o.size, bool)
    start[1:] = (ro[1:] != ro[:-1]) | (ao[1:] != ao[:-1])
    group = np.cumsum(start) - 1
    last = np.append(np.flatnonzero(start)[1:] - 1, o.size - 1)
    win = np.empty(o.size, np.int64)
    win[o] = o[last[group]]
    return (win % M).reshape(n, M)


def outside_ub(core, faults: Faults, addrs: np.ndarray, size: int, what: str, cols: int, code: int) -> None:
    """Every instance with an element address of ``addrs`` (n, M) outside UB faults with fault
    ``code`` (``errors.F_*``: the phase, carried to the campaign), naming its first such
    element (its row and column in a ``cols``-wide domain)."""
    end = core.ub.size
    bad = (addrs < 0) | (addrs > end - size)
    t = core.target.name
    faults.first_of(bad, lambda j, pos: at(outside_fault("ub", end, int(addrs[j].reshape(-1)[pos[0]]), size, what, t,
                                                         f"element {pos[0]}", code), *divmod(int(pos[0]), max(cols, 1))),
                    code=code)


def hazard(what: str, outs: dict, ins: dict, in_place_ok: bool = False) -> None:
    """Destinations that share bytes with sources: the vector code reads sources as they were
    before the instruction only if it reads them first (which we do); warn. ``in_place_ok``: a
    source that is the destination itself (same bytes, same tile type) is an element-wise
    instruction's in-place form, which every target runs element by element: no warning."""
    from ..errors import PtoHazard, warn
    for dn, d in outs.items():
        for sn, s in ins.items():
            if in_place_ok and d is not None and s is not None and type(d) is type(s) and d.space == s.space \
                    and d.addr == s.addr:
                continue
            if d is not None and s is not None and d.shares_bytes(s):
                warn(f"{what}: {dn} overlaps {sn}; aliasing is undefined on hardware", PtoHazard)


def in_program_order(core, steps) -> None:
    """The simulator's loop one element at a time, on the instance in focus (a later read sees
    an earlier write: what its code does when a destination shares bytes with a source).
    ``steps`` yields, per element in program order, a function that reads what it needs from
    ``core.ub`` now and returns (dst byte address, bytes) or None (nothing written). Every
    address was checked first; on a core of N this runs instance by instance."""
    from ..errors import NotBatched
    if core.all_at_once:
        raise NotBatched("an aliasing loop")
    ub = core.ub
    for step in steps:
        got = step(ub)
        if got is not None:
            a, b = got
            ub.data[a: a + len(b)] = b


def overlaps(a, b) -> bool:
    """Two tiles share a byte."""
    return a is b or a.shares_bytes(b)
