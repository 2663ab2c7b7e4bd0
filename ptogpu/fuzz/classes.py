"""What a campaign's report is made of, below the engines that fill it: the sides, the
divergence classes (their first instances and example), and each instance's drawn shape.
The engines (execute, fused, fused_numpy, shrink) and the campaign (compare) import these;
none of them imports upwards."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import rules as R
from ..execution.config import FuzzConfig
from ..execution.rng import Generator
from ..targets import TARGETS, get_target

FIRST = 5          # instance numbers kept per class


@dataclass(frozen=True)
class Side:
    """One side of a campaign of any family: ``target[.exec][@backend]``. ``exec`` is what the
    family lets a side choose on its target: the executor of an MGATHER-family side
    (``a5.simt``), the ScatterConflict and Last scan of an MSCATTER side (``a5.last.reverse``);
    ``auto``: the target's default."""
    target: str
    exec: str = "auto"
    backend: str = "auto"

    @classmethod
    def parse(cls, s: str, backend: str = "auto") -> "Side":
        s = s.strip().lower()
        be = backend
        if "@" in s:
            s, be = s.split("@", 1)
        tgt, _, ex = s.partition(".")
        return cls(tgt, ex or "auto", be)

    @property
    def conflict(self) -> str | None:
        """An MSCATTER side's ScatterConflict (None: the target's default)."""
        return None if self.exec == "auto" else self.exec.partition(".")[0]

    @property
    def scan(self) -> str | None:
        """An MSCATTER ``.last`` side's scan (``owner`` / ``reverse``; None: the campaign's)."""
        return self.exec.partition(".")[2] or None

    def config(self, base: FuzzConfig) -> FuzzConfig:
        """The MGATHER-family configuration this side runs (its target and executor)."""
        ex = self.exec
        if ex == "simt" and not get_target(self.target).mgather.simt:
            raise ValueError(f"{self}: only {', '.join(t for t, x in TARGETS.items() if x.mgather.simt)} "
                             f"has a SIMT executor")
        return base.with_(target=self.target, exec=ex)

    def __str__(self) -> str:
        ex = f".{self.exec}" if self.exec != "auto" else ""
        return f"{self.target}{ex}@{self.backend}"


def relation(a: Side, b: Side, rules=lambda s: s.target) -> int:
    """The rule two sides are held to when ``rules`` (what of a side its family's target-table
    rules depend on: the target; for MSCATTER also the conflict) is the same for both: BACKEND
    when only the backend differs, EXECUTOR otherwise (another executor or scan, or the same
    side twice); 0 when the rules may differ."""
    if rules(a) != rules(b):
        return 0
    return R.BACKEND if a.exec == b.exec and a.backend != b.backend else R.EXECUTOR


@dataclass
class DivClass:
    """The tiles of one class (their rule mask): how many, the first few, the first's example."""
    mask: int
    count: int = 0
    first: list = field(default_factory=list)
    example: np.ndarray | None = None           # generator values of the first instance
    shape: tuple | None = None                  # its valid (rows, cols) in a shape-fuzzing campaign
    reproducer: str | None = None
    shrunk: dict | None = None
    call: str | None = None                     # a kernel campaign's first diverging call

    @property
    def name(self) -> str:
        return f"{self.call}: {R.class_name(self.mask)}" if self.call else R.class_name(self.mask)

    @property
    def key(self):
        """Its key in a report's classes: the rule mask (and a kernel's diverging call)."""
        return (self.mask, self.call) if self.call else self.mask

    @property
    def explained(self) -> bool:
        return R.explained(self.mask)


def instance_configs(a: FuzzConfig, b: FuzzConfig, gen, inst: int) -> tuple[FuzzConfig, FuzzConfig]:
    """The two sides' configurations of instance ``inst`` of a shape-fuzzing campaign over
    a x b: its drawn valid shape inside tiles laid out for (a.rows, a.cols)."""
    from ..execution.rng import shapes as draw
    vr, vc = draw(gen.seed, np.array([inst]), a.rows, a.cols, a.mode == "row")
    st = (a.rows, a.cols)
    return (a.with_(rows=int(vr[0]), cols=int(vc[0]), storage=st),
            b.with_(rows=int(vr[0]), cols=int(vc[0]), storage=st))


def example_of(rep, gen: Generator, c: DivClass):
    """A class's example: its first instance's generator values (in its drawn shape)."""
    if not c.first:
        return None
    cfg = rep.a.config(rep.config)
    if c.shape:
        cfg = instance_configs(cfg, rep.b.config(rep.config), gen, c.first[0])[0]
    return gen(np.array(c.first[:1], np.int64), cfg.n_idx, cfg.cap)[0]


def note_sparse(rep, inst: np.ndarray, masks: np.ndarray, gen: Generator, cfg: FuzzConfig) -> None:
    """Add divergent instances ``inst`` (ascending) with class ``masks`` to the report."""
    rep.divergent += int(inst.size)
    if not inst.size:
        return
    for m in np.unique(masks):
        sel = inst[masks == m]
        c = rep.classes.setdefault(int(m), DivClass(int(m)))
        c.count += int(sel.size)
        if len(c.first) < FIRST:
            c.first += [int(i) for i in sel[: FIRST - len(c.first)]]
        if c.example is None:
            c.example = gen(sel[:1].astype(np.int64), cfg.n_idx, cfg.cap)[0]
