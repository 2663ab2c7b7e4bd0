"""Text pictures of a launch map (no dependencies): the tile as a grid of warp / lane / round."""
from __future__ import annotations

import numpy as np

from ..semantics.launch_map import LaunchMap


def grid_text(m: LaunchMap, what: str = "warp", max_rows: int = 32, max_cols: int = 40) -> str:
    """``what`` for every cell of the tile, one text row per tile row (``.`` = not mapped);
    larger tiles are cut to ``max_rows`` x ``max_cols`` with a note."""
    a = m.grid(what)
    rows, cols = a.shape
    cut = a[:max_rows, :max_cols]
    w = max(2, len(str(int(cut.max()))) if cut.size else 1)
    head = "     " + " ".join(f"{c:>{w}}" for c in range(cut.shape[1]))
    lines = [f"{what} of each element (rows x cols = {rows} x {cols})", head]
    for r in range(cut.shape[0]):
        cells = " ".join(f"{'.':>{w}}" if v < 0 else f"{v:>{w}}" for v in cut[r])
        lines.append(f"{r:>4} {cells}")
    if (rows, cols) != cut.shape:
        lines.append(f"     … cut to {cut.shape[0]} x {cut.shape[1]} of {rows} x {cols}")
    return "\n".join(lines)


def threads_text(m: LaunchMap, limit: int = 8) -> str:
    """The first ``limit`` threads with the (r, c) they handle, in program order."""
    lines = ["thread (warp, lane): elements (r, c) in program order"]
    tids = np.unique(m.thread)[:limit]
    for t in tids:
        w, l = divmod(int(t), 32)
        sl = m.thread_elements(w, l)
        cells = ", ".join(f"({m.r[s]},{m.c[s]})" for s in sl[:8])
        more = f", … ({sl.size} in all)" if sl.size > 8 else ""
        lines.append(f"  ({w:>2},{l:>2}): {cells}{more}")
    return "\n".join(lines)
