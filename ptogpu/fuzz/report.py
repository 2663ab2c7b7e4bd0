"""One campaign report for every family: what two sides did on N instances, their divergence
classes, its JSON (``ptogpu.fuzz.report/2``), the merge of shards and the shrink.

A family (MGATHER-like instructions in ``compare``, MSCATTER in ``scatter``; a user's kernel
next) subclasses :class:`Report` with its few facts -- how its configuration reads and
writes as settings, how a class's example is regenerated and shrunk, the rule lines of a
class -- and names itself in ``FAMILY``; everything else (counts, classes, JSON, merge,
checks of a shard's numbers) is here, once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from . import rules as R
from .classes import FIRST, DivClass, Side

SCHEMA = "ptogpu.fuzz.report/2"
"""Name and version of the report's JSON form (docs/json.md): a new version number means a
field changed meaning or went away; new fields may appear within a version. Version 2: three
verdicts per tile (``references``), classes named by the rule fields that are shown to explain
them (``facts``)."""

FAMILIES: dict[str, type["Report"]] = {}
"""family name -> its report class (each registers itself by defining ``FAMILY``)."""

# What a side's execution is checked against (Report.references, "references" in the JSON).
REF_NUMPY = "numpy semantics"
REF_SELF_NUMPY = "none: this side is the numpy semantics itself"

EXECUTED = ("lanes", "loop", "formula")
"""What a side's results came from: ``lanes``, every SIMT lane of every warp-round of the A5
launch (the kernels: lock-step warps on native, the GPU's threads on cupy); ``loop``, the
target's scalar loop (kernels of the scalar targets and A5's 1x1 path); ``formula``, the
per-element result computed directly (the NumPy array paths, the fused campaigns), which
executes neither lanes nor loops and so cannot see an error in the lane mapping."""



def joined(parts) -> str:
    """EXECUTED parts as one label, in EXECUTED's order ("lanes+formula"); "formula" for none."""
    return "+".join(e for e in EXECUTED if e in parts) or "formula"


def widened(label: str, parts) -> str:
    """A joined label (or "") with more EXECUTED parts: what two runs of one call ran together."""
    return joined(set(label.split("+")) | set(parts))


COUNTS = ("faults_a", "faults_b", "races_a", "races_b", "divergent", "ref_bad_a", "ref_bad_b")


@dataclass
class Report:
    a: Side
    b: Side
    config: Any
    n: int
    generator: str
    seed: int
    seconds: float = 0.0
    engine: str = ""
    faults_a: int = 0
    faults_b: int = 0
    races_a: int = 0                                # tiles where threads of side A store to one element
    races_b: int = 0
    divergent: int = 0
    classes: dict = field(default_factory=dict)
    check_error: str | None = None
    executed: dict = field(default_factory=dict)    # side -> "lanes" | "loop" | "formula" (EXECUTED)
    calls_ran: dict = field(default_factory=dict)   # (kernel campaigns) side -> {instruction: its EXECUTED}
    digests: dict = field(default_factory=dict)     # (kernel campaigns) side -> its outputs' digest (user_kernel.digest)
    shapes: bool = False                            # each instance's valid shape drawn
    start: int = 0                                  # first instance number
    workers: list = field(default_factory=list)     # shards: where each ran (spec.run_sharded)
    references: dict = field(default_factory=dict)  # side -> what its execution was checked against
    ref_bad_a: int = 0                              # tiles where side A disagrees with its reference
    ref_bad_b: int = 0
    ref_checked_a: int | None = None                # instances checked against side A's reference
    ref_checked_b: int | None = None                # (None: every one; a kernel campaign may sample)
    FAMILY: ClassVar[str] = ""
    CONFIG: ClassVar[type] = object                 # the family's configuration type
    GENERATOR: ClassVar[str] = "mixed"              # the command line's default generator
    GENERATORS: ClassVar[tuple[str, ...]] = ()      # the generators its campaigns take
    ENGINES: ClassVar[tuple[str, ...]] = ("execute",)   # --engine choices its campaigns take
    SHAPES: ClassVar[bool] = False                  # --shapes (drawn valid shapes) runs
    UNIT: ClassVar[str] = "tiles"                   # what one instance is called in its text

    def __init_subclass__(cls, **kw) -> None:
        super().__init_subclass__(**kw)
        if cls.FAMILY:
            FAMILIES[cls.FAMILY] = cls

    # ---- the family's facts (a subclass's) ----------------------------------------------------
    @staticmethod
    def settings_of(config) -> dict:
        """The configuration as plain JSON fields."""
        raise NotImplementedError

    @staticmethod
    def config_of(settings: dict):
        """The configuration ``settings_of`` wrote."""
        raise NotImplementedError

    @staticmethod
    def label_of(config) -> str:
        raise NotImplementedError

    @staticmethod
    def side_of(text: str) -> Side:
        """A side as written (``a5.simt@native``), checked for the family."""
        return Side.parse(text)

    @staticmethod
    def default_pairs(config) -> list[tuple[str, str, str]]:
        """(title, side a, side b) of the command line's campaigns without ``--pair``."""
        raise NotImplementedError

    def rule_lines(self, c: DivClass) -> list[str]:
        """What each rule of a class says, on these two sides."""
        return R.describe(c.mask, self.a, self.b)

    def regenerate(self, classes: list[DivClass]) -> None:
        """Each class's example from (seed, its first instance)."""
        raise NotImplementedError

    def shrink_class(self, c: DivClass) -> None:
        raise NotImplementedError

    def lines(self) -> list[str]:
        """Text lines of the family's own after the common ones."""
        return []

    @classmethod
    def run_spec(cls, spec, *, shrink: bool, progress, executor) -> "Report":
        """Run a ``spec.CampaignSpec`` of this family here (its instance range)."""
        raise NotImplementedError

    # ---- everything else, once ----------------------------------------------------------------
    @property
    def tiles_per_s(self) -> float:
        return self.n / self.seconds if self.seconds and not self.check_error else 0.0

    @property
    def unexplained(self) -> int:
        return sum(c.count for c in self.classes.values() if not c.explained and not R.is_bug(c.mask))

    @property
    def bugs(self) -> int:
        return sum(c.count for c in self.classes.values() if R.is_bug(c.mask))

    def to_json(self) -> dict:
        """The report as the versioned JSON document of docs/json.md (``schema`` names it)."""
        return {
            "schema": SCHEMA, "family": self.FAMILY,
            "a": str(self.a), "b": str(self.b), "config": self.label_of(self.config),
            "settings": self.settings_of(self.config),
            "sides": {"a": side_json(self.a), "b": side_json(self.b)},
            "start": self.start, "n": self.n,
            "generator": self.generator, "seed": self.seed, "engine": self.engine,
            "compared": 0 if self.check_error else self.n,
            "seconds": round(self.seconds, 4), "tiles_per_s": round(self.tiles_per_s, 1),
            "executed": dict(self.executed), "shapes": self.shapes,
            "faults_a": self.faults_a, "faults_b": self.faults_b,
            "races_a": self.races_a, "races_b": self.races_b, "divergent": self.divergent,
            "references": {k: {"reference": self.references.get(k, "none"), "mismatched": x,
                               "checked": self.checked(k)}
                           for k, x in (("a", self.ref_bad_a), ("b", self.ref_bad_b))},
            "unexplained": self.unexplained, "emulator_bugs": self.bugs,
            "check_error": self.check_error,
            "classes": [{"class": c.name, "facts": R.names(c.mask), "count": c.count,
                         "first": c.first, "explained": c.explained,
                         "emulator_bug": R.is_bug(c.mask), "rules": self.rule_lines(c),
                         **({"shape": list(c.shape)} if c.shape else {}),
                         **({"call": c.call} if c.call else {}),
                         "shrunk": c.shrunk, "reproducer": c.reproducer}
                        for c in sorted(self.classes.values(), key=lambda c: -c.count)],
            **({"workers": list(self.workers)} if self.workers else {}),
            **({"executed_calls": {k: dict(v) for k, v in self.calls_ran.items()}} if self.calls_ran else {}),
            **({"digests": {k: f"{v:016x}" for k, v in self.digests.items()}} if self.digests else {}),
        }

    @classmethod
    def from_json(cls, d: dict) -> "Report":
        """The report a ``to_json`` document describes (a shard's, read back to merge), as its
        family's class. Each class's example is regenerated from (seed, its first instance)."""
        check_schema(d)
        fam = family_of(d)
        if fam not in FAMILIES:
            raise ValueError(f"a report of family {fam!r}: this ptogpu knows {', '.join(FAMILIES)}")
        k = FAMILIES[fam]
        if cls is not Report and k is not cls:
            raise ValueError(f"not a {cls.FAMILY} report ({SCHEMA}): a {fam} one")
        refs = d["references"]
        rep = k(k.side_of(d["a"]), k.side_of(d["b"]), k.config_of(d["settings"]), int(d["n"]),
                d["generator"], int(d["seed"]), seconds=float(d["seconds"]), engine=d["engine"],
                check_error=d["check_error"], executed=dict(d["executed"]), shapes=bool(d.get("shapes")),
                start=int(d["start"]), references={x: refs[x]["reference"] for x in "ab"},
                ref_bad_a=int(refs["a"]["mismatched"]), ref_bad_b=int(refs["b"]["mismatched"]),
                ref_checked_a=_checked(refs["a"], d), ref_checked_b=_checked(refs["b"], d),
                **{f: int(d.get(f, 0)) for f in COUNTS if not f.startswith("ref_")})
        rep.calls_ran = {k: dict(v) for k, v in d.get("executed_calls", {}).items()}
        rep.digests = {k: int(v, 16) for k, v in d.get("digests", {}).items()}
        for c in d["classes"]:
            k = DivClass(R.mask_of_names(c["facts"]), int(c["count"]), [int(x) for x in c["first"]],
                         shape=tuple(c["shape"]) if c.get("shape") else None,
                         reproducer=c["reproducer"], shrunk=c["shrunk"], call=c.get("call"))
            rep.classes[k.key] = k
        rep.regenerate(list(rep.classes.values()))
        return rep

    def checked(self, side: str) -> int:
        """Instances whose side ``side`` ("a" or "b") was checked against its reference (0:
        it has none, it is the reference itself)."""
        if self.check_error or self.references.get(side, "none").startswith("none"):
            return 0
        got = getattr(self, f"ref_checked_{side}")
        return self.n if got is None else got

    def _key(self) -> tuple:
        """What shards of one campaign share (the backends may differ: a worker's own)."""
        return (self.FAMILY, repr(self.settings_of(self.config)), self.generator, self.seed, self.shapes,
                self.a.target, self.a.exec, self.b.target, self.b.exec)

    @classmethod
    def merge(cls, reports: list["Report"]) -> "Report":
        """The report of one run over the union of ``reports`` (shards of one campaign): counts
        and faults summed, each class's first instances the smallest across shards, its
        example regenerated, a check error from any shard kept. The shards must tile one
        instance range (``execution.shards.check_tiling``) and share family, configuration,
        sides, generator and seed. Nothing is shrunk: call :meth:`shrink` once on the result."""
        from ..execution.shards import check_tiling
        reports = list(reports)
        start, n = check_tiling([(r.start, r.n) for r in reports], "report shards")
        r0 = reports[0]
        if any(r._key() != r0._key() for r in reports[1:]):
            raise ValueError("these reports are not shards of one campaign (family, configuration, sides, "
                             "generator or seed differ)")
        out = type(r0)(r0.a, r0.b, r0.config, n, r0.generator, r0.seed, start=start, shapes=r0.shapes,
                       seconds=sum(r.seconds for r in reports))
        out.engine = "; ".join(dict.fromkeys(r.engine for r in reports))
        mixed = {k: sorted({str(getattr(r, k)) for r in reports}) for k in ("a", "b")}
        if any(len(v) > 1 for v in mixed.values()):          # shards on workers with other backends
            out.engine += "; shards ran as " + ", ".join(" and ".join(v) for v in mixed.values() if len(v) > 1)
        out.check_error = next((r.check_error for r in reports if r.check_error), None)
        for k in ("a", "b"):
            parts = list(dict.fromkeys(p for r in reports for p in r.executed.get(k, "").split("+") if p))
            if parts:                   # (a family's own parts, "lanes (scan ...)", rank last)
                rank = {e: i for i, e in enumerate(EXECUTED)}
                out.executed[k] = "+".join(sorted(parts, key=lambda p: rank.get(p, len(rank))))
        for r in reports:
            for k, d in r.digests.items():      # (a sum over instances: shards add up)
                out.digests[k] = (out.digests.get(k, 0) + d) % (1 << 64)
            for k, calls in r.calls_ran.items():
                mine = out.calls_ran.setdefault(k, {})
                for name, how in calls.items():
                    mine[name] = widened(mine.get(name, ""), how.split("+"))
        out.references = {k: "; ".join(dict.fromkeys(r.references.get(k, "none") for r in reports))
                          for k in ("a", "b")}
        for k in ("a", "b"):                # (every shard checked all: None, as each says)
            if any(getattr(r, f"ref_checked_{k}") is not None for r in reports):
                setattr(out, f"ref_checked_{k}", sum(r.checked(k) for r in reports))
        for r in sorted(reports, key=lambda r: r.start):
            for f in COUNTS:
                setattr(out, f, getattr(out, f) + getattr(r, f))
            for m, c in r.classes.items():
                t = out.classes.setdefault(m, DivClass(c.mask, call=c.call))
                if c.first and (not t.first or c.first[0] < t.first[0]):
                    t.shape = c.shape
                t.count += c.count
                t.first = sorted(t.first + c.first)[:FIRST]
        out.regenerate(list(out.classes.values()))
        return out

    def shrink(self) -> None:
        """Shrink every class to a minimal reproducer (what a campaign does at its end; its
        kernel launches are not the campaign's runs)."""
        from ..backend.kernels import uncounted
        with uncounted():
            for c in self.classes.values():
                self.shrink_class(c)


def _checked(ref: dict, d: dict) -> int | None:
    """A side's checked count as a document gives it (None: every instance; documents before
    the field checked every one)."""
    got = ref.get("checked")
    return None if got is None or got == d.get("n") else int(got)


def family_of(d: dict) -> str:
    """A report document's family (documents before the field: MSCATTER ones said ``instr``)."""
    return d.get("family") or ("mscatter" if d.get("instr") == "mscatter" else "mgather")


def side_json(s: Side) -> dict:
    return {"target": s.target, "exec": s.exec, "backend": s.backend}


def check_schema(d: dict) -> None:
    """A report document of this version, or one line saying what it is instead."""
    got = d.get("schema") if isinstance(d, dict) else None
    if got == SCHEMA:
        return
    if isinstance(got, str) and got.startswith("ptogpu.fuzz.report/"):
        raise ValueError(f"a {got} report (an older ptogpu's, without per-side reference verdicts): "
                         f"this ptogpu merges {SCHEMA}; rerun that shard")
    raise ValueError(f"not a fuzz report ({SCHEMA}): schema {got!r}")


def check_counts(d: dict) -> None:
    """A report document whose counts a run of its ``n`` tiles could have produced (a merge
    sums them: an edited or corrupted shard must not pass), or a ValueError saying which."""
    def whole(k, v):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{k} = {v!r}: not a count")
        return v
    n, start = whole("n", d.get("n")), whole("start", d.get("start"))
    counts = {k: d.get(k, 0) for k in COUNTS if not k.startswith("ref_")}
    counts.update({f"references.{k}.{f}": d.get("references", {}).get(k, {}).get(f, 0)
                   for k in "ab" for f in ("mismatched", "checked")})
    for k, v in counts.items():
        if whole(k, v) > n:
            raise ValueError(f"{k} = {v:,} of {n:,} tiles: more than the run compared")
    total = 0
    for c in d.get("classes", []):
        total += whole(f"class {c.get('class')!r} count", c.get("count"))
        first = c.get("first", [])
        if len(first) > c["count"] or any(not isinstance(x, int) or not start <= x < start + n for x in first):
            raise ValueError(f"class {c.get('class')!r}: first instances {first} outside "
                             f"{start:,} .. {start + n - 1:,} or more than its count")
    if total > n:
        raise ValueError(f"classes count {total:,} tiles of {n:,}: more than the run compared")
