"""Lowering: a checked instruction call turned into the launch plan of its ``cuda_src/`` kernel
(parameter words, block shape, arenas) and run on the core's kernel backend.

These planners read the target rules of ``ptogpu.semantics`` (capacities, launch geometry,
aliasing) and hand plain arrays to ``ptogpu.backend``, which only compiles and launches: so
they sit above the semantics and below the instruction API that calls them.
"""
from __future__ import annotations

from ..backend import kernel_ok as _kernel_ok


def run_mgather_ub(core, mode, oob, dst, table, idx) -> bool:
    """Run a checked MGATHER as a kernel when ``core.backend`` has one; False: run NumPy."""
    if not _kernel_ok(core, dst, idx):
        return False
    from .mgather_kernels import run_mgather_ub as run
    return run(core, mode, oob, dst, table, idx)

def run_mgather_l1(core, oob, dst, table, idx, scratch=None, simt=False) -> bool:
    """Run a checked GM->L1 MGATHER (Row: scratch None) as a kernel; False: run NumPy."""
    if not _kernel_ok(core, dst):
        return False
    from .mgather_l1_kernels import run
    return run(core, oob, dst, table, idx, scratch, simt)
