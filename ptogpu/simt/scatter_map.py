"""A5 MSCATTER launches as maps: which lane writes which slot, and where collisions race.

Built from the semantics' own write list (``isa/mscatter/semantics.writes``) and outcome sets
(``isa/mscatter/semantics_outcomes``), so the map is what the emulation executes:

* ``Conflict::Default`` (and atomics): the source-centric launch ``dim3{32, W}``; each source
  element's thread (warp, lane) and round; per table element its writers, the ones that can
  survive (a later store of the same thread cannot be overtaken), and whether it races;
* ``Conflict::Last``: the slot-centric launch; each slot's owning thread (warp, lane; slots
  tid, tid+1024, ...), the source element it takes, and the length of its reverse scan (index
  reads until the winner, or all of them: the Θ(slots x N) cost).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import dtypes
from ..enums import Coalesce, ScatterAtomicOp, ScatterConflict, ScatterOOB


@dataclass
class ScatterMap:
    mode: str
    conflict: str
    rows: int
    cols: int
    slots: int
    dtype: str
    warps: int
    src_warp: np.ndarray      # (rows, cols) warp of the thread storing each source element (-1: none)
    src_lane: np.ndarray
    src_round: np.ndarray
    src_slot: np.ndarray      # (rows, cols) the table element written (-1: skipped / outside)
    slot_writers: np.ndarray  # (elements,) stores into each table element
    slot_choices: np.ndarray  # (elements,) stores that can survive there (each thread's last)
    slot_owner: np.ndarray    # Last: tid owning each slot; Default: tid of the emulated winner
    slot_scan: np.ndarray     # Last: index reads of the owner's reverse scan (0 for Default)
    winner: np.ndarray        # (elements,) linear source position of the emulated winner (-1: none)

    @property
    def racy(self) -> np.ndarray:
        return self.slot_choices > 1

    def table(self, limit: int = 40) -> str:
        """Text: one line per written table element (the first ``limit``)."""
        out = [f"A5 MSCATTER<{self.mode.capitalize()}, .., {self.conflict.capitalize()}> "
               f"{self.rows}x{self.cols} {self.dtype} into {self.slots} slots: dim3{{32, {self.warps}}}, "
               f"{int((self.slot_writers > 0).sum())} elements written, {int(self.racy.sum())} racing"]
        out.append("element  writers  can-survive  winner(r,c)  owner(warp.lane)" +
                   ("  scan" if self.conflict == "last" else ""))
        shown = 0
        for e in np.flatnonzero(self.slot_writers > 0):
            if shown == limit:
                out.append(f"... {int((self.slot_writers > 0).sum()) - limit} more")
                break
            w = int(self.winner[e])
            r, c = divmod(w, self.cols) if w >= 0 else (-1, -1)
            own = int(self.slot_owner[e])
            line = (f"{e:7d}  {int(self.slot_writers[e]):7d}  {int(self.slot_choices[e]):11d}  "
                    f"{f'({r},{c})':>11}  {f'{own // 32}.{own % 32}':>16}")
            if self.conflict == "last":
                line += f"  {int(self.slot_scan[e]):4d}"
            if self.racy[e]:
                line += "  RACE"
            out.append(line)
            shown += 1
        return "\n".join(out)

    def to_json(self) -> dict:
        return {"mode": self.mode, "conflict": self.conflict, "rows": self.rows, "cols": self.cols,
                "slots": self.slots, "dtype": self.dtype, "warps": self.warps,
                "src_warp": self.src_warp.tolist(), "src_lane": self.src_lane.tolist(),
                "src_round": self.src_round.tolist(), "src_slot": self.src_slot.tolist(),
                "slot_writers": self.slot_writers.tolist(), "slot_choices": self.slot_choices.tolist(),
                "slot_owner": self.slot_owner.tolist(), "slot_scan": self.slot_scan.tolist(),
                "racing": int(self.racy.sum())}


def scatter_map(mode: str, rows: int, cols: int, indices: np.ndarray | None, *, slots: int,
                oob: str = "skip", conflict: str = "default", dtype: str = "float32",
                atomic: str = "none") -> ScatterMap:
    """The map of one A5 MSCATTER (indices: (rows,) for Row, (rows, cols) for Elem; None: the
    identity)."""
    import ptogpu as pto
    from ..semantics import a5_launch
    from ..isa.mscatter import semantics as sem
    n = rows if mode == "row" else rows * cols
    if indices is None:
        indices = np.arange(n)
    raw = np.asarray(indices).reshape(-1)
    if raw.size != n:
        raise ValueError(f"{raw.size} indices for {n} {'rows' if mode == 'row' else 'elements'}")
    dt = dtypes.as_dtype(dtype)
    core = pto.Core("a5", "numpy")
    e = max(32 // dt.itemsize, 1)
    with core:
        nel = max(slots * (cols if mode == "row" else 1), 1)
        ptr = core.gm_alloc(nel, dt)
        shape = (1, 1, 1, slots, cols) if mode == "row" else (1, 1, 1, 1, slots)
        stride = (1, 1, 1, cols, 1) if mode == "row" else (1, 1, 1, max(slots, 1), 1)
        table = pto.GlobalTensor[dt, pto.Shape[shape], pto.Stride[stride]](ptr)
        V = pto.TileType.Vec
        src = pto.Tile[V, dt, rows, -(-cols // e) * e, pto.BLayout.RowMajor, rows, cols]()
        ir, ic = (1, rows) if mode == "row" else (rows, cols)
        idx = pto.Tile[V, pto.uint32, ir, -(-ic // 8) * 8, pto.BLayout.RowMajor, ir, ic]()
        pto.TASSIGN(src, 0)
        pto.TASSIGN(idx, -(-src.nbytes // 64) * 64)
        src.set((np.arange(rows * cols) % 97 + 1).reshape(rows, cols).astype(dt))
        idx.set((raw.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).reshape(ir, ic))
        form = pto.MSCATTER[Coalesce.Row if mode == "row" else Coalesce.Elem,
                            ScatterAtomicOp["None" if atomic == "none" else atomic.capitalize()],
                            ScatterOOB[oob.capitalize()], ScatterConflict[conflict.capitalize()]]
        call = form._prepare(core, table, src, idx)
        W = sem.writes(core, call, table, src, idx)
        if W.thread is None:               # Last: the source-centric threads, for the source panel
            sem.a5_schedule(call.mode, rows, cols, W)
    base, T = ptr.addr, dt.itemsize
    inside = (W.addr >= base) & (W.addr < base + nel * T)
    elem = np.where(inside, (W.addr - base) // T, -1)
    writers = np.bincount(elem[inside], minlength=nel)[:nel]
    # per source element: warp, lane, round of its store (the first column's store for Row)
    sw = np.full((rows, cols), -1, np.int64)
    sl, sr, ss = sw.copy(), sw.copy(), sw.copy()
    if mode == "row":
        warps = a5_launch.row_launch_warps(rows, cols)
    else:
        warps = a5_launch.elem_launch_warps(a5_launch.elem_total(rows, cols))
    sw[W.r, W.c] = W.thread // 32
    sl[W.r, W.c] = W.thread % 32
    sr[W.r, W.c] = W.seq % (1 << 32) if mode == "row" else W.seq
    ss[W.r, W.c] = elem
    ii = np.flatnonzero(inside)
    written = np.flatnonzero(writers > 0)
    lin = W.r * cols + W.c
    winner = np.full(nel, -1, np.int64)
    scan = np.zeros(nel, np.int64)
    if conflict == "default":
        # the store the emulation leaves (last in schedule order), and the stores that can
        # survive: each thread's last (the map counts stores; MSCATTER[...].outcomes gives
        # the distinct values)
        last = ii[sem.last_per(elem[ii], W.order[ii], nel)[written]] if ii.size else ii
        keep = ii[sem.survivors(elem[ii], W.thread[ii], W.seq[ii])]
        choices = np.bincount(elem[keep], minlength=nel)[:nel].astype(np.int64)
        owner = np.full(nel, -1, np.int64)
        owner[written] = W.thread[last]
    else:
        # slot-centric: thread tid owns slots tid, tid+1024, ...; the element of slot s (Elem)
        # or of each column of row s (Row) is written by the slot's owner, from the slot's
        # last writer in row-major order; its reverse scan reads count - position indices
        # (all of them where nobody targets the slot)
        last = ii[sem.last_per(elem[ii], lin[ii], nel)[written]] if ii.size else ii
        choices = (writers > 0).astype(np.int64)
        warps = a5_launch.elem_launch_warps(slots)
        count = rows if mode == "row" else rows * cols
        owner = (np.arange(nel) // (cols if mode == "row" else 1)) % 1024
        scan[:] = count
        scan[written] = count - (W.r[last] if mode == "row" else lin[last])
    winner[written] = lin[last]
    return ScatterMap(mode, conflict, rows, cols, slots, dtypes.name_of(dt), int(warps), sw, sl, sr, ss,
                      writers, choices, owner, scan, winner)


def scatter_png(m: ScatterMap, path: str) -> str:
    """Two panels: the source tile coloured by the warp that stores each element (number: the
    table element it writes, red frame: a racing store); the table, each element coloured by
    how many values can survive there (Last: by the owner's scan length)."""
    from .plot import draw_cells, load_pyplot, warp_colours
    plt = load_pyplot()
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Rectangle
    rows, cols = m.src_warp.shape
    cell = max(0.08, min(0.32, 16.0 / max(cols, 1), 5.0 / max(rows, 1)))
    fs = 6 if cell >= 0.26 else (4.5 if cell >= 0.18 else 0)
    nel = m.slot_writers.size
    tcols = cols if m.mode == "row" else min(max(cols, 8), 64, max(nel, 1))
    trows = -(-nel // tcols)
    h1, h2 = max(1.4, rows * cell), max(1.2, trows * min(cell, 0.3))
    fig, axes = plt.subplots(2, 1, figsize=(max(6.0, cols * cell, tcols * min(cell, 0.3)) + 2.2, h1 + h2 + 2.4),
                             gridspec_kw={"height_ratios": [h1, h2]})
    fig.suptitle(f"A5 MSCATTER {m.mode}, Conflict::{m.conflict.capitalize()}: {rows}x{cols} {m.dtype} into "
                 f"{m.slots} slots, dim3{{32, {m.warps}}}", fontsize=11, fontweight="bold")
    wc = ListedColormap(warp_colours().colors[: max(m.warps, 1)])
    lin = np.arange(rows * cols).reshape(rows, cols)
    tgt = np.maximum(m.src_slot, 0)
    if m.conflict == "last":
        # slot-centric: the winner of each slot is stored by the slot's owner; losers never are
        won = (m.src_slot >= 0) & (m.winner[tgt] == lin)
        g = np.where(won, m.slot_owner[tgt] // 32, -1)
        title = ("source elements: colour = warp of the owner of the slot it wins (grey: a later\n"
                 "element wins that slot, this one is never stored); number = table element")
    else:
        g = m.src_warp
        title = "source elements: colour = warp that stores it; number = table element; red = racing store"
    im = draw_cells(axes[0], g, wc, -0.5, m.warps - 0.5, np.where(m.src_slot >= 0, m.src_slot, 0) if fs else None, fs)
    axes[0].set_title(title, fontsize=9)
    if m.conflict != "last":
        for r in range(rows):
            for c in range(cols):
                e = m.src_slot[r, c]
                if e >= 0 and m.racy[e]:
                    axes[0].add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, ec="red", lw=1.2))
    cb = fig.colorbar(im, ax=axes[0], fraction=0.04, pad=0.01,
                      ticks=range(0, m.warps, max(1, -(-m.warps // 8))))
    cb.set_label("warp", fontsize=8)
    cb.ax.tick_params(labelsize=6)
    grid = np.full(trows * tcols, -1.0)
    if m.conflict == "last":
        grid[:nel] = m.slot_scan
        cmap, lab, vmax = (plt.get_cmap("magma_r"), "index reads of the owner's reverse scan (all of them where "
                           "no element targets the slot)", max(grid.max(), 1) * 1.25)
    else:
        grid[:nel] = m.slot_choices
        cmap, lab, vmax = plt.get_cmap("YlOrRd"), "stores that can survive (0: not written)", max(grid.max(), 2)
    g2 = grid.reshape(trows, tcols)
    im2 = draw_cells(axes[1], g2, cmap, 0, vmax, g2.astype(np.int64) if trows * tcols <= 512 else None,
                 6 if trows * tcols <= 512 else 0)
    axes[1].set_xlabel(f"table element mod {tcols}" if m.mode == "elem" else "table column")
    axes[1].set_ylabel(f"table element // {tcols}" if m.mode == "elem" else "table row (slot)")
    axes[1].set_title("table: " + lab, fontsize=9)
    cb = fig.colorbar(im2, ax=axes[1], fraction=0.04, pad=0.01)
    cb.ax.tick_params(labelsize=6)
    fig.text(0.01, 0.005, f"elements written {int((m.slot_writers > 0).sum())}   racing {int(m.racy.sum())}   "
             f"stores {int(m.slot_writers.sum())}", fontsize=8)
    fig.tight_layout(rect=(0, 0.02, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
