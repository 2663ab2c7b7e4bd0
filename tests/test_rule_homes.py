"""docs/architecture.md's "Where each rule lives" table against the code: every home it names
is defined there, and every definition of a function named for one of its rules is in it."""
from __future__ import annotations

import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
CPP_DEF = re.compile(r"^\s*(?:extern \"C\" __global__ void(?: __launch_bounds__\(\d+\))?|PTO_DEV|static inline|static)"
                     r"\s[^;=]*?\b(\w+)\s*\(", re.M)
PATTERNS = {"remap": r"\w*remap(?:_\w+|32|_t)?", "cast_index": r"cast_index", "launch_warps": r"(?:row|elem)_launch_warps",
            "gather_source": r"(?:source_addrs|gi_source)", "scatter_target": r"(?:index_offsets|si_target)",
            "winners": r"winners"}


def rows():
    text = DOC.read_text()
    part = text[text.index("## Where each rule lives"):]
    out = []
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[1].startswith("`") and cells[0] != "rule":
            homes = re.findall(r"`([^`:]+):(\w+)`", " ".join(cells[3:]))
            out.append((cells[0], cells[1].strip("`"), homes))
    return out


def definitions(path: pathlib.Path) -> set[str]:
    text = path.read_text()
    if path.suffix == ".py":
        return {n.name for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return set(CPP_DEF.findall(text))


def code_files():
    return [p for p in list((ROOT / "ptogpu").rglob("*.py")) + list((ROOT / "cuda_src").rglob("*"))
            if p.suffix in (".py", ".cu", ".cuh", ".h")]


def test_the_table_has_the_rules():
    names = [r[0] for r in rows()]
    assert len(names) >= 7 and any("remap" in n for n in names), names


@pytest.mark.parametrize("rule, pattern, homes", rows(), ids=[r[0] for r in rows()])
def test_every_home_is_defined_where_the_table_says(rule, pattern, homes):
    for path, name in homes:
        assert name in definitions(ROOT / path), f"{rule}: {path} defines no {name}"


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_every_definition_of_a_rule_is_in_the_table(pattern):
    listed = {(p, n) for _, pat, homes in rows() if pat == pattern for p, n in homes}
    want = re.compile(rf"^{PATTERNS[pattern]}$")
    found = {(f.relative_to(ROOT).as_posix(), n) for f in code_files() for n in definitions(f) if want.match(n)}
    extra = sorted(found - listed)
    assert not extra, f"homes of the {pattern} rule the table does not list: {extra}"


def test_a_new_copy_is_caught(tmp_path, monkeypatch):
    """Planted: a module that defines its own remap."""
    extra = ROOT / "ptogpu" / "semantics" / "_homes_probe.py"
    try:
        extra.write_text("def my_remap(u):\n    return u\n")
        with pytest.raises(AssertionError, match="my_remap"):
            test_every_definition_of_a_rule_is_in_the_table("remap")
    finally:
        extra.unlink()
