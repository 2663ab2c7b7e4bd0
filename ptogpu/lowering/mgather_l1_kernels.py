"""MGATHER GM->L1 on the kernel backends (cuda_src/mgather_l1.cu).

:func:`run` is the hook ``ops/mgather_l1.py`` calls before the NumPy semantics. False (NumPy
runs) on the numpy backend, while ``core.trace()`` records bursts, for ``Wrap`` with capacity
0, for operands not bound to this core or a destination not 32-byte aligned, and whenever the
kernel's check pass finds a fault or (Elem) an index/table read inside the scratch: the kernel
wrote nothing, and NumPy then raises the same fault (or runs the aliasing executor exactly).
"""
from __future__ import annotations

import numpy as np

from ..enums import GatherOOB
from ..tensor import GlobalTensor
from ..trace import active
from ..backend.kernels import M32, all_clean, enum, i64, launch_on, use_kernels
from ..semantics.a5_launch import elem_launch_warps
from ..semantics.indexing import prod

FILE = "mgather_l1.cu"


def _E(name):
    return enum(FILE, name)


def params(core, oob, dst, table, idx, scratch=None) -> np.ndarray:
    size = dst.Element.itemsize
    p = np.zeros(_E("L1_WORDS"), np.int64)
    vals = {
        "L1_VR": dst.valid_row, "L1_VC": dst.valid_col, "L1_T": size, "L1_C0": dst.C0,
        "L1_ROWS": dst.Rows, "L1_COLS": dst.Cols, "L1_OOB": int(oob),
        "L1_TBASE": i64(table.addr), "L1_TSTRIDE3": i64(table.GetStride(3)),
        "L1_IDX": i64(idx.addr), "L1_IDX_RSTRIDE": i64(idx.GetStride(3)),
        "L1_IDX_ESIZE": idx.Element.itemsize, "L1_IDX_SIGNED": int(idx.DType == "int32"),
        "L1_SCRATCH": i64(scratch.addr) if scratch is not None else 0,
        "L1_DST": dst.addr, "L1_DST_NBYTES": dst.nbytes,
    }
    for k, v in vals.items():
        p[_E(k)] = v
    f = _E("L1_FMT")
    tail = core.target.dma.nd2nz_tail
    pad = 0 if tail is None else int(tail) & ((1 << (8 * size)) - 1)
    p[f + _E("BF_ELEM")], p[f + _E("BF_PADMODE")] = size, 1
    p[f + _E("BF_FILL")], p[f + _E("BF_PAD")] = int(tail is not None), i64(pad)
    return p


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
    p = params(core, oob, dst, table, idx, scratch)
    p[_E("L1_CAP")] = cap
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
