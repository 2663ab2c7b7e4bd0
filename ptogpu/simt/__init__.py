"""SIMT thread mapping of the Ascend 950 (A5) MGATHER launches ``dim3{32, warps}``.

* :mod:`~ptogpu.semantics.a5_launch` — the kernels' launch formulas (one Python copy, kept with the target rules);
* :class:`SimtCase`, :func:`case_from_mgather` — what a launch is about;
* :func:`launch_map` — per element (warp, lane, round) and addresses; per thread its elements;
* :func:`trace` — the same, recorded by running the thread loops (numpy, native, cupy);
* :func:`launch_metrics` — lanes, rounds, sectors and blocks touched per warp-round;
* :func:`sweep` — metrics over thousands of shapes at once;
* :mod:`~ptogpu.semantics.hazards` — schedule-dependent results when tiles alias in UB;
* :mod:`~ptogpu.simt.simd` — (instruction, register lane) maps of the A5 register paths.
"""
from __future__ import annotations

from ..semantics.simt_case import MODES, SimtCase, case_from_mgather
from ..semantics.launch_map import LaunchMap, launch_map
from .metrics import LaunchMetrics, launch_metrics
from .simd import SimdMap, tgatherb_map, tinterleave_map
from .sweep import SweepResult, sweep
from .trace import Trace
from .kernel_trace import trace

__all__ = ["MODES", "SimtCase", "case_from_mgather", "LaunchMap", "launch_map", "Trace", "trace",
           "LaunchMetrics", "launch_metrics", "SweepResult", "sweep",
           "SimdMap", "tgatherb_map", "tinterleave_map"]
