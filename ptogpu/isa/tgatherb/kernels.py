"""TGATHERB's launch plan on the kernel backends (cuda_src/tgatherb.cu): each target's engine as
its kernel. Returns False (NumPy runs) on the numpy backend, for operands of another core, and
whenever the kernel's check pass reports a read inside the bytes the instruction writes; a
faulting instance of a core of N is named by the single-instance semantics (``NAMED_FAULTS``).
"""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...backend import kernel_ok
from ...backend.kernels import ALIAS_FLAG_WORD, NONE, ParamBlock, enum, launch_on, use_kernels
from ...errors import warn


def on_ub(core, *tiles) -> bool:
    """Every tile bound to this core's UB (the kernels take UB operands only)."""
    return all(getattr(t, "core", None) is core and t.addr is not None and t.space == "ub"
               for t in tiles)


# ---- TGATHERB -----------------------------------------------------------------------------
_TG_KERNEL = {"cpu": "tgatherb_cpu", "vreg": "tgatherb_a5", "vrepeat": "tgatherb_a2a3"}
_FLOAT_OFFSETS = {"half": "OFFK_HALF", "bfloat16": "OFFK_BF16", "float32": "OFFK_F32",
                  "float8_e4m3": "OFFK_E4M3FN", "float8_e5m2": "OFFK_E5M2"}


def tgatherb_params(core, dst, src, off) -> tuple[str, np.ndarray] | None:
    engine = core.target.tgatherb.engine
    kind = "OFFK_INT"
    if engine == "cpu" and dtypes.storage(off.Element).kind not in "iub":
        name = dtypes.name_of(off.Element)
        if name == "bfloat16" and core.quirks.get("cpu_bfloat16_is_half", False):
            name = "half"                   # the simulator's bfloat16_t is _Float16: half bits
        kind = _FLOAT_OFFSETS.get(name)
        if kind is None:
            return None                     # a float type the kernel does not decode
    size = dst.Element.itemsize
    rowwise = -(-dst.Cols // (256 // size)) > dst.Rows
    p = ParamBlock(
        "tgatherb.cu", "TG_", VR=dst.valid_row, VC=dst.valid_col, T=size, DST=dst.addr, DST_COLS=dst.Cols,
        DST_RSTRIDE=dst.RowStride, SRC=src.addr, SRC_BYTES=src.Rows * src.Cols * src.Element.itemsize,
        OFF=off.addr, OFF_COLS=off.Cols, OFF_RSTRIDE=off.RowStride, OFF_ESIZE=off.Element.itemsize,
        OFF_SIGNED=int(dtypes.storage(off.Element).kind == "i"),
        ROWWISE_B32=int(rowwise and core.quirks.get("a5_tgatherb_rowwise_b32_store", False)),
        UNUSED_FAULT=int(core.quirks.get("a5_tgatherb_unused_block_fault", False)),
        TAIL_STREAM=int(core.quirks.get("a2a3_tgatherb_tail_stream", True)),
        OFF_KIND=enum("tgatherb.cu", kind))
    return _TG_KERNEL[engine], p.words


NAMED_FAULTS = 0.25
"""On a core of N, the share of instances a TGATHERB check launch may find faulting and the
kernel still run the rest: each faulting instance's fault is named by the single-instance
semantics (``core.fault_of``), which costs more per instance than the batch NumPy rule, so
batches where more fault leave the whole step to that rule."""


def run_tgatherb(core, dst, src, off, one=None) -> bool:
    """``one()``: the instruction's NumPy semantics on the instance in focus (names a fault
    the kernel's check pass found)."""
    if not kernel_ok(core, dst, src, off) or not use_kernels(core) or not on_ub(core, dst, src, off):
        return False
    kp = tgatherb_params(core, dst, src, off)
    if kp is None:
        return False
    kernel, p = kp
    recs = launch_on(core, kernel, p, passes=1, writes=())
    clean = recs[:, 0] == np.uint64(NONE)
    if not (recs[clean, ALIAS_FLAG_WORD] != 0).all():
        return False                                    # a read of bytes the step writes
    bad = np.flatnonzero(~clean)
    named = {}
    if bad.size:
        if not (core.all_at_once and one is not None and bad.size <= NAMED_FAULTS * len(recs)):
            return False
        named = {int(k): core.fault_of(int(k), one) for k in bad}   # (they write nothing)
    for rec in recs[clean & (recs[:, 2] != 0)][:1]:     # (on a core of N: the first instance's)
        warn(f"[{core.target.name}] TGATHERB: {int(rec[2])} offset(s) not 32-byte aligned "
             f"(first {int(rec[1]):#x}); rounded down to the block")
    launch_on(core, kernel, p, passes=2, writes=("ub",))
    if named:
        core.fault_instances(named)
    return True
