"""Launch metrics: how well ``dim3{32, warps}`` covers a tile, and what its memory traffic costs.

Counted per warp-round (one warp, one lock-step loop step): the active lanes, and the distinct
32-byte GM sectors and UB blocks its accesses touch (a coalescing measure: 32 lanes reading 32
consecutive fp32 elements touch 4 sectors; scattered indices touch up to 32). Row mode's
traffic follows from the shape; Elem mode's from the actual index values in the case.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..semantics import a5_launch as g
from ..semantics.launch_map import LaunchMap, launch_map
from ..semantics.simt_case import SimtCase


@dataclass(frozen=True)
class LaunchMetrics:
    """Metrics of one launch (see :func:`launch_metrics`)."""

    mode: str
    vr: int
    vc: int
    dtype: str
    warps: int
    threads: int
    elements: int
    rounds: int
    rounds_per_thread: tuple[int, int]
    warp_rounds: int
    active_per_round: tuple[float, ...]
    lane_utilisation: float
    occupancy: float
    idle_threads: int
    idle_lane_slots: int
    elems_per_thread: tuple[int, int]
    gm_sectors: int
    gm_sectors_max: int
    ub_blocks: int
    ub_blocks_max: int
    gm_bytes: int

    @property
    def sectors_per_element(self) -> float:
        return self.gm_sectors / self.elements if self.elements else 0.0

    @property
    def gm_efficiency(self) -> float:
        """Useful GM bytes / bytes of the sectors touched (1.0 = perfectly coalesced)."""
        return self.gm_bytes / (32 * self.gm_sectors) if self.gm_sectors else 1.0

    def rows(self) -> list[tuple[str, str]]:
        apr = np.asarray(self.active_per_round)
        per_round = (", ".join(f"{x:.2f}" for x in apr) if apr.size <= 8 else
                     f"min {apr.min():.2f} / mean {apr.mean():.2f} / max {apr.max():.2f} over {apr.size}")
        return [
            ("launch", f"dim3{{32, {self.warps}}} = {self.threads} threads ({self.mode}, "
                       f"{self.vr}x{self.vc} {self.dtype})"),
            ("elements", str(self.elements)),
            ("rounds per thread", f"{self.rounds_per_thread[0]}..{self.rounds_per_thread[1]}"),
            ("warp-rounds issued", str(self.warp_rounds)),
            ("active lanes per round", per_round),
            ("lane utilisation", f"{self.lane_utilisation:.3f} (elements / 32 x warp-rounds)"),
            ("occupancy", f"{self.occupancy:.3f} (elements / threads x rounds)"),
            ("idle threads", f"{self.idle_threads} of {self.threads}"),
            ("idle lane slots", str(self.idle_lane_slots)),
            ("elements per thread", f"{self.elems_per_thread[0]}..{self.elems_per_thread[1]}"),
            ("GM sectors (32 B)", f"{self.gm_sectors} total, {self.sectors_per_element:.3f}/element, "
                                  f"max {self.gm_sectors_max}/warp-round, efficiency "
                                  f"{self.gm_efficiency:.2f}"),
            ("UB blocks (32 B)", f"{self.ub_blocks} total, max {self.ub_blocks_max}/warp-round"),
        ]

    def table(self) -> str:
        w = max(len(k) for k, _ in self.rows())
        return "\n".join(f"{k:<{w}}  {v}" for k, v in self.rows())


def _distinct_per_group(gid: np.ndarray, addr: np.ndarray, size: int, ngroups: int) -> np.ndarray:
    """Distinct 32-byte units touched by accesses ``[addr, addr+size)`` in each group."""
    keep = addr >= 0
    gid, addr = gid[keep], addr[keep]
    units = np.concatenate([addr // 32, (addr + size - 1) // 32])
    keys = np.unique(np.concatenate([gid, gid]) * (1 << 34) + units)
    return np.bincount(keys >> 34, minlength=ngroups)


def accesses(m: LaunchMap):
    """(space, byte addresses, size) of every access of the launch, one entry per element."""
    c = m.case
    T = c.esize
    if m.mode == "l1_elem":
        return [("gm", m.src_addr, T), ("gm", m.dst_addr, T), ("gm", m.idx_addr, c.idx_size)]
    return [("gm", m.src_addr, T), ("ub", m.dst_addr, T), ("ub", m.idx_addr, c.idx_size)]


def launch_metrics(m: LaunchMap | SimtCase) -> LaunchMetrics:
    """Metrics of a launch map (or of the map of a case)."""
    if isinstance(m, SimtCase):
        m = launch_map(m)
    c = m.case
    threads = m.threads
    n = m.size
    nr = int(m.round.max()) + 1 if n else 0
    gid = m.warp * max(nr, 1) + m.round
    ngroups = m.warps * max(nr, 1)
    per_group = np.bincount(gid, minlength=ngroups)
    warp_rounds = int(np.count_nonzero(per_group))
    warp_steps = np.zeros(m.warps, np.int64)
    if n:
        np.maximum.at(warp_steps, m.warp, m.round + 1)
    per_thread = np.bincount(m.thread, minlength=threads)
    active = np.bincount(m.round, minlength=nr) / threads if n else np.zeros(0)
    gm = np.zeros(ngroups, np.int64)
    ub = np.zeros(ngroups, np.int64)
    for space, addr, size in accesses(m):
        d = _distinct_per_group(gid, addr, size, ngroups)
        if space == "gm":
            gm += d
        else:
            ub += d
    gm_bytes = int(np.count_nonzero(m.src_addr >= 0)) * c.esize
    if m.mode == "l1_elem":
        gm_bytes += n * c.esize + int(np.count_nonzero(m.idx_addr >= 0)) * c.idx_size
    return LaunchMetrics(
        mode=m.mode, vr=c.vr, vc=c.vc, dtype=c.dtype, warps=m.warps, threads=threads, elements=n,
        rounds=nr, rounds_per_thread=(int(warp_steps.min()) if n else 0, int(warp_steps.max()) if n else 0),
        warp_rounds=warp_rounds, active_per_round=tuple(float(x) for x in active),
        lane_utilisation=n / (g.LANES * warp_rounds) if warp_rounds else 0.0,
        occupancy=n / (threads * nr) if nr else 0.0,
        idle_threads=int(np.count_nonzero(per_thread == 0)),
        idle_lane_slots=g.LANES * warp_rounds - n,
        elems_per_thread=(int(per_thread.min()), int(per_thread.max())),
        gm_sectors=int(gm.sum()), gm_sectors_max=int(gm.max()) if ngroups else 0,
        ub_blocks=int(ub.sum()), ub_blocks_max=int(ub.max()) if ngroups else 0, gm_bytes=gm_bytes)
