"""Metrics over thousands of shapes at once: NumPy over shapes, no per-shape Python loop.

The per-shape values equal :func:`ptogpu.simt.launch_metrics` of ``SimtCase(mode, vr, vc,
dtype)`` (tested): identity indices (Row: index r for row r; Elem: r*VC + c), table,
destination and index tiles 32-byte aligned, RowMajor tiles padded to 32 bytes.

Row mode is closed form per shape (every warp-round covers one 32-column chunk of one row; the
sector count of a chunk depends only on its row's start address mod 32: summed over rows, a
count and two floor sums).
Elem mode is closed form too (the UB blocks through two floor sums, ``_elem_blocks``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..semantics import a5_launch as g
from ..dtypes import as_dtype

COLUMNS = ("warps", "threads", "elements", "rounds", "rounds_min", "warp_rounds",
           "lane_utilisation", "occupancy", "idle_threads", "elems_min", "elems_max",
           "gm_sectors", "sectors_per_element", "ub_blocks", "ub_blocks_per_element")


@dataclass(frozen=True, eq=False)
class SweepResult:
    """One row per (dtype, vr, vc); ``data[name]`` is a column (NumPy array)."""

    mode: str
    dtypes: tuple[str, ...]
    vr: np.ndarray
    vc: np.ndarray
    dtype: np.ndarray
    data: dict
    seconds: float = 0.0
    start: int = 0                   # first row's place in the full grid (a shard of a sweep)

    @classmethod
    def merge(cls, parts: list["SweepResult"]) -> "SweepResult":
        """One sweep from its shards: the tables concatenated in grid order (the shards must
        tile one range of the grid and share mode and dtypes)."""
        from ..execution.shards import check_tiling
        parts = sorted(parts, key=lambda p: p.start)
        start, _ = check_tiling([(p.start, len(p)) for p in parts], "sweep shards")
        if len({(p.mode, p.dtypes) for p in parts}) != 1:
            raise ValueError("these sweeps are not shards of one sweep (mode or dtypes differ)")
        cat = lambda name: np.concatenate([getattr(p, name) for p in parts])
        return cls(parts[0].mode, parts[0].dtypes, cat("vr"), cat("vc"), cat("dtype"),
                   {c: np.concatenate([p.data[c] for p in parts]) for c in parts[0].data},
                   sum(p.seconds for p in parts), start)

    def __len__(self) -> int:
        return int(self.vr.size)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.data[name]

    def grid(self, name: str, dtype: str | None = None):
        """(row values, col values, 2-D array of column ``name``) for one dtype."""
        dt = dtype or self.dtypes[0]
        sel = self.dtype == dt
        rs, cs = np.unique(self.vr[sel]), np.unique(self.vc[sel])
        out = np.full((rs.size, cs.size), np.nan)
        out[np.searchsorted(rs, self.vr[sel]), np.searchsorted(cs, self.vc[sel])] = self.data[name][sel]
        return rs, cs, out

    def order(self, by: str = "lane_utilisation") -> np.ndarray:
        return np.lexsort((self.vc, self.vr, self.data[by]))

    def table(self, rows: np.ndarray | None = None, limit: int = 20) -> str:
        cols = ("dtype", "vr", "vc", "warps", "rounds", "lane_utilisation", "occupancy",
                "idle_threads", "elems_max", "sectors_per_element", "ub_blocks_per_element")
        heads = ("dtype", "rows", "cols", "warps", "rounds", "lane util", "occupancy", "idle thr",
                 "elem/thr", "sectors/el", "UB blk/el")
        idx = np.arange(len(self)) if rows is None else np.asarray(rows)
        idx = idx[:limit]
        lines = ["  ".join(f"{h:>10}" for h in heads)]
        for i in idx:
            vals = []
            for c in cols:
                v = {"dtype": self.dtype, "vr": self.vr, "vc": self.vc}.get(c, self.data.get(c))[i]
                vals.append(f"{v:>10.3f}" if isinstance(v, (float, np.floating)) else f"{v!s:>10}")
            lines.append("  ".join(vals))
        return "\n".join(lines)

    def csv(self) -> str:
        head = "mode,dtype,rows,cols," + ",".join(COLUMNS)
        body = [f"{self.mode},{self.dtype[i]},{self.vr[i]},{self.vc[i]}," +
                ",".join(f"{self.data[c][i]:.6g}" if self.data[c].dtype.kind == "f" else str(self.data[c][i])
                         for c in COLUMNS) for i in range(len(self))]
        return "\n".join([head, *body]) + "\n"


def _ceil(a, b):
    return -(-a // b)


def _cells(x, vc, c0):
    """#{i in [0, x): (i mod vc) mod c0 == 0}: starts of 32-byte blocks along RowMajor rows."""
    return (x // vc) * _ceil(vc, c0) + _ceil(x % vc, c0)


def _row(vr, vc, T):
    rw, wpr = g.row_warps(vr), g.warps_per_row(vr, vc)
    warps = rw * wpr
    cs = wpr * g.LANES
    chunks = g.col_chunks(vc)
    n = vr * vc
    rounds = _ceil(vr, rw) * _ceil(chunks, wpr)
    rounds_min = (vr // rw) * (chunks // wpr)
    warp_rounds = vr * chunks
    idle = rw * (g.LANES * wpr - np.minimum(vc, g.LANES * wpr))   # a row's lanes past VC
    emax = _ceil(vr, rw) * _ceil(vc, cs)
    emin = (vr // rw) * np.maximum(0, _ceil(vc - 31 - g.LANES * (wpr - 1), cs))
    # GM sectors: row r starts at byte a = r*VC*T mod 32 of a sector; each full 32-lane chunk
    # of T*32 bytes touches T sectors, one more when a > 0; the tail of lt bytes touches
    # 1 + floor((a + lt - 1) / 32). Summed over rows: a count of the rows with a == 0 and a
    # difference of floor sums (a = r*w - 32*floor(r*w/32)), closed form per shape.
    w = vc * T
    nf, lt = vc // g.LANES, (vc % g.LANES) * T
    unaligned = vr - _ceil(vr, 32 // np.gcd(w, 32))
    tail = vr + _floor_sum(vr, 32, w, np.maximum(lt - 1, 0)) - _floor_sum(vr, 32, w, 0)
    gm = nf * (T * vr + unaligned) + np.where(lt > 0, tail, 0)
    ub = vr * (nf * T + _ceil(lt, 32)) + warp_rounds
    return warps, n, rounds, rounds_min, warp_rounds, idle, emin, emax, gm, ub


def _floor_sum(n, m, a, b):
    """Σ_{i<n} floor((a*i + b) / m), elementwise (n >= 0; m >= 1 where n > 0; a, b >= 0): the
    Euclid-like reduction (each step swaps the roles of a and m), a few dozen array steps
    for any n. Written here: NumPy has no floor sum."""
    n, m, a, b = (np.array(x, np.int64) for x in np.broadcast_arrays(n, m, a, b))
    ans = np.zeros(n.shape, np.int64)
    act = n > 0
    while act.any():
        ans += np.where(act, (n - 1) * n // 2 * (a // m) + n * (b // m), 0)
        a, b = a % m, b % m
        y = a * n + b
        act &= y >= m
        n, b, m, a = np.where(act, y // m, n), np.where(act, y % m, b), np.where(act, a, m), np.where(act, m, a)
    return ans


def _elem_blocks(n, vc, c0):
    """Σ over warp-rounds m (positions [32m, min(32m+32, n))) of the distinct 32-byte blocks of
    a RowMajor tile they touch (``c0`` elements per block; rows padded to whole blocks).

    A warp-round touches ``1 + S(b) - S(a+1)`` blocks (S counts block starts). Summed over the
    ``M`` warp-rounds this telescopes to ``M + S(n) - K``, with K the warp-rounds that begin on
    a block start: 32m ≡ 0 (mod c0) always, so those are the m whose row ``q = 32m // VC``
    satisfies ``q*VC ≡ 0 (mod c0)``, i.e. q a multiple of ``d = c0 / gcd(VC, c0)``, i.e.
    ``32m mod d*VC < VC``. With ``[x mod L < v] = floor(x/L) - floor((x-v)/L)``, K is a
    difference of two floor sums over m < M: closed form per shape."""
    M = _ceil(n, g.LANES)
    v = np.maximum(vc, 1)
    total = M + _cells(n, v, c0)
    L = (c0 // np.gcd(v, c0)) * v
    K = _floor_sum(M, L, g.LANES, 0) - (_floor_sum(M, L, g.LANES, L - v) - M)
    return np.where(M > 0, total - K, 0)


def _elem(vr, vc, T):
    n = vr * vc
    warps = g.elem_launch_warps(n)
    threads = warps * g.LANES
    rounds = _ceil(n, threads)
    rounds_min = np.where(n > 0, _ceil(n - g.LANES * (warps - 1), threads), 0)
    warp_rounds = _ceil(n, g.LANES)
    idle = np.maximum(0, threads - n)
    emax, emin = rounds, n // threads
    gm = (n // g.LANES) * T + _ceil((n % g.LANES) * T, 32)
    c0 = 32 // T                                          # dst elements per 32-byte block
    ub = _elem_blocks(n, vc, c0) + _elem_blocks(n, vc, np.full_like(vc, 8))
    return warps, n, rounds, rounds_min, warp_rounds, idle, emin, emax, gm, ub


def sweep(mode: str, rows: Iterable[int], cols: Iterable[int],
          dtypes: Iterable[str] = ("float32",), *, start: int = 0, n: int | None = None) -> SweepResult:
    """Metrics of ``mode`` ("row" | "elem") for every (dtype, vr, vc) in the product of
    ``dtypes`` x ``rows`` x ``cols`` (iterables of valid dims >= 1), in that order; ``start``
    and ``n`` compute one slice of it (a shard: :meth:`SweepResult.merge` joins them)."""
    import time
    t0 = time.perf_counter()
    if mode not in ("row", "elem"):
        raise ValueError("sweeps cover mode 'row' or 'elem' (use launch_metrics for l1_elem)")
    rows = np.asarray(list(rows), np.int64)
    cols = np.asarray(list(cols), np.int64)
    if (rows < 1).any() or (cols < 1).any():
        raise ValueError("valid dims must be >= 1")
    dts = tuple(str(as_dtype(d)) for d in dtypes)
    sizes = np.array([as_dtype(d).itemsize for d in dts], np.int64)
    total = len(dts) * rows.size * cols.size
    if start < 0 or start > total or (n is not None and (n < 0 or start + n > total)):
        raise ValueError(f"sweep slice {start}+{n}: the grid has {total} shapes")
    stop = total if n is None else start + n
    k = np.arange(start, stop, dtype=np.int64)          # flat grid positions, dtype-major
    D, R, C = k // (rows.size * cols.size), rows[(k // cols.size) % rows.size], cols[k % cols.size]
    T = sizes[D]
    warps, n, rounds, rmin, wr, idle, emin, emax, gm, ub = (_row if mode == "row" else _elem)(R, C, T)
    threads = warps * g.LANES
    nf = n.astype(np.float64)
    data = {
        "warps": warps, "threads": threads, "elements": n, "rounds": rounds, "rounds_min": rmin,
        "warp_rounds": wr, "lane_utilisation": nf / (g.LANES * wr), "occupancy": nf / (threads * rounds),
        "idle_threads": idle, "elems_min": emin, "elems_max": emax, "gm_sectors": gm,
        "sectors_per_element": gm / nf, "ub_blocks": ub, "ub_blocks_per_element": ub / nf,
    }
    return SweepResult(mode, dts, R, C, np.asarray(dts, dtype=object)[D], data,
                       time.perf_counter() - t0, start)


SWEEP_SCHEMA = "ptogpu.simt.sweep/1"


@dataclass(frozen=True)
class SweepSpec:
    """A sweep as data (``ptogpu.simt.sweep/1``): mode, the row and column values, dtypes."""
    mode: str
    rows: tuple
    cols: tuple
    dtypes: tuple = ("float32",)

    @property
    def size(self) -> int:
        return len(self.dtypes) * len(self.rows) * len(self.cols)

    def to_json(self) -> dict:
        return {"schema": SWEEP_SCHEMA, "mode": self.mode, "rows": list(self.rows),
                "cols": list(self.cols), "dtypes": list(self.dtypes)}

    @classmethod
    def from_json(cls, d: dict) -> "SweepSpec":
        if d.get("schema") != SWEEP_SCHEMA:
            raise ValueError(f"not a sweep document ({SWEEP_SCHEMA}): schema {d.get('schema')!r}")
        return cls(d["mode"], tuple(d["rows"]), tuple(d["cols"]), tuple(d["dtypes"]))

    def run(self, shard=None) -> SweepResult:
        """The whole sweep, or one shard of it (``"i/k"`` or a Shard)."""
        from ..execution.shards import Shard
        s, m = 0, None
        if shard is not None:
            s, m = Shard.of(shard).range(0, self.size)
        return sweep(self.mode, self.rows, self.cols, self.dtypes, start=s, n=m)


def run_sweep_shard(spec: dict, i: int, k: int) -> SweepResult:
    """A worker's task: shard ``i`` of ``k`` of a sweep (a SweepSpec as JSON)."""
    from ..execution.shards import Shard
    return SweepSpec.from_json(spec).run(Shard(i, k))


def run_sharded(spec: SweepSpec, k: int, executor=None, progress=None) -> SweepResult:
    """The sweep as ``k`` shards on ``executor`` (any ``concurrent.futures.Executor``; None:
    here), concatenated: the table one run gives."""
    from ..execution import executors
    done = 0

    def finished(i, part):
        nonlocal done
        done += len(part)
        if progress:
            progress(done, spec.size)
    return SweepResult.merge(executors.gather(run_sweep_shard, [(spec.to_json(), i, k) for i in range(k)],
                                              executor, finished))
