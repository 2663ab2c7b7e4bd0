"""The instruction registry: one :class:`~.declare.Instruction` per instruction package, and the
views the layers read instead of tables of their own.

Adding an instruction is its package and one line in :data:`INSTRUCTIONS`. Every function
here is a view of that tuple; none holds instruction names (``tests/test_isa_registry.py``)."""
from __future__ import annotations

from functools import lru_cache

from .declare import ROLES, Declined, Form, Instruction, Rule
from .datamove import DATAMOVE
from .compare import COMPARE
from .elementwise import ELEMENTWISE
from .sort import SORT
from .tcvt import TCVT
from .tmov import TMOV
from .mgather import MGATHER
from .mscatter import MSCATTER
from .tgather import TGATHER
from .tgatherb import TGATHERB
from .tinterleave import TINTERLEAVE
from .tscatter import TSCATTER

INSTRUCTIONS: tuple[Instruction, ...] = (MGATHER, TGATHERB, TINTERLEAVE, MSCATTER, TGATHER, TSCATTER, DATAMOVE,
                                         *ELEMENTWISE, *COMPARE, TCVT, TMOV, *SORT)


def by_name(name: str) -> Instruction:
    """The instruction with registry name ``name`` (``mgather``) or a public call ``name``
    (``MGATHER``, ``TDEINTERLEAVE``)."""
    found = _index().get(name)
    if found is None:
        raise KeyError(name)
    return found


def find(call: str) -> Instruction | None:
    """The instruction a public call name belongs to, or None (a register instruction, say)."""
    return _index().get(call)


@lru_cache(maxsize=None)
def _index() -> dict[str, Instruction]:
    out: dict[str, Instruction] = {}
    for i in INSTRUCTIONS:
        out[i.name] = i
        for c in i.calls:
            out[c] = i
    return out


def fuzzed() -> tuple[Instruction, ...]:
    """The instructions with fuzz configurations of their own (``ptogpu fuzz --instr``)."""
    return tuple(i for i in INSTRUCTIONS if i.fills("fuzz"))


def writes(call: str) -> int:
    """How many leading operands a call of this name writes (1 for calls no package declares)."""
    i = find(call)
    return 1 if i is None else i.writes


def kernel_coverage() -> str:
    """What the kernel backends run, in words (``ptogpu info``, backend docs)."""
    return ", ".join(i.coverage for i in INSTRUCTIONS if i.fills("native") and i.coverage)


def declined() -> dict[str, dict[str, str]]:
    """Instruction -> {role: why it declines it}: ``ptogpu info --json``'s ``declined``."""
    return {i.name: i.declined() for i in INSTRUCTIONS if i.declined()}


@lru_cache(maxsize=None)
def target_table(table: str, target: str):
    """The per-target rule table a package owns (``tgather``), for ``Target.<table>`` (looked up
    once per table and target: every instruction call reads its table)."""
    for i in INSTRUCTIONS:
        if i.tables and (i.table or i.name) == table:
            mod, _, attr = i.tables.partition(":")
            import importlib
            return getattr(importlib.import_module(mod), attr)[target]
    raise AttributeError(table)


__all__ = ["ROLES", "Declined", "Form", "Instruction", "Rule", "INSTRUCTIONS", "by_name", "find", "fuzzed", "writes",
           "kernel_coverage", "declined", "target_table"]
