"""Paths of a kernel that branches on what it reads, merged where they meet again
(``ptogpu.execution.reconverge``): every kernel of tests/reconverge_kernels.py -- a scan that
breaks, ``continue`` past a call (paths at one call site on other iterations), other calls on
each side of a branch, a ``while`` with a live count, a helper that branches, a loop over a list,
a value read and used after the next call, an early return, a branch into a fault -- gives the
same bytes and faults per instance with the merging as without it, on both sides of its pair.
Two of them fail when the key leaves out what it must hold (the loops' variables; the live
locals): merging is sound only with them."""
from __future__ import annotations

import os

import numpy as np
import pytest

from ptogpu.execution import program as P
from ptogpu.execution import reconverge as R
from ptogpu.execution.inputs import draw

KERNELS = os.path.join(os.path.dirname(__file__), "reconverge_kernels.py")
NAMES = ("scan_break", "skip_rows", "branches", "while_count", "helper", "list_loop", "dead_value", "operand_value",
         "early_return", "faulting")


def both(name: str, target: str, n: int = 400):
    prog = P.load(f"{KERNELS}:{name}")
    data = draw(prog.inputs, 0, np.arange(n))
    out = []
    for on in (False, True):
        P.RECONVERGE = on
        try:
            r = P.run_program(prog, target, "numpy", data)
        finally:
            P.RECONVERGE = True
        out.append((r.outputs.copy(), [str(c) for c in r.codes]))
    return out


@pytest.mark.parametrize("target", ["cpu", "a5"])
@pytest.mark.parametrize("name", NAMES)
def test_merged_paths_give_what_separate_paths_give(name, target):
    (a, fa), (b, fb) = both(name, target)
    assert np.array_equal(a, b) and fa == fb


def test_paths_do_merge(monkeypatch):
    """The scan kernel's parked groups meet at the next call: some runs take several groups."""
    seen = []
    real = P._merged

    def counting(stops):
        runs = real(stops)
        seen.append(len(stops) - len(runs))
        return runs
    monkeypatch.setattr(P, "_merged", counting)
    both("scan_break", "cpu")
    assert sum(seen) > 0


@pytest.mark.parametrize("name,hole", [("skip_rows", "loops"), ("dead_value", "live"), ("operand_value", "operands")])
def test_a_key_without_what_it_must_hold_merges_wrongly(name, hole, monkeypatch):
    """The test kernels see an unsound key: without the enclosing loops' variables (paths at one
    call on other iterations), without the live locals (a value used after the call) or without
    the call's operands (a value only the call takes)."""
    real = R._Code.__init__

    def init(self, code):
        real(self, code)
        if hole != "operands":
            self.calls = {k: (None if v is None else (v[0] if hole == "loops" else frozenset(), ()))
                          for k, v in self.calls.items()}
    monkeypatch.setattr(R._Code, "__init__", init)
    if hole == "operands":
        monkeypatch.setattr(R, "_operands", lambda args, kw: ())
    R._facts.cache_clear()
    try:
        (a, _), (b, _) = both(name, "cpu")
    finally:
        R._facts.cache_clear()
    assert not np.array_equal(a, b)


def test_code_it_cannot_read_gives_no_key():
    def with_block(t):
        with open(os.devnull):
            return t
    def closure():
        k = 1
        return lambda: k
    assert not R.analysable(with_block) and not R.analysable(closure()) and R.analysable(test_code_it_cannot_read_gives_no_key)
