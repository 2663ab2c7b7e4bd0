"""MGATHER GM->L1 on the kernel backends (cuda_src/mgather_l1.cu).

:func:`run` is the hook ``api_l1.py`` calls before the NumPy semantics. False (NumPy
runs) on the numpy backend, while ``core.trace()`` records bursts, for ``Wrap`` with capacity
0, for operands not bound to this core or a destination not 32-byte aligned, and whenever the
kernel's check pass finds a fault or (Elem) an index/table read inside the scratch: the kernel
wrote nothing, and NumPy then raises the same fault (or runs the aliasing executor exactly).
"""
from __future__ import annotations

import numpy as np

from ...enums import GatherOOB
from ...tensor import GlobalTensor
from ...trace import active
from ...backend import kernel_ok
from ...backend.kernels import M32, ParamBlock, all_clean, launch_on, use_kernels
from ...semantics.a5_launch import elem_launch_warps
from ...semantics.indexing import prod

FILE = "mgather_l1.cu"


def params(core, oob, dst, table, idx, scratch=None, cap: int = 0) -> np.ndarray:
    """The ``L1_*`` block (its ``BF_*`` DMA format nested at ``L1_FMT``)."""
    size = dst.Element.itemsize
    p = ParamBlock(FILE, "L1_", VR=dst.valid_row, VC=dst.valid_col, T=size, C0=dst.C0, ROWS=dst.Rows,
                   COLS=dst.Cols, OOB=int(oob), TBASE=table.addr, TSTRIDE3=table.GetStride(3), IDX=idx.addr,
                   IDX_RSTRIDE=idx.GetStride(3), IDX_ESIZE=idx.Element.itemsize,
                   IDX_SIGNED=int(idx.DType == "int32"), SCRATCH=scratch.addr if scratch is not None else 0,
                   DST=dst.addr, DST_NBYTES=dst.nbytes, CAP=cap)
    tail = core.target.dma.nd2nz_tail
    fmt = ParamBlock(FILE, "BF_", ELEM=size, PADMODE=1, FILL=int(tail is not None),
                     PAD=0 if tail is None else int(tail) & ((1 << (8 * size)) - 1))
    p.block("FMT", fmt.words)
    return p.words


def plan(core, oob, dst, table, idx, scratch=None, simt=False):
    """(kernel, block, params) of this checked GM->L1 MGATHER, or None to leave it to NumPy."""
    if not use_kernels(core) or active(core):
        return None
    for x in (table, idx) + ((scratch,) if scratch is not None else ()):
        if not isinstance(x, GlobalTensor) or x.core is not core:
            return None
    if dst.core is not core or dst.space != "l1" or dst.addr % 32:
        return None
    if core.target.mgather.index_bits != 32:
        return None                        # the kernels cast each index to uint32_t
    if scratch is None:
        cap = prod(table.GetShape(k) for k in range(4)) & M32
    else:
        cap = prod(table.GetShape(k) for k in range(5)) & M32
    if GatherOOB(oob) == GatherOOB.Wrap and cap == 0:
        return None
    p = params(core, oob, dst, table, idx, scratch, cap)
    if scratch is None:
        return "mgather_l1_row", (1, 1, 1), p
    if simt:
        return "mgather_l1_elem_simt", (32, elem_launch_warps(dst.Rows * dst.Cols), 1), p
    if dst.valid_row > dst.Rows or dst.valid_col > dst.Cols:
        return None        # the scalar loop's stores past the tile's positions: NumPy models them
    return "mgather_l1_elem_scalar", (1, 1, 1), p


def run(core, oob, dst, table, idx, scratch=None, simt=False) -> bool:
    pl = plan(core, oob, dst, table, idx, scratch, simt)
    if pl is None:
        return False
    kernel, block, p = pl
    if not all_clean(launch_on(core, kernel, p, block=block, passes=1, writes=())):
        return False
    launch_on(core, kernel, p, block=block, passes=2, writes=("gm", "l1"))
    return True


def run_mgather_l1(core, oob, dst, table, idx, scratch=None, simt=False) -> bool:
    """Run a checked GM->L1 MGATHER (Row: scratch None) as a kernel; False: run NumPy."""
    if not kernel_ok(core, dst):
        return False
    return run(core, oob, dst, table, idx, scratch, simt)
