"""Shards: one slice of a run's instance range, and the checks that make merging them safe.

Instances are a pure function of (seed, instance number), so ``--shard i/k`` of instances
``start .. start+n-1`` is the contiguous slice ``start + n*i//k .. start + n*(i+1)//k - 1``
(0 <= i < k; sizes differ by at most one). A merge accepts slices only when they tile one
range exactly -- no gap, no overlap -- so a merged result can never silently lack a shard.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (0-based: ``0/4`` .. ``3/4``)."""
    index: int
    count: int

    def __post_init__(self) -> None:
        if not (isinstance(self.index, int) and isinstance(self.count, int)):
            raise ValueError(f"shard {self.index!r}/{self.count!r}: two integers i/k")
        if self.count < 1:
            raise ValueError(f"shard {self.index}/{self.count}: k must be at least 1")
        if not 0 <= self.index < self.count:
            raise ValueError(f"shard {self.index}/{self.count}: i must be 0..{self.count - 1} "
                             f"(shards are numbered from 0)")

    @classmethod
    def parse(cls, text: str) -> "Shard":
        m = re.fullmatch(r"\s*([+-]?\d+)\s*/\s*([+-]?\d+)\s*", str(text))
        if not m:
            raise ValueError(f"shard {text!r}: expected i/k, e.g. 0/4 (shard i of k, from 0)")
        return cls(int(m[1]), int(m[2]))

    def range(self, start: int, n: int) -> tuple[int, int]:
        """(first instance, instances) of this shard of ``start .. start+n-1``."""
        lo = start + n * self.index // self.count
        hi = start + n * (self.index + 1) // self.count
        return lo, hi - lo

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def split(start: int, n: int, k: int) -> list[tuple[int, int]]:
    """The k shards of a range, as (first instance, instances)."""
    return [Shard(i, k).range(start, n) for i in range(k)]


def check_tiling(ranges: list[tuple[int, int]], what: str = "shards") -> tuple[int, int]:
    """(start, n) of the range ``ranges`` tile exactly; a ValueError naming the first gap or
    overlap otherwise. Empty slices (n = 0) are allowed anywhere."""
    if not ranges:
        raise ValueError(f"no {what} to merge")
    rs = sorted((int(s), int(m)) for s, m in ranges)
    for s, m in rs:
        if m < 0:
            raise ValueError(f"{what}: a slice of {m} instances")
    nonempty = [(s, m) for s, m in rs if m]
    if not nonempty:
        return rs[0][0], 0
    lo, end = nonempty[0][0], nonempty[0][0]
    for s, m in nonempty:
        if s > end:
            raise ValueError(f"{what} do not cover one range: instances {end:,} .. {s - 1:,} are missing")
        if s < end:
            raise ValueError(f"{what} overlap: instances {s:,} .. {min(end, s + m) - 1:,} appear twice")
        end = s + m
    return lo, end - lo
