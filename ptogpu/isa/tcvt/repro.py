"""TCVT's reproducer lines (what ``config.TcvtInstr.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ...fuzz.repro import one_source_lines
from .config import parse


def lines(cfg, L: dict, vals: np.ndarray, ln: list[str], i: str):
    """Appends the set-up lines; returns (call, outputs expression, shown expression)."""
    d, mode, sat = parse(cfg.op)
    one_source_lines(cfg, L, vals, d, ln, i)
    s = "" if sat is None else f", pto.SaturationMode.{sat.name}"
    return f"pto.TCVT(dst, src, pto.RoundMode.{mode.name}{s})", "dst.raw()", "dst.numpy()"
