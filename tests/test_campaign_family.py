"""One side type and one agreement rule for every campaign family (fuzz/classes.py): how a
side is read, and which pairs of sides must agree (BACKEND / EXECUTOR) or may differ by a
target-table rule (0)."""
from __future__ import annotations

import pytest

from ptogpu.fuzz import rules as R
from ptogpu.fuzz import scatter as S
from ptogpu.fuzz.classes import Side, relation


def test_a_side_reads_the_same_for_every_family():
    s = Side.parse(" A5.Last.Reverse@Native ")
    assert (s.target, s.exec, s.backend, s.conflict, s.scan) == ("a5", "last.reverse", "native", "last", "reverse")
    assert str(s) == "a5.last.reverse@native" and Side.parse(str(s)) == s
    g = Side.parse("a2a3", "numpy")
    assert (g.exec, g.backend, g.conflict, g.scan, str(g)) == ("auto", "numpy", None, None, "a2a3@numpy")
    assert S.side("a5.default@native") == Side("a5", "default", "native")


@pytest.mark.parametrize("a, b, rel", [
    ("a5@native", "a5@numpy", R.BACKEND), ("a5", "a5.simt", R.EXECUTOR), ("a5.simt@native", "a5@numpy", R.EXECUTOR),
    ("a5", "cpu", 0), ("a2a3@native", "a2a3@native", R.EXECUTOR)])
def test_mgather_sides_must_agree_on_one_target(a, b, rel):
    assert relation(Side.parse(a), Side.parse(b)) == rel


@pytest.mark.parametrize("a, b, rel", [
    ("a5.last.owner", "a5.last.reverse", R.EXECUTOR), ("a5.last@native", "a5.last@numpy", R.BACKEND),
    ("a5.default", "a5.last", 0), ("a5", "cpu", 0), ("a5.default", "a5.default", R.EXECUTOR)])
def test_mscatter_sides_must_agree_on_one_target_and_conflict(a, b, rel):
    assert relation(S.side(a), S.side(b), S.rule_key) == rel


@pytest.mark.parametrize("text, msg", [("a5.first", "conflict must be default or last"),
                                       ("a5.default.reverse", "names its scan"),
                                       ("a5.last.sideways", "names its scan"),
                                       ("a2a3.last", "no ScatterConflict parameter"), ("a9", "target must be")])
def test_a_bad_mscatter_side_is_one_clear_error(text, msg):
    with pytest.raises(ValueError, match=msg):
        S.side(text)
