"""MSCATTER on the kernel backends: lower a checked call to a launch of cuda_src/mscatter.cu.

:func:`run` returns False (NumPy then runs the call) for what the kernels leave to the
reference: the A2/A3 NZ tables, the simulator's value conversions (src and table types
differ) and its Row Max/Min operand quirk, ``Wrap`` with capacity 0 (NumPy raises the
division fault), a region larger than its arena, and -- on a GPU, whose warps really race --
Default stores and float atomics, whose bytes depend on the schedule (the host build runs
the documented one). A kernel that finds a bad access writes nothing; NumPy then raises the
fault with its message.
"""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...enums import Coalesce, ScatterAtomicOp, ScatterOOB
from . import semantics as sem
from ...backend import kernel_ok
from ...backend.kernels import Consts, ParamBlock, launch_instances, launch_on
from ...lowering.tiles import bound_to_core, tile_desc

_DT = {"int8": "DT_I8", "uint8": "DT_U8", "int16": "DT_I16", "uint16": "DT_U16", "int32": "DT_I32",
       "uint32": "DT_U32", "int64": "DT_I64", "uint64": "DT_U64", "half": "DT_F16",
       "bfloat16": "DT_BF16", "float32": "DT_F32"}
LAST_SCAN = "reverse"
"""How the native slot-centric kernel finds each thread's winner: ``reverse``, every lane's
own reverse scan (what the hardware runs, Θ(slots x N) index reads); ``owner``, one forward
pass recording each slot's last writer (the winner every scan finds; host build only, for
campaigns and benchmarks that need the speed; reports name it)."""
KERNEL = {"cpu": "mscatter_seq", "a2a3_nd": "mscatter_seq", "a5_scalar": "mscatter_seq",
          "a5_default": "mscatter_a5_source", "a5_last": "mscatter_a5_last"}


FILE = "mscatter.cu"
K = Consts(FILE)
"""The kernels' enum constants (``K.NAME``), read from their source."""




def params(core, call: sem.Call, table, src, idx) -> np.ndarray | None:
    """The kernel's parameter block, or None when the call stays with NumPy."""
    rules = core.target.mscatter
    if call.path not in KERNEL or not all(bound_to_core(core, x) for x in (table, src, idx)):
        return None
    if dtypes.name_of(src.Element) != dtypes.name_of(table.Element):
        return None
    if call.path == "cpu" and call.mode == Coalesce.Row and call.atomic in (ScatterAtomicOp.Max, ScatterAtomicOp.Min) \
            and core.quirks.get("cpu_mscatter_row_minmax_operand", False):
        return None
    name = dtypes.name_of(sem.arith_dtype(core, table))
    if call.atomic != ScatterAtomicOp.None_ and name not in _DT:
        return None
    cap = sem.capacity(core, call, table)
    if call.oob == ScatterOOB.Wrap and cap == 0 and call.path != "a5_last":
        return None
    VR, VC = src.valid_row, src.valid_col
    if VR * VC * src.Element.itemsize > core.arena(src.space).size:
        return None
    if core.backend == "cupy" and call.path == "a5_default" and (
            call.atomic == ScatterAtomicOp.None_ or name not in ("int32", "uint32")):
        return None                       # the bytes depend on the schedule: the host's one
    p = ParamBlock(FILE, "MS_", VR=VR, VC=VC, MODE=K.MSM_ROW if call.mode == Coalesce.Row else K.MSM_ELEM,
                   ATOMIC=int(call.atomic), OOB=int(call.oob), BITS=rules.index_bits, CAP=cap,
                   T=table.Element.itemsize, DT=K[_DT.get(name, "DT_RAW")], TBASE=table.addr,
                   ST3=table.GetStride(3), ST4=table.GetStride(4),
                   ROWDST=K[{"strides": "RD_STRIDES", "stride3": "RD_STRIDE3",
                              "valid_cols": "RD_VALID_COLS"}[rules.row_dst]],
                   LASTSCAN=K["SCAN_OWNER" if LAST_SCAN == "owner" and core.backend == "native" else "SCAN_REVERSE"])
    p.block("SRC", tile_desc(src, rules.tile_offsets))
    p.block("IDX", tile_desc(idx, rules.tile_offsets))
    return p.words


def block(call: sem.Call, prm: np.ndarray) -> tuple[int, int, int]:
    """The launch's ``dim3`` (the A5 geometry; the scalar loops run one thread)."""
    from ...semantics import a5_launch
    VR, VC = int(prm[K.MS_VR]), int(prm[K.MS_VC])      # (read back from the block)
    if call.path == "a5_default":
        w = a5_launch.launch_warps(call.mode.name.lower(), VR, VC)
        return (32, int(w), 1)
    if call.path == "a5_last":            # clamp(ceil(cap / 32), 1, 32): the Elem formula over slots
        return (32, int(a5_launch.elem_launch_warps(int(prm[K.MS_CAP]))), 1)
    return (1, 1, 1)


def run_mscatter(core, call, table, src, idx) -> bool:
    """Run a checked MSCATTER as a kernel when ``core.backend`` has one; False: run NumPy."""
    if not kernel_ok(core, src, idx):
        return False
    return run(core, call, table, src, idx)


def run(core, call: sem.Call, table, src, idx) -> bool:
    """Run a checked MSCATTER as its kernel; False: NumPy runs it (or raises its fault)."""
    prm = params(core, call, table, src, idx)
    if prm is None:
        return False
    if src.valid_row == 0 or src.valid_col == 0:
        return True
    kernel = KERNEL[call.path]
    if core.all_at_once:            # a core of N: one launch over N blocks
        rec = launch_instances(core, kernel, prm, block=block(call, prm),
                               passes=1 if kernel == "mscatter_seq" else 2, writes=("gm",))
        core.fault_instances({int(k): core.fault_of(k, lambda: sem.check_writes(
            core, sem.writes(core, call, table, src, idx), table.Element.itemsize, call))
            for k in np.flatnonzero(rec[:, 0] != np.uint64((1 << 64) - 1))})
        return True
    rec = launch_on(core, kernel, prm, block=block(call, prm),      # the table comes back
                    passes=1 if kernel == "mscatter_seq" else 2, writes=("gm",))
    return int(rec[0, 0]) == (1 << 64) - 1
