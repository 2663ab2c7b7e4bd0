"""Two gathers interleaved: rows of even and odd features are gathered from one table by two
index tiles (MGATHER Elem, Wrap) and interleaved into one output pair (TINTERLEAVE). Fuzz it:
``ptogpu fuzz --kernel examples/interleave_gathers.py:interleave_gathers --pair cpu:a5``."""
import numpy as np

import ptogpu as pto
import ptogpu.fuzz

N, TABLE = 16, 250
V = pto.TileType.Vec
Idx = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]]
Tab = pto.GlobalTensor[pto.half, pto.Shape[1, 1, 1, 1, TABLE], pto.Stride[TABLE, TABLE, TABLE, TABLE, 1]]
Out = pto.GlobalTensor[pto.half, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]]


def interleave_gathers(table, even, odd, lo, hi):
    """table: __gm__ half[TABLE]; even, odd: __gm__ int32[N]; lo, hi: __gm__ half[N]."""
    T = pto.Tile[V, pto.half, 1, N]
    I = pto.Tile[V, pto.int32, 1, N]
    ie, io, a, b, d0, d1 = I(), I(), T(), T(), T(), T()
    for t, addr in zip((ie, io, a, b, d0, d1), range(0, 0x600, 0x100)):
        pto.TASSIGN(t, addr)
    pto.TLOAD(ie, Idx(even))
    pto.TLOAD(io, Idx(odd))
    gather = pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Wrap]
    gather(a, Tab(table), ie)
    gather(b, Tab(table), io)
    pto.TINTERLEAVE(d1, d0, b, a)
    pto.TSTORE(Out(lo), d0)
    pto.TSTORE(Out(hi), d1)


FUZZ = dict(
    inputs={"even": pto.fuzz.indices(N, cap=TABLE), "odd": pto.fuzz.indices(N, cap=TABLE)},
    outputs={"lo": (N, pto.half), "hi": (N, pto.half)},
    fixed={"table": (np.arange(TABLE) / 4).astype(np.float16)},
    pair="cpu:a5",
)
