"""TINTERLEAVE / TDEINTERLEAVE on the kernel backends (cuda_src/interleave.cu). Returns False
(NumPy runs) on the numpy backend, for operands of another core, and whenever the kernel's
check pass reports a fault or a read inside the bytes the call writes."""
from __future__ import annotations

import numpy as np

from ...backend import kernel_ok
from ...backend.kernels import ParamBlock, all_clean, enum, launch_on, use_kernels
from ..tgatherb.kernels import on_ub


def odd_word(core) -> str:
    """The target's TINTERLEAVE odd-width rule as the kernel's word (it counts the columns
    written itself, from VC: independent of sem.interleave_count, which it is checked against)."""
    if core.target.interleave.odd_vc == "skip_last":
        return "ODD_SKIP_LAST"
    return "ODD_VREG_HOLE" if core.quirks.get("a5_interleave_odd_hole", True) else "ODD_ALL"


def interleave_params(mode: str, dsts, srcs, VR: int, n: int, h: int, vc: int = 0,
                      odd: str = "ODD_ALL") -> np.ndarray:
    s = list(srcs) + [srcs[0]] * (2 - len(srcs))
    return ParamBlock("interleave.cu", "IL_",
                      MODE=enum("interleave.cu", {"interleave": "MODE_INTERLEAVE", "deint2": "MODE_DEINT2",
                                                  "deint1": "MODE_DEINT1"}[mode]),
                      VR=VR, N=n, H=h, T=dsts[0].Element.itemsize, D0=dsts[0].addr, D0C=dsts[0].Cols,
                      D1=dsts[1].addr, D1C=dsts[1].Cols, S0=s[0].addr, S0C=s[0].Cols, S1=s[1].addr,
                      S1C=s[1].Cols, VC=vc, ODD=enum("interleave.cu", odd)).words


def run_interleave(core, mode: str, dsts, srcs, VR: int, n: int = 0, h: int = 0, vc: int = 0) -> bool:
    """``mode``: "interleave" (vc = dst0's valid cols), "deint2" (h = VC/2) or "deint1"
    (n = dst VC); ``dsts`` = [dst0, dst1], ``srcs`` = [src0, src1] or [src]."""
    if not kernel_ok(core, *dsts, *srcs) or not use_kernels(core) or not on_ub(core, *dsts, *srcs):
        return False
    p = interleave_params(mode, dsts, srcs, VR, n, h, vc, odd_word(core))
    if not all_clean(launch_on(core, "interleave", p, passes=1, writes=())):
        return False
    launch_on(core, "interleave", p, passes=2, writes=("ub",))
    return True
