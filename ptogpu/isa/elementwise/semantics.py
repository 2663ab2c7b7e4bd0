"""The element-wise family's NumPy semantics, batch-first over a step's instances: where each
call reads and writes (the target's addressing, its valid region, the bytes it writes past it)
and what it computes there (``semantics_values``, per the target's models). Every source element is read
before any byte is written; an instance whose reads or writes leave its arena, or whose
arithmetic traps (the simulator's integer division), faults and writes nothing."""
from __future__ import annotations

import numpy as np

from ...errors import F_DST, F_OTHER, PtoFault
from ...semantics.faults import Faults, at
from ...semantics.tile_moves import grid
from . import semantics_values as V


def offsets(core, tile, r: np.ndarray, c: np.ndarray, layout: bool = False) -> np.ndarray:
    """Element offsets of (r, c): the tile's layout (the simulator's GetTileElementOffset; and
    ``layout``: a call whose NPU code handles column-major tiles) or the NPUs'
    ``r * RowStride + c`` (RowStride: Cols row-major, 1 column-major)."""
    if layout or core.target.elementwise.addressing == "layout":
        return np.asarray(tile.offsets(r, c), np.int64)
    return r * (tile.Cols if tile.isRowMajor else 1) + c


def columns(core, call: str, dst) -> int:
    """The valid columns a call computes: all of dst's, but (A5's one-register 8-byte integer
    routines: ``b64_capped``) the first 64."""
    R = core.target.elementwise
    VC = dst.valid_col
    if R.b64_cols is not None and call in R.b64_capped and dst.Element.itemsize == 8 and dst.Element.kind in "iu":
        VC = min(VC, R.b64_cols)
    return VC


def region(core, dst, call: str = ""):
    """(r, c) of the elements a call computes (:func:`columns`)."""
    return grid(dst.valid_row, columns(core, call, dst))


def addrs(core, tile, r, c, layout: bool = False) -> np.ndarray:
    return tile.addr + offsets(core, tile, r, c, layout) * tile.Element.itemsize


def apply(core, call: str, dst, srcs: list, compute, *, r=None, c=None, extra=None) -> None:
    """``dst[r, c] = compute(*srcs[r, c])`` for every instance of the step. ``compute`` takes
    the sources' bits (shape (instances, elements)) and returns the result's bits, or (bits,
    trap mask): a True faults its instance (the simulator's SIGFPE) at its first element.
    ``extra``: (tile, r, c, compute) more writes of the same call (A2/A3's pad byte, TXOR's
    tmp), read with the rest and written after."""
    t = core.target.name
    if r is None:
        r, c = region(core, dst, call)
    ks = core.step_instances()
    T = dst.Element.itemsize
    u = np.dtype(f"u{T}")
    jobs = [(dst, r, c, srcs, compute)] + ([extra] if extra else [])
    plans = []
    for tile, rr, cc, ins, fn in jobs:
        da = addrs(core, tile, rr, cc)
        core.arena(tile.space).check_many(da, T, f"{call} dst write", t, code=F_DST)
        reads = []
        for s in ins:
            sa = addrs(core, s, rr, cc)
            core.arena(s.space).check_many(sa, T, f"{call} source read", t, code=F_OTHER)
            reads.append(core.banks[s.space].take_same(ks, sa, u).reshape(len(ks), -1))
        plans.append((tile, rr, cc, da, reads, fn))
    faults = Faults(core, ks)
    outs = []
    for tile, rr, cc, da, reads, fn in plans:
        got = fn(*reads)
        bits, trap = got[:2] if isinstance(got, tuple) else (got, None)
        rule, what = got[2] if isinstance(got, tuple) and len(got) > 2 else (
            f"{call} integer division", "integer division by zero or MIN / -1: x86's idiv raises SIGFPE")
        if trap is not None:
            faults.first_of(np.broadcast_to(trap, (len(ks), rr.size)),
                            lambda j, pos, rr=rr, cc=cc, rule=rule, what=what: at(PtoFault(
                                f"{call}: {what} at ({int(rr[pos[0]])}, {int(cc[pos[0]])})", rule=rule,
                                target=t, code=F_OTHER), rr[pos[0]], cc[pos[0]]), code=F_OTHER)
        outs.append((tile, da, np.broadcast_to(bits, (len(ks), rr.size))))
    ok = faults.ok
    if ok.any():
        for tile, da, bits in outs:
            core.banks[tile.space].put(ks[ok], da, np.ascontiguousarray(bits[ok]))
    faults.done()


def pad_byte(core, call: str, dst, srcs: list, compute):
    """A2/A3's bitwise ops on 1-byte types with an odd valid width (B82B16Trait: the u16 view
    rounds the width up): byte [r][VC] of each row too, or one byte past the flat run."""
    R = core.target.elementwise
    VR, VC = dst.valid_row, dst.valid_col
    if call not in R.pad_byte or dst.Element.itemsize != 1 or VC % 2 == 0 or VR == 0:
        return None
    if dst.Cols == VC or VR == 1:
        n = VR * VC
        return (dst, np.array([n // max(dst.Cols, 1)]), np.array([n % max(dst.Cols, 1)]), srcs, compute)
    return (dst, np.arange(VR, dtype=np.int64), np.full(VR, VC, np.int64), srcs, compute)


def fill(core, call: str, dst, bits: np.ndarray, r, c, layout: bool = False) -> None:
    """Write one value's bits at (r, c) of dst in every instance of the step (TCI)."""
    fill_offsets(core, call, dst, bits, offsets(core, dst, r, c, layout))


def fill_offsets(core, call: str, dst, bits: np.ndarray, off: np.ndarray) -> None:
    """Write one value's bits (or one per offset) at storage elements ``off`` of dst in every
    instance of the step (TEXPANDS, TCI)."""
    t = core.target.name
    ks = core.step_instances()
    da = dst.addr + np.asarray(off, np.int64) * dst.Element.itemsize
    core.arena(dst.space).check_many(da, dst.Element.itemsize, f"{call} dst write", t, code=F_DST)
    core.banks[dst.space].put(ks, da, np.ascontiguousarray(np.broadcast_to(bits, (len(ks), da.size))))


__all__ = ["apply", "fill", "offsets", "pad_byte", "region", "V"]
