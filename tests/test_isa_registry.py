"""The instruction registry (``ptogpu.isa``) is the one list the layers read: every instruction
names a hook or a reasoned refusal for every role, each hook resolves to what its layer needs,
and the name-keyed tables it replaced are gone."""
from __future__ import annotations

import inspect
import pathlib

import pytest

import ptogpu
from ptogpu import isa
from ptogpu.backend import sources
from ptogpu.execution.instrs import REGISTRY, Instr
from ptogpu.fuzz import rules as R
from ptogpu.targets import TARGETS, field_value

ROOT = pathlib.Path(ptogpu.__file__).parent
INSTRS = {i.name: i for i in isa.INSTRUCTIONS}


@pytest.mark.parametrize("name", INSTRS)
def test_every_role_is_filled_or_declined_with_a_reason(name):
    i = INSTRS[name]
    missing = [r for r in isa.ROLES if r not in i.hooks]
    assert not missing, f"{name} names no hook for {missing}: give one, or Declined('why')"
    for role, why in i.declined().items():
        assert len(why) > 10, f"{name} declines {role} without saying why"


@pytest.mark.parametrize("name", INSTRS)
def test_every_hook_resolves_to_what_its_layer_needs(name):
    i = INSTRS[name]
    api = i.hook("api")
    for call in i.calls:
        assert callable(getattr(api, call)), f"{name}: api has no {call}"
        assert getattr(ptogpu, call) is getattr(api, call), f"pto.{call} is not the package's"
    if i.fills("fuzz"):
        assert isinstance(i.hook("fuzz"), Instr) and REGISTRY[name] is i.hook("fuzz")
        assert callable(i.hook("repro")), f"{name} is fuzzed but has no reproducer lines"
        assert i.rule_fields, f"{name} is fuzzed but names no rule fields to explain its divergences"
    for b in ("native", "cupy"):
        if i.fills(b):
            assert (sources.source_dir() / i.hooks[b]).is_file(), f"{name}: {b} kernel {i.hooks[b]} missing"
    if i.fills("simt"):
        assert callable(i.hook("simt"))
    assert (ROOT.parent / i.doc).is_file() or not (ROOT.parent / "docs").is_dir(), f"{name}: no {i.doc}"


def test_rule_fields_name_real_target_fields():
    for i in isa.INSTRUCTIONS:
        for space, fields in i.rule_fields.items():
            for f in fields:
                assert f in R.BY_PATH, f"{i.name}: {f} is no rule Field of fuzz/rules.py"
                if f == "conflict":         # (an MSCATTER side's own choice, not a table field)
                    continue
                for t in TARGETS:
                    field_value(t, f)          # the path reads on every target


def test_calls_are_unique_and_views_agree():
    calls = [c for i in isa.INSTRUCTIONS for c in i.calls]
    assert len(calls) == len(set(calls))
    assert set(REGISTRY) == {i.name for i in isa.fuzzed()}
    assert isa.writes("TINTERLEAVE") == 2 and isa.writes("MGATHER") == 1 and isa.writes("Gather") == 1


def test_the_replaced_name_keyed_tables_are_gone():
    """calls.WRITES, fuzz/repro.LINES, fuzz/rules.CANDIDATES, fuzz/user_kernel.CALL_INSTRS and
    backend.KERNEL_COVERAGE were the tables an instruction had to be added to; they are views now."""
    from ptogpu import backend, calls
    from ptogpu.fuzz import repro, user_kernel
    for mod, name in ((calls, "WRITES"), (repro, "LINES"), (R, "CANDIDATES"), (user_kernel, "CALL_INSTRS"),
                      (backend, "KERNEL_COVERAGE")):
        assert not hasattr(mod, name), f"{mod.__name__}.{name} is back: make it a view of ptogpu.isa"


def test_info_lists_kernels_and_refusals():
    from ptogpu.backend.info import instructions
    got = instructions()
    assert set(got) == set(INSTRS)
    assert got["tgatherb"]["declined"]["simt"].startswith("a vector")
    assert got["mgather"]["kernels"]["native"] == "mgather.cu"


def test_a_declaration_without_a_role_fails_the_check(monkeypatch):
    """Planted: an instruction that forgets its repro hook."""
    from dataclasses import replace
    bad = replace(INSTRS["tgatherb"], hooks={k: v for k, v in INSTRS["tgatherb"].hooks.items() if k != "repro"})
    with pytest.raises(AssertionError, match="repro"):
        monkeypatch.setattr(isa, "INSTRUCTIONS", (bad,))
        INSTRS["tgatherb"], saved = bad, INSTRS["tgatherb"]
        try:
            test_every_role_is_filled_or_declined_with_a_reason("tgatherb")
        finally:
            INSTRS["tgatherb"] = saved


@pytest.mark.parametrize("module", [f"ptogpu.isa.{p}.{r}" for p in ("tgather", "tscatter")
                                    for r in ("config", "api", "repro")])
def test_each_role_module_imports_first(module):
    """An instruction package's module imported before anything else of ptogpu loads (the
    registry views build on first use, not while a hook's module is half-made)."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-1500:]


def test_declared_rules_get_distinct_bits_clear_of_the_verdict_bits():
    """A package's rules become fuzz/rules.py Fields with bits of their own, none on a flag."""
    bits = [f.bit for f in R.FIELDS]
    assert len(bits) == len(set(bits))
    flags = R.FAULT | R.RACE | R.REF_A | R.REF_B | R.WINDOW | R.UNEXPLAINED | R.BACKEND | R.EXECUTOR
    assert not any(b & flags for b in bits)
    declared = {r.path for i in isa.INSTRUCTIONS for r in i.rules}
    assert declared and declared <= set(R.BY_PATH)
    assert R.BY_PATH["tgather.oob"].copies == ("tgather.oob", "tgather.offset_math")
