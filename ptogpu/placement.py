"""Automatic placement: tiles a kernel never ``TASSIGN``s get their UB (Vec) or L1 (Mat)
addresses from the core, as the vendor's automatic mode (``__PTO_AUTO__``) gives them.

The vendor headers place nothing themselves: on the NPUs the compiler plans tile memory by
lifetime (PTOAS's planner: 32-byte aligned in UB and L1, a compile error when it overflows),
and the CPU simulator gives each such tile a zero-filled buffer of its own on first use
(``pto_tile.hpp:1544-1573``). ptogpu places a tile when an instruction first takes it (or its
bytes are first read or written), first fit from the bottom of the space up (as a planner
allocating from offset 0 would), 32-byte aligned, and frees its bytes when
the Python tile dies (its lifetime). Each target's table says what a fresh tile holds
(``Target.auto_fill``): zeros on the simulator, whatever the space held on the NPUs. No room:
a ``PtoCheckError`` naming the tile, the bytes it asked for and the tiles that hold the space,
as the planner's overflow error does at compile time. A ``TASSIGN`` over a live automatic
tile's bytes is a ``PtoCheckError`` too: the simulator never overlaps the two, and the NPUs
ignore ``TASSIGN`` in automatic mode, so no target gives such a program one meaning."""
from __future__ import annotations

import sys
import weakref

from .errors import PtoCheckError

ALIGN = 32


def site() -> str:
    """Where the kernel made the tile: the first frame outside ptogpu."""
    f = sys._getframe(2)
    while f is not None and f.f_globals.get("__name__", "").startswith("ptogpu"):
        f = f.f_back
    if f is None:
        return "?"
    import os
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"


class Placer:
    """One core's automatic placements: per space, the live ranges ``key -> (lo, hi, label)``."""

    @property
    def core(self):
        return self._core()

    def __init__(self, core) -> None:
        self._core = weakref.ref(core)      # (no cycle: a core is freed when its last user drops it)
        self.live: dict[str, dict[int, tuple[int, int, str]]] = {"ub": {}, "l1": {}}
        self._next = 0

    def limit(self, space: str) -> int:
        return self.core.ub_usable if space == "ub" else self.core.l1.size

    def place(self, tile) -> None:
        """Give ``tile`` an address in its space (module docstring)."""
        space = tile.space
        size = -(-max(tile.nbytes, 1) // ALIGN) * ALIGN
        taken = sorted(self.live[space].values())
        lo, end = 0, self.limit(space) // ALIGN * ALIGN
        for a, b, _ in taken:                       # first fit, from the bottom up
            if a - lo >= size:
                break
            lo = max(lo, b)
        if lo + size > end:
            lo = None
        label = f"{type(tile).__name__} made at {getattr(tile, '_site', '?')}"
        if lo is None:
            held = sum(b - a for a, b, _ in taken)
            who = "; ".join(f"{lab} [{a:#x}, {b:#x})" for a, b, lab in taken[:8]) or "none"
            raise PtoCheckError(
                f"{space.upper()} has no room for {label} ({tile.nbytes} bytes, "
                f"{size} aligned): {held} of {self.limit(space)} bytes are held by {len(taken)} live tile(s): "
                f"{who}{' ...' if len(taken) > 8 else ''}", rule="automatic placement (overflow)",
                target=self.core.target.name)
        key = self._next
        self._next += 1
        self.live[space][key] = (lo, lo + size, label)
        tile.core, tile.addr, tile._auto = self.core, lo, (self, space, key)
        weakref.finalize(tile, self.free, space, key)
        if self.core.target.auto_fill == "zero" and not self.core.replaying():
            self.core.write(space, lo, bytes(tile.nbytes))

    def free(self, space: str, key: int) -> None:
        self.live[space].pop(key, None)

    def release(self, tile) -> None:
        """``tile`` leaves automatic placement (a TASSIGN binds it by hand)."""
        auto = getattr(tile, "_auto", None)
        if auto is not None and auto[0] is self:
            self.free(auto[1], auto[2])
        tile._auto = None

    def check_manual(self, tile, space: str, addr: int, nbytes: int) -> None:
        """A TASSIGN over a live automatic tile's bytes: PtoCheckError (module docstring)."""
        for a, b, label in self.live[space].values():
            if addr < b and a < addr + nbytes:
                raise PtoCheckError(
                    f"TASSIGN({type(tile).__name__}, {addr:#x}) covers [{a:#x}, {b:#x}) of {label}, placed "
                    "automatically: the simulator never overlaps the two, the NPUs ignore TASSIGN in automatic "
                    "mode; place both tiles by hand, or neither", rule="automatic placement and TASSIGN",
                    target=self.core.target.name)
