"""Run the trace kernels of ``cuda_src/simt_trace.cu`` (backend ``native`` or ``cupy``).

The kernels get a private GM image: the dense uint32 index array, then the record area. They
are launched with ``dim3(32, 32)`` — the most a launch may have — so the kernels themselves
decide, with the ``common.cuh`` geometry, which warps take part, exactly as the data kernels
do; the header word reports the ``launchWarps`` they computed.
"""
from __future__ import annotations

import numpy as np

from ..semantics import a5_launch as g
from ..semantics.simt_case import SimtCase
from .trace import FIELDS, Trace, n_slots, numpy_trace
from ..backend import sources
from ..enums import GatherOOB

FILE = "simt_trace.cu"
KERNELS = {"row": "simt_trace_a5_row", "elem": "simt_trace_a5_elem",
           "l1_elem": "simt_trace_a5_l1_elem"}


def _image(case: SimtCase):
    E = sources.enum_values(FILE)
    u = case.index_values().reshape(-1).astype(np.uint32)
    n = n_slots(case)
    idx_bytes = -(-max(u.nbytes, 4) // 64) * 64
    out_words = E["TR_HEADER"] + E["TR_REC"] * n
    gm = np.zeros(idx_bytes + 8 * out_words, np.uint8)
    gm[: u.nbytes] = u.view(np.uint8)
    rec = gm[idx_bytes:].view(np.int64)
    rec[:] = -1
    rec[E["TR_HEADER"] + E["REC_COUNT"]:: E["TR_REC"]] = 0
    rows, cols = case.padded
    prm = np.zeros(E["TR_WORDS"], np.int64)
    vals = {"TR_VR": case.vr, "TR_VC": case.vc, "TR_ROWS": rows, "TR_COLS": cols,
            "TR_C0": case.c0, "TR_OOB": int(GatherOOB[case.oob]), "TR_CAP": case.capacity(),
            "TR_IDX": 0, "TR_ISTRIDE": case.index_stride, "TR_OUT": idx_bytes}
    for k, v in vals.items():
        prm[E[k]] = v
    return gm, prm, idx_bytes, E


def _records(case, gm, idx_bytes, E, backend) -> Trace:
    n = n_slots(case)
    words = gm[idx_bytes:].view(np.int64)
    rec = words[E["TR_HEADER"]:].reshape(n, E["TR_REC"])
    cols = {f: rec[:, E["REC_" + f.upper()]].copy() for f in FIELDS}
    return Trace(case, int(words[0]), backend=backend, **cols)


def kernel_trace(case: SimtCase, backend: str = "native") -> Trace:
    """Trace ``case`` with the CUDA trace kernels on ``backend`` ("native" | "cupy")."""
    gm, prm, idx_bytes, E = _image(case)
    block = (g.LANES, g.MAX_WARPS, 1)
    kernel = KERNELS[case.mode]
    if backend == "native":
        from ..backend import native_backend
        empty = np.zeros(1, np.uint8)
        native_backend.launch_raw(kernel, block, 1, {"gm": (gm, gm.size, 0), "ub": (empty, 0, 0),
                                                     "l1": (empty, 0, 0)}, prm)
    elif backend == "cupy":
        from ..backend import cupy_backend
        cupy = cupy_backend.cupy_module()
        fn = cupy_backend.module(FILE).get_function(kernel)
        d_gm = cupy.asarray(gm)
        d_empty = cupy.zeros(1, cupy.uint8)
        d_prm = cupy.asarray(prm)
        d_fault = cupy.zeros(4, cupy.uint64)
        fn((1,), block, (d_gm, np.int64(gm.size), np.int64(0), d_empty, np.int64(0), np.int64(0),
                         d_empty, np.int64(0), np.int64(0), d_prm, np.int64(0), d_fault,
                         np.int64(1), np.int32(0)))
        gm = cupy.asnumpy(d_gm)
    else:
        raise ValueError(f"kernel traces run on 'native' or 'cupy', not {backend!r}")
    return _records(case, gm, idx_bytes, E, backend)


def trace(case: SimtCase, backend: str = "numpy") -> Trace:
    """Run the launch of ``case`` in trace mode on ``backend`` ("numpy" | "native" | "cupy")."""
    if backend == "numpy":
        return numpy_trace(case)
    return kernel_trace(case, backend)
