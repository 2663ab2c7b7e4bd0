"""TMOV's reproducer lines (what ``config.TmovInstr.program`` does, spelled with the public API)."""
from __future__ import annotations

import numpy as np

from ...fuzz.repro import one_source_lines


def lines(cfg, L: dict, vals: np.ndarray, ln: list[str], i: str):
    """Appends the set-up lines; returns (call, outputs expression, shown expression)."""
    one_source_lines(cfg, L, vals, cfg.op or cfg.dtype, ln, i, mat=cfg.space == "l1")
    out = f"core.read('l1', {L['dst_addr']:#x}, {L['out_bytes']})" if cfg.space == "l1" else "dst.raw()"
    return "pto.TMOV(dst, src)", out, out
