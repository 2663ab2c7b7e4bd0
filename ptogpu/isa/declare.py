"""The one declaration style of an instruction: what it is, and where each layer finds the code
that owns each of its roles.

An instruction is a package ``ptogpu.isa.NAME`` whose ``__init__`` holds one
:class:`Instruction`. The declaration is data (names and ``"module:attribute"`` hooks), so the
registry can be imported by every layer without importing any layer: a layer asks the
registry for the hook of its role and imports it itself (``Instruction.hook``). A role an
instruction does not fill is a :class:`Declined` with the reason, which ``ptogpu info --json``
lists; a missing role is an error (``tests/test_isa_registry.py``)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Declined:
    """A role the instruction does not fill, and why (said where the role is asked for)."""
    reason: str


Hook = "str | Declined"


@dataclass(frozen=True)
class Form:
    """One call form: its C++ spelling and what it does, for ``help()`` and the docs."""
    signature: str
    summary: str


@dataclass(frozen=True)
class Rule:
    """A rule field an instruction's package declares: the target-table field (``table.field``)
    whose swap between two targets may explain a divergence, its class name, where it is
    written down; ``coarse``: a whole routine, tried only when no narrow field explains;
    ``with_``: fields swapped with it (what the rule reads beside its own field)."""
    path: str
    name: str
    doc: str
    coarse: bool = False
    with_: tuple[str, ...] = ()


def numpy_only() -> dict:
    """The kernel roles of an instruction that runs its NumPy semantics on every backend."""
    why = Declined("NumPy semantics only so far: no kernel (native and cupy run the NumPy semantics)")
    return {"native": why, "cupy": why}


def fuzzed_in_kernels(what: str) -> dict:
    """The fuzz roles of an instruction with no fuzz configuration of its own."""
    return {"fuzz": Declined(f"no fuzz configuration yet: {what} fuzzed inside kernels: ptogpu/fuzz/suite_kernels.py, "
                             "ptogpu fuzz --kernel"),
            "repro": Declined("no fuzz configuration yet, so no reproducer lines of its own")}


ROLES = ("api", "fuzz", "repro", "native", "cupy", "simt")
OPTIONAL_ROLES = ("campaign",)
"""Hooks a declaration may name: ``campaign`` a campaign engine of its own (a module with
``covers(ca, cb, gen, sa, sb)`` and ``run(ca, cb, gen, sa, sb, n, start, rep, chunk=,
progress=)``), which ``ptogpu.fuzz.compare`` runs where it covers a campaign."""
"""The hooks every declaration names (a module path, ``module:attr``, or Declined):
``api`` the public callables, ``fuzz`` its fuzz-configuration Instr, ``repro`` its reproducer
lines, ``native``/``cupy`` its kernel source (a ``cuda_src`` file) or why it has none, ``simt``
its SIMT map."""


@dataclass(frozen=True)
class Instruction:
    """Everything a layer needs to know of one instruction, by role."""
    name: str                                  # the registry name: ``ptogpu fuzz --instr NAME``
    calls: tuple[str, ...]                     # the public names it declares (``pto.TGATHER``)
    doc: str                                   # its page under docs/
    spec: str                                  # the rules' source (vendor headers / spec sections)
    forms: tuple[Form, ...] = ()
    writes: int = 1                            # leading operands a call writes (PTO: dst first)
    spaces: tuple[str, ...] = ("ub",)          # where its destinations live, the first the default
    rule_fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Per destination space: the target-table fields that may explain a cross-target divergence."""
    rules: tuple[Rule, ...] = ()                # the rule fields this package defines (fuzz/rules.py has the rest)
    tables: str | None = None                  # ``module:attr``: {target: table} the package owns
    table: str = ""                            # its name as ``target.<table>`` (default: ``name``)
    hooks: Mapping[str, Any] = field(default_factory=dict)   # role -> "module:attr" | Declined
    coverage: str = ""                         # what its kernels cover, for ``ptogpu info``

    def __post_init__(self) -> None:
        if not self.rule_fields and self.rules:      # the rules it declares, for its first space
            object.__setattr__(self, "rule_fields", {self.spaces[0]: tuple(r.path for r in self.rules)})

    def hook(self, role: str):
        """The object a role names (imported now), or the Declined. KeyError: the declaration
        does not name the role at all (a test refuses that)."""
        h = self.hooks[role]
        if isinstance(h, Declined):
            return h
        mod, _, attr = h.partition(":")
        m = importlib.import_module(mod)
        return getattr(m, attr) if attr else m

    def fills(self, role: str) -> bool:
        return not isinstance(self.hooks.get(role, Declined("")), Declined)

    def declined(self) -> dict[str, str]:
        """Role -> reason, for every role it does not fill."""
        return {r: h.reason for r, h in self.hooks.items() if isinstance(h, Declined)}
