"""PNG pictures of launches and sweeps (matplotlib: ``pip install 'ptogpu[plot]'``)."""
from __future__ import annotations

import numpy as np

from .. import dtypes

from ..semantics.launch_map import LaunchMap
from .metrics import launch_metrics
from .sweep import SweepResult


class NeedsMatplotlib(ImportError):
    """PNG output was asked for where matplotlib is not installed."""


def require_matplotlib() -> None:
    """Raise :class:`NeedsMatplotlib` (one clear line) unless matplotlib can be imported."""
    load_pyplot()


def load_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise NeedsMatplotlib("PNG output needs matplotlib: pip install 'ptogpu[plot]' "
                              "(text output works without it)") from None
    return plt


def warp_colours():
    from matplotlib.colors import ListedColormap
    import matplotlib
    base = list(matplotlib.colormaps["tab20"].colors) + list(matplotlib.colormaps["tab20b"].colors)
    return ListedColormap(base[:32], name="warps")


def draw_cells(ax, grid, cmap, vmin, vmax, text, fontsize):
    masked = np.ma.masked_less(grid, 0)
    cmap = cmap.with_extremes(bad="#eeeeee")
    im = ax.imshow(masked, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest", aspect="equal")
    rows, cols = grid.shape
    if text is not None and fontsize > 0:
        for r in range(rows):
            for c in range(cols):
                if grid[r, c] >= 0:
                    ax.text(c, r, str(text[r, c]), ha="center", va="center", fontsize=fontsize,
                            color="black")
    ax.set_xlabel("column")
    ax.set_ylabel("row")
    ax.set_xticks(_ticks(cols, 16))        # at most 16 labels: 2-digit labels stay apart
    ax.set_yticks(_ticks(rows, 16))
    ax.tick_params(labelsize=7)
    return im


def _ticks(n: int, most: int) -> range:
    """Tick positions 0, k, 2k, ... with k a 1-2-4-8 step that leaves at most ``most`` labels."""
    k = 1
    while -(-n // k) > most:
        k *= 2
    return range(0, n, k)


def show_png(m: LaunchMap, path: str, title: str | None = None) -> str:
    """Three panels: the tile coloured by warp with each cell's lane; the tile coloured by
    lock-step round; active lanes of every (warp, round) with its GM sectors."""
    plt = load_pyplot()
    met = launch_metrics(m)
    warp, lane, rnd = m.grid("warp"), m.grid("lane"), m.grid("round")
    rows, cols = warp.shape
    cell_in = max(0.06, min(0.3, 17.0 / max(cols, 1), 6.0 / max(rows, 1)))
    fs = 6.5 if cell_in >= 0.26 else (5 if cell_in >= 0.18 else 0)
    tile_w, tile_h = max(5.0, cols * cell_in), max(1.4, rows * cell_in)
    fig_w = tile_w + 2.2
    nr0 = int(rnd.max()) + 1 if rnd.size else 1
    # one round: the round panel would be one flat colour, so it is left out (the title says so)
    heights = [tile_h] + ([tile_h] if nr0 > 1 else []) + [max(1.3, min(4.0, 0.45 * nr0 + 0.7))]
    fig, axes = plt.subplots(len(heights), 1, figsize=(fig_w, sum(heights) + 2.4),
                             gridspec_kw={"height_ratios": heights})
    axes = list(axes) if nr0 > 1 else [axes[0], None, axes[1]]
    c = m.case
    fig.suptitle(title or f"A5 MGATHER {m.mode} SIMT launch: {c.vr}x{c.vc} {c.dtype}, "
                 f"dim3{{32, {m.warps}}} = {m.threads} threads", fontsize=11, fontweight="bold")
    from matplotlib.colors import ListedColormap
    wc = ListedColormap(warp_colours().colors[: max(m.warps, 1)])
    im0 = draw_cells(axes[0], warp, wc, -0.5, m.warps - 0.5, lane if fs else None, fs)
    axes[0].set_title("warp (colour) and lane (number) that writes each element"
                      + ("" if nr0 > 1 else "; every thread stores once (one round)"), fontsize=9)
    every = max(1, -(-m.warps // max(4, int(tile_h * 10))))
    cb = fig.colorbar(im0, ax=axes[0], fraction=0.04, pad=0.01, ticks=range(0, m.warps, every))
    cb.ax.tick_params(labelsize=6)
    cb.set_label("warp", fontsize=8)
    nr = max(int(rnd.max()) + 1, 1)
    if axes[1] is not None:
        rc = plt.get_cmap("Pastel1" if nr <= 9 else "viridis", nr)
        im1 = draw_cells(axes[1], rnd, rc, -0.5, nr - 0.5, rnd if fs and nr <= 9 else None, fs)
        axes[1].set_title("lock-step round (loop step of the warp)", fontsize=9)
        cb = fig.colorbar(im1, ax=axes[1], fraction=0.04, pad=0.01, ticks=range(0, nr, max(1, nr // 8)))
        cb.set_label("round", fontsize=8)
    # warp x round: active lanes, with the GM sectors of that warp-round as text
    act = np.zeros((m.warps, nr))
    np.add.at(act, (m.warp, m.round), 1)
    sec = np.zeros((m.warps, nr), np.int64)
    gid = m.warp * nr + m.round
    ok = m.src_addr >= 0
    keys = np.unique(gid[ok] * (1 << 34) + m.src_addr[ok] // 32)
    np.add.at(sec.reshape(-1), keys >> 34, 1)
    ax = axes[2]
    im2 = ax.imshow(act.T / 32.0, cmap="Blues", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    if m.warps * nr <= 32 * 16:
        for w in range(m.warps):
            for k in range(nr):
                if act[w, k]:
                    ax.text(w, k, f"{int(act[w, k])}\n{sec[w, k]}s", ha="center", va="center",
                            fontsize=6 if m.warps <= 24 else 5, color="black" if act[w, k] < 24 else "white")
    ax.set_xlabel("warp")
    ax.set_ylabel("round")
    ax.set_xticks(_ticks(m.warps, 16))
    ax.set_yticks(_ticks(nr, 8))
    ax.set_title("active lanes per warp-round (number) and GM sectors read (s)", fontsize=9)
    cb = fig.colorbar(im2, ax=ax, fraction=0.04, pad=0.01)
    cb.set_label("active / 32", fontsize=8)
    fig.text(0.01, 0.005,
             f"lane utilisation {met.lane_utilisation:.2f}   occupancy {met.occupancy:.2f}   "
             f"idle threads {met.idle_threads}/{met.threads}   elements/thread "
             f"{met.elems_per_thread[0]}..{met.elems_per_thread[1]}   GM sectors/element "
             f"{met.sectors_per_element:.3f}   UB blocks {met.ub_blocks}", fontsize=9)
    fig.tight_layout(rect=(0, 0.02, 1, 0.97))
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def sweep_png(s: SweepResult, path: str) -> str:
    """Heatmaps over (rows, cols): lane utilisation and GM sectors per element, one row of
    panels per dtype."""
    plt = load_pyplot()
    n = len(s.dtypes)
    fig, axes = plt.subplots(n, 2, figsize=(11, 4.2 * n + 0.6), squeeze=False)
    fig.suptitle(f"A5 MGATHER {s.mode} SIMT launches: {len(s)} shapes "
                 f"(identity indices, aligned tiles)", fontsize=11, fontweight="bold")
    for i, dt in enumerate(s.dtypes):
        for j, (name, label, cmap) in enumerate((
                ("lane_utilisation", "lane utilisation (elements / 32 x warp-rounds)", "viridis"),
                ("sectors_per_element", "GM 32-byte sectors per element (log)", "magma_r"))):
            rs, cs, grid = s.grid(name, dt)
            ax = axes[i, j]
            norm, ticks, extend = None, None, "neither"
            if name == "sectors_per_element":
                # from the ideal (one sector per 32 bytes of elements) up: most shapes sit near
                # it, so the scale stops at the 99th percentile and the rest shows as "more"
                from matplotlib.colors import LogNorm
                ideal = dtypes.as_dtype(dt).itemsize / 32
                top = max(float(np.nanpercentile(grid, 99)), ideal * 1.05)
                norm = LogNorm(vmin=ideal, vmax=top)
                ticks = np.geomspace(ideal, top, 5)
                extend = "max" if np.nanmax(grid) > top else "neither"
                label = f"GM 32-byte sectors per element (ideal {ideal:g}: {32 // dtypes.as_dtype(dt).itemsize} per sector)"
            im = ax.imshow(grid, origin="lower", aspect="auto", cmap=cmap, interpolation="nearest", norm=norm,
                           extent=(cs[0] - 0.5, cs[-1] + 0.5, rs[0] - 0.5, rs[-1] + 0.5))
            ax.set_title(f"{dt}: {label}", fontsize=9)
            ax.set_xlabel("valid cols (VC)")
            ax.set_ylabel("valid rows (VR)")
            cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.02, ticks=ticks, extend=extend)
            if ticks is not None:
                cb.ax.set_yticklabels([f"{t:.3g}" + (" ideal" if k == 0 else "") for k, t in enumerate(ticks)])
                cb.ax.minorticks_off()
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
