"""The public API explains itself: every public callable and class has a docstring, and what
``help(pto.MGATHER)`` says about the per-target defaults is what the target tables hold."""
from __future__ import annotations

import inspect
import re

import ptogpu as pto
from ptogpu import asc, reg


def _public():
    for mod, names in ((pto, pto.__all__), (reg, reg.__all__), (asc, getattr(asc, "__all__", []))):
        for n in names:
            obj = getattr(mod, n)
            if inspect.ismodule(obj) or isinstance(obj, (int, str, float)) or obj is pto.float:
                continue
            yield f"{mod.__name__}.{n}", obj


def test_every_public_callable_and_class_has_a_docstring():
    missing = [name for name, obj in _public()
               if (callable(obj) or inspect.isclass(obj)) and not (inspect.getdoc(obj) or "").strip()]
    assert not missing, missing


def test_mgather_help_states_the_target_defaults_the_tables_hold():
    doc = inspect.getdoc(pto.MGATHER)
    for form in ("MGATHER(dst, table, idx)", "MGATHER[CMode, Oob](dst_mat, table, gm_idx, scratch)",
                 "GatherExec.Simt", "RecordEvent"):
        assert form in doc
    said = {}
    for mode, targets in re.findall(r"``(Row|Elem)`` on ((?:``(?:cpu|a2a3|a5)``(?:, | and )?)+)", " ".join(doc.split())):
        for t in re.findall(r"``(\w+)``", targets):
            said[t] = mode
    assert said == {k: t.mgather.default_mode.name for k, t in pto.TARGETS.items()}
