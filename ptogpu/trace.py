"""Burst traces: what the MTE2 DMA engine issued inside a ``with core.trace() as tr:`` block.

Every DMA-backed instruction (``asc_copy_gm2l1_align``, ``asc_copy_gm2ub_align``, the A2/A3
``copy_gm_to_ubuf_align_bN``, MGATHER A2/A3 Row into UB, MGATHER GM→L1, the NPUs' TLOAD of ND/DN
Vec tiles and of ND -> NZ (DN -> ZN) Mat tiles) reports its bursts here, in issue order. Recording is array-based (one record per instruction call) so tracing
a large gather costs little; :attr:`Trace.bursts` expands the records on demand.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Burst:
    """One burst: ``left`` pad bytes, ``nbytes`` payload, ``right`` pad bytes, ``fill`` filler
    bytes up to the next 32-byte boundary, written from ``dst_addr`` on."""
    instr: str
    src_space: str
    src_addr: int
    dst_space: str
    dst_addr: int
    nbytes: int
    left: int = 0
    right: int = 0
    fill: int = 0

    @property
    def padding(self) -> int:
        """Pad and filler bytes this burst wrote (left + right + fill)."""
        return self.left + self.right + self.fill

    @property
    def src(self) -> int:
        return self.src_addr

    @property
    def dst(self) -> int:
        return self.dst_addr

    @property
    def length(self) -> int:
        return self.nbytes

    @property
    def dst_end(self) -> int:
        """One past the last destination byte this burst wrote."""
        return self.dst_addr + self.left + self.nbytes + self.right + self.fill


class Totals(dict):
    """``{"bursts", "payload_bytes", "padding_bytes"}``; also readable as attributes."""

    def __getattr__(self, name: str) -> int:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True)
class Record:
    instr: str
    src_space: str
    dst_space: str
    src: np.ndarray        # int64 (K,)
    dst: np.ndarray        # int64 (K,)
    nbytes: np.ndarray     # int64 (K,)
    left: int
    right: int
    fill: np.ndarray       # int64 (K,)
    repeat: int            # each listed burst stands for `repeat` identical issues (see dma.py)


class Trace:
    """Collects the bursts issued on one core while active (``with core.trace() as tr``)."""

    def __init__(self, core) -> None:
        self.core = core
        self._records: list[Record] = []

    def __enter__(self) -> "Trace":
        tracers = getattr(self.core, "_tracers", None)
        if tracers is None:
            tracers = self.core._tracers = []
        tracers.append(self)
        return self

    def __exit__(self, *exc) -> None:
        self.core._tracers.remove(self)

    def record(self, rec: Record) -> None:
        self._records.append(rec)

    @property
    def bursts(self) -> list[Burst]:
        """Every burst, in issue order (a burst repeated by a zero-stride loop is listed once)."""
        out: list[Burst] = []
        for r in self._records:
            for s, d, n, f in zip(r.src.tolist(), r.dst.tolist(), r.nbytes.tolist(), r.fill.tolist()):
                out.append(Burst(r.instr, r.src_space, s, r.dst_space, d, n, r.left, r.right, f))
        return out

    def totals(self, instr: str | None = None) -> Totals:
        """``{"bursts", "payload_bytes", "padding_bytes"}`` over all records (or one instruction)."""
        n = pay = pad = 0
        for r in self._records:
            if instr is not None and r.instr != instr:
                continue
            k = int(r.src.size)
            n += k * r.repeat
            pay += int(r.nbytes.sum()) * r.repeat
            pad += (k * (r.left + r.right) + int(r.fill.sum())) * r.repeat
        return Totals(bursts=n, payload_bytes=pay, padding_bytes=pad)

    def instructions(self) -> list[str]:
        """Names of the instructions that issued bursts, in first-issue order."""
        seen: dict[str, None] = {}
        for r in self._records:
            seen.setdefault(r.instr, None)
        return list(seen)

    def __repr__(self) -> str:
        t = self.totals()
        return (f"<Trace {t['bursts']} bursts, {t['payload_bytes']} payload bytes, "
                f"{t['padding_bytes']} padding bytes>")


def active(core) -> list[Trace]:
    return getattr(core, "_tracers", None) or []


def record_bursts(core, b, src, dst, length) -> None:
    """The bursts of a burst list ``b`` (``semantics.dma.Bursts``: its instruction, spaces,
    pads, repeat and ``ends``; one instance's ``src``, and ``dst`` / ``length`` per burst) in every trace
    active on ``core``: the one record the NumPy semantics and the burst engine both make, its
    fill the bytes each burst's body is padded by to 32 bytes."""
    tracers = active(core)
    if not tracers:
        return
    length = np.broadcast_to(np.asarray(length, np.int64), np.shape(dst))
    body, end = b.ends(dst, length)
    for tr in tracers:
        tr.record(Record(b.instr, b.src_space, b.dst_space, np.array(src, np.int64), np.array(dst, np.int64),
                         length.copy(), b.left, b.right, end - body, b.repeat))
