"""Kernels whose instances take different paths: each decides on values it reads back from the
emulated memory, as a C++ kernel reads a ``__gm__`` scalar or a mask to leave a loop."""
import numpy as np

import ptogpu as pto
import ptogpu.fuzz

V = pto.TileType.Vec
N, CAP = 8, 100
Idx = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]]
Tab = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, CAP], pto.Stride[CAP, CAP, CAP, CAP, 1]]
Rows = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 12, N], pto.Stride[CAP, CAP, CAP, N, 1]]
Flag = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 1], pto.Stride[1, 1, 1, 1, 1]]
TABLE = ((np.arange(CAP) * 37) % 150 - 30).astype(np.int32)      # a fifth of the entries < 0


def chase(table, start, out):
    """Follow the table from each start index until a negative entry (a loop whose exit the
    data decides), at most 5 hops; Wrap: the CPU simulator and A5 wrap a negative index apart."""
    it = pto.Tile[V, pto.int32, 1, N]()
    dt = pto.Tile[V, pto.int32, 1, N]()
    pto.TASSIGN(it, 0)
    pto.TASSIGN(dt, 0x100)
    pto.TLOAD(it, Idx(start))
    for _ in range(5):
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Wrap](dt, Tab(table), it)
        v = dt.numpy()
        if (v < 0).any():
            break
        it.set(v * 3 - 7)
    pto.TSTORE(Idx(out), dt)


def branch(table, flag, start, out):
    """A branch on a loaded scalar: the flag's parity picks a Row or an Elem gather."""
    it = pto.Tile[V, pto.int32, 1, N]()
    pto.TASSIGN(it, 0)
    pto.TLOAD(it, Idx(start))
    dt = pto.Tile[V, pto.int32, 1, N]()
    pto.TASSIGN(dt, 0x100)
    if int(Flag(flag).numpy().reshape(-1)[0]) % 2:
        ri = pto.Tile[V, pto.int32, 1, N, pto.BLayout.RowMajor, 1, 1]()
        pto.TASSIGN(ri, 0x40)
        ri.set(np.array([[int(flag.numpy(1)[0]) % 13]], np.int32))     # (a raw pointer's read)
        pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Clamp](dt, Rows(table), ri)
    else:
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Wrap](dt, Tab(table), it)
    pto.TSTORE(Idx(out), dt)


def masked(table, start, out):
    """A decision on a mask of raw bytes: a second gather only where some index is large."""
    it = pto.Tile[V, pto.int32, 1, N]()
    dt = pto.Tile[V, pto.int32, 1, N]()
    pto.TASSIGN(it, 0)
    pto.TASSIGN(dt, 0x100)
    pto.TLOAD(it, Idx(start))
    pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Undefined](dt, Tab(table), it)
    mask = pto.current_core().read("ub", 0, 4 * N).view(np.int32) > CAP // 2
    if mask.any():
        it.set(np.where(mask, it.raw()[:N] // 2, it.raw()[:N]).reshape(1, N))
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Undefined](dt, Tab(table), it)
    pto.TSTORE(Idx(out), dt)


FUZZ = {
    "chase": dict(inputs={"start": pto.fuzz.indices(N, cap=CAP)}, fixed={"table": TABLE},
                  outputs={"out": (N, pto.int32)}, pair="cpu:a5"),
    "branch": dict(inputs={"flag": pto.fuzz.indices(1, cap=13, gen="uniform"), "start": pto.fuzz.indices(N, cap=CAP)},
                   fixed={"table": TABLE}, outputs={"out": (N, pto.int32)}, pair="cpu:a5"),
    "masked": dict(inputs={"start": pto.fuzz.indices(N, cap=CAP)}, fixed={"table": TABLE},
                   outputs={"out": (N, pto.int32)}, pair="cpu:a5"),
}
