"""Shards: one slice of a run's instance range, and the checks that make merging them safe.

Instances are a pure function of (seed, instance number), so ``--shard i/k`` of instances
``start .. start+n-1`` is the contiguous slice ``start + n*i//k .. start + n*(i+1)//k - 1``
(0 <= i < k; sizes differ by at most one). A merge accepts slices only when they tile one
range exactly -- no gap, no overlap -- so a merged result can never silently lack a shard.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from typing import ClassVar


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
    def of(cls, shard: "Shard | str") -> "Shard":
        return cls.parse(shard) if isinstance(shard, str) else shard

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


class RangeSpec:
    """What a run described as data shares (a frozen dataclass with ``start`` and ``n``): its
    versioned JSON form and its shards. ``SCHEMA`` names the form, ``KIND`` the document in
    messages, ``REQUIRED`` the fields a document must give; fields a later minor version adds
    are ignored when read."""
    SCHEMA: ClassVar[str]
    KIND: ClassVar[str]
    REQUIRED: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict:
        return {"schema": self.SCHEMA, **asdict(self)}

    @classmethod
    def from_json(cls, d: dict):
        if d.get("schema") != cls.SCHEMA:
            raise ValueError(f"not a {cls.KIND} document ({cls.SCHEMA}): schema {d.get('schema')!r}")
        kw = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        missing = set(cls.REQUIRED) - set(kw)
        if missing:
            raise ValueError(f"{cls.KIND} document lacks {', '.join(sorted(missing))}")
        return cls(**kw)

    def shard(self, shard: Shard | str):
        """The spec of one shard (its instance slice)."""
        s, m = Shard.of(shard).range(self.start, self.n)
        return replace(self, start=s, n=m)
