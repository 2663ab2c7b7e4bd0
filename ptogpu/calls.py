"""Which instruction calls a program made, from which line of its source, and what each left
in the memory it writes: ``with core.calls() as log:`` records them (one record per call, the
bytes of every instance of a core of N). Comparing two targets' logs call by call gives the
first call whose outputs differ (``ptogpu.fuzz.user_kernel``).

A call's outputs are the operands it writes: its first operand (PTO's destination-first
convention: MGATHER's dst, TSTORE's GlobalTensor, MSCATTER's table, TLOAD's tile), or its
first two (TINTERLEAVE, TDEINTERLEAVE); a Tile's storage, a GlobalTensor's element span. An
operand of another kind (a register, a raw pointer) is recorded without bytes.
"""
from __future__ import annotations

import contextvars
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from . import isa

PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
KERNEL_FILES = (os.path.join("fuzz", "suite_kernels.py"),)
"""Kernels the package ships (the known suite's): their calls are the program's own."""
"""ptogpu's own files: frames there are the emulator's, not the program's."""


@dataclass
class Call:
    """One instruction call: its number in program order, name, where the program made it
    (``file:line`` of the first frame outside ptogpu), the bytes of its written operands
    after it ran (a list of (N, nbytes) uint8 arrays: one row per instance) and which
    instances had not faulted by then."""
    index: int
    name: str
    where: str
    outputs: list = field(default_factory=list)
    live: np.ndarray | None = None    # (N,) bool: the instances still running after it
    space: str = ""                   # where its (first) written operand lives: gm, ub, l1
    watched: np.ndarray | None = None  # (N,) bool: what the log's watch said after it

    def describe(self) -> str:
        return f"call {self.index + 1} {self.name} at {self.where}"

    def site(self) -> tuple[str, str]:
        """What the call is in the program: two paths through a kernel part where their calls
        of one number are not the same instruction at the same line."""
        return self.name, self.where

    def rows(self, sel: np.ndarray) -> "Call":
        """The record of the instances ``sel`` (positions) alone."""
        return Call(self.index, self.name, self.where, [None if o is None else o[sel] for o in self.outputs],
                    None if self.live is None else self.live[sel], self.space,
                    None if self.watched is None else self.watched[sel])


class CallLog:
    """The calls of a core while the log is active (``Core.calls()``); ``watch()``, when
    given, runs after each call and its (N,) flags are the record's ``watched``."""

    def __init__(self, core, watch=None) -> None:
        self.core = core
        self.watch = watch
        self.calls: list[Call] = []

    def record(self, name: str, args: tuple) -> None:
        n = isa.writes(name)     # the leading operands it writes: its declaration's
        self.calls.append(Call(len(self.calls), name, caller(), [snapshot(self.core, a) for a in args[:n]],
                               self.core.live.copy(), space_of(args[0]) if args else "",
                               None if self.watch is None else self.watch()))

    def __enter__(self) -> "CallLog":
        self.core._calls = self
        return self

    def __exit__(self, *exc) -> None:
        self.core._calls = None


SITE: contextvars.ContextVar = contextvars.ContextVar("ptogpu_site", default=None)
"""Where the program is when it is not Python: a PTO IR op's ``file.pto:line:col``, set by
``ptoir.run`` around each op it runs (``caller`` answers it first)."""


def caller(frame=None) -> str:
    """``file:line`` of the innermost frame outside the ptogpu package (the program's call),
    from ``frame`` outwards (default: the caller's caller); a PTO IR op's own location."""
    site = SITE.get()
    if site is not None:
        return site
    f = sys._getframe(2) if frame is None else frame
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(PACKAGE) \
            and not f.f_code.co_filename.endswith(KERNEL_FILES):
        f = f.f_back
    if f is None:
        return "?"
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"


def snapshot(core, operand) -> np.ndarray | None:
    """The bytes of a written operand in every instance, (N, nbytes); None for an operand
    without a byte extent of its own."""
    # (by what they answer: this module sits below the tile and tensor classes it reads)
    if hasattr(operand, "GetShape") and hasattr(operand, "addr"):          # a GlobalTensor
        space, lo, n = "gm", operand.addr, extent(operand)
    elif hasattr(operand, "Rows") and getattr(operand, "addr", None) is not None:   # a Tile
        space, lo, n = operand.space, operand.addr, operand.nbytes
    else:
        return None
    bank = core.banks[space]
    lo, hi = max(lo, 0), min(lo + n, bank.size)
    rows = bank.rows()
    # a copy, always: a view of one instance's bank would follow the calls after this one
    return rows[:, lo:hi].copy() if hi > lo else np.zeros((core.batch, 0), np.uint8)


def space_of(operand) -> str:
    """The memory an operand lives in ("" for one without: a register, a number)."""
    if hasattr(operand, "GetShape"):
        return "gm"
    return getattr(operand, "space", "") or ""


def extent(gt) -> int:
    """Bytes from a GlobalTensor's address to the end of its last element."""
    last = sum((gt.GetShape(k) - 1) * gt.GetStride(k) for k in range(5) if gt.GetShape(k) > 0)
    return (last + 1) * gt.Element.itemsize if all(gt.GetShape(k) > 0 for k in range(5)) else 0


# -- paths: the calls of instances that took different ways through one program ----------------
# A program run over many instances logs, per path it took, (positions of the instances that
# took it, their calls): one path when the kernel never decides on values it reads.

def restrict(paths: list, sel: np.ndarray) -> list:
    """``paths`` of instances 0..n-1 restricted to the positions ``sel`` (renumbered 0..)."""
    out = []
    for pos, calls in paths:
        both, i_pos, i_sel = np.intersect1d(pos, sel, assume_unique=True, return_indices=True)
        if both.size:
            out.append((i_sel, calls if i_pos.size == len(pos) and (i_pos == np.arange(len(pos))).all()
                        else [c.rows(i_pos) for c in calls]))
    return out


def pairs(pa: list, pb: list):
    """For two runs' paths over the same instances: each (instances, calls of a, their rows
    there, calls of b, their rows there) of the instances that took one path in each."""
    for xa, ca in pa:
        for xb, cb in pb:
            both, ia, ib = np.intersect1d(xa, xb, assume_unique=True, return_indices=True)
            if both.size:
                yield both, ca, ia, cb, ib


def call_at(paths: list, n: int, c: np.ndarray) -> list:
    """Per instance ``k`` of ``n``: its path's call number ``c[k]`` (None past its end)."""
    out: list = [None] * n
    for pos, calls in paths:
        for k in pos.tolist():
            if 0 <= c[k] < len(calls):
                out[k] = calls[c[k]]
    return out
